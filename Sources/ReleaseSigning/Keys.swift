import Foundation
import ReleaseSystem

/// Why a key could not be read or used. No case carries, and no description shows, any byte
/// of the text that was read: an error message may end up in a CI log.
public enum KeyError: Error, Equatable, Sendable, CustomStringConvertible {
  /// The text holds no `-----BEGIN …-----` block.
  case noPEMBlock
  /// A PEM block of another kind than the one expected.
  case wrongPEMType(expected: PEMKind, found: PEMKind)
  /// A `BEGIN` line without its matching `END` line.
  case truncatedPEM(PEMKind)
  /// The body of a PEM block is not base64.
  case notBase64(PEMKind)
  /// Well-formed PEM whose DER is not an Ed25519 key of the expected shape.
  case notEd25519(PEMKind)
  /// Exactly one key was expected.
  case moreThanOneKey(count: Int)
  /// An OpenSSH public key line that is not `ssh-ed25519 <base64 blob>`.
  case notOpenSSHEd25519
  /// The crypto library refused an operation (named, never with its inputs).
  case cryptoFailure(String)

  public var description: String {
    switch self {
    case .noPEMBlock: return "no PEM block (-----BEGIN …-----) in the key text"
    case .wrongPEMType(let expected, let found):
      let hint = found == .encryptedPrivateKey ? " (encrypted keys are not supported)" : ""
      return "expected a \(expected) PEM block, found \(found)\(hint)"
    case .truncatedPEM(let kind): return "\(kind) PEM block has no END line"
    case .notBase64(let kind): return "\(kind) PEM block is not valid base64"
    case .notEd25519(let kind):
      return "\(kind) PEM block is not an Ed25519 key as `openssl genpkey -algorithm ed25519` writes it"
    case .moreThanOneKey(let count): return "expected one key, found \(count)"
    case .notOpenSSHEd25519: return "not an OpenSSH public key line of the form `ssh-ed25519 <base64>`"
    case .cryptoFailure(let operation): return "the crypto library refused \(operation)"
    }
  }
}

/// The kind of a PEM block, by its label; the label itself is never repeated in an error.
public enum PEMKind: Equatable, Sendable, CustomStringConvertible {
  case privateKey, publicKey, encryptedPrivateKey, other

  init(label: String) {
    switch label {
    case "PRIVATE KEY": self = .privateKey
    case "PUBLIC KEY": self = .publicKey
    case "ENCRYPTED PRIVATE KEY": self = .encryptedPrivateKey
    default: self = .other
    }
  }

  var label: String {
    switch self {
    case .privateKey: return "PRIVATE KEY"
    case .publicKey: return "PUBLIC KEY"
    case .encryptedPrivateKey: return "ENCRYPTED PRIVATE KEY"
    case .other: return "another"
    }
  }

  public var description: String { self == .other ? "another kind of block" : label }
}

/// An Ed25519 public key: what a package pins and a verifier trusts.
public struct PublicKey: Hashable, Sendable, CustomStringConvertible {
  /// The raw 32 bytes (RFC 8032).
  public let rawRepresentation: Data

  /// Lower-case hex SHA-256 of the raw 32 bytes: the `keyid` of DSSE signatures.
  public var keyID: String { SHA256Digest.hex(of: rawRepresentation) }

  init(raw: Data) throws(KeyError) {
    guard raw.count == PlatformCrypto.keyLength else { throw .notEd25519(.publicKey) }
    rawRepresentation = Data(raw)
  }

  /// Reads a SubjectPublicKeyInfo PEM block (`-----BEGIN PUBLIC KEY-----`), as
  /// `openssl pkey -pubout` writes it; exactly one key.
  public init(pem: String) throws(KeyError) {
    let blocks = try PEM.blocks(in: pem, expected: .publicKey)
    guard blocks.count == 1 else { throw .moreThanOneKey(count: blocks.count) }
    guard blocks[0].count == DER.publicKeyPrefix.count + PlatformCrypto.keyLength,
      blocks[0].starts(with: DER.publicKeyPrefix)
    else { throw .notEd25519(.publicKey) }
    try self.init(raw: blocks[0].dropFirst(DER.publicKeyPrefix.count))
  }

  /// The SubjectPublicKeyInfo PEM text, as `openssl pkey -pubout` writes it.
  public var pemEncoded: String { PEM.encode(DER.publicKeyPrefix + rawRepresentation, kind: .publicKey) }

  public func isValidSignature(_ signature: Data, for message: Data) -> Bool {
    PlatformCrypto.verify(publicKey: rawRepresentation, signature: signature, message: message)
  }

  public var description: String { "PublicKey(\(keyID))" }
}

/// An Ed25519 private key. It cannot be printed, dumped or encoded: its description, debug
/// description and mirror show only the key id, and it is not `Codable`. The seed lives in
/// memory of its own, zeroed when the last copy goes away.
public struct SigningKey: Sendable, CustomStringConvertible, CustomDebugStringConvertible,
  CustomReflectable
{
  private let seed: Seed
  public let publicKey: PublicKey

  /// The key id of the public half.
  public var keyID: String { publicKey.keyID }

  init<Bytes: Collection>(seed bytes: Bytes) throws(KeyError) where Bytes.Element == UInt8 {
    guard bytes.count == PlatformCrypto.keyLength else { throw .notEd25519(.privateKey) }
    let seed = Seed(bytes)
    let raw = try seed.withBytes { (bytes) throws(KeyError) in try PlatformCrypto.publicKey(seed: bytes) }
    self.seed = seed
    self.publicKey = try PublicKey(raw: raw)
  }

  /// A new random key pair.
  public static func generate() throws(KeyError) -> SigningKey {
    var bytes = try PlatformCrypto.generateSeed()
    defer { Seed.wipe(&bytes) }
    return try SigningKey(seed: bytes)
  }

  /// Reads one PKCS#8 PEM block (`-----BEGIN PRIVATE KEY-----`), as
  /// `openssl genpkey -algorithm ed25519` writes it.
  public init(pem: String) throws(KeyError) {
    let keys = try SigningKey.keys(pem: pem)
    guard keys.count == 1 else { throw .moreThanOneKey(count: keys.count) }
    self = keys[0]
  }

  /// Reads every PKCS#8 PEM block of a text (one or more keys, as `RELEASE_SIGNING_KEY` may
  /// hold), in order. Text between blocks is ignored, as OpenSSL does.
  public static func keys(pem: String) throws(KeyError) -> [SigningKey] {
    var blocks = try PEM.blocks(in: pem, expected: .privateKey)
    defer { for index in blocks.indices { Seed.wipe(&blocks[index]) } }
    var keys: [SigningKey] = []
    for der in blocks {
      guard der.count == DER.privateKeyPrefix.count + PlatformCrypto.keyLength,
        der.starts(with: DER.privateKeyPrefix)
      else { throw .notEd25519(.privateKey) }
      keys.append(try SigningKey(seed: der.dropFirst(DER.privateKeyPrefix.count)))
    }
    return keys
  }

  /// The PKCS#8 PEM text, as `openssl genpkey -algorithm ed25519` writes it. Only for writing
  /// a newly generated key to its file.
  public var pemEncoded: String {
    seed.withBytes { bytes in
      var der = DER.privateKeyPrefix + Data(bytes)
      defer { der.resetBytes(in: der.startIndex..<der.endIndex) }
      return PEM.encode(der, kind: .privateKey)
    }
  }

  /// The Ed25519 signature (64 bytes) of `message`.
  public func signature(for message: Data) throws(KeyError) -> Data {
    try seed.withBytes { (bytes) throws(KeyError) in try PlatformCrypto.sign(seed: bytes, message: message) }
  }

  public var description: String { "SigningKey(\(keyID))" }
  public var debugDescription: String { description }
  public var customMirror: Mirror { Mirror(self, children: ["keyID": keyID], displayStyle: .struct) }
}

/// The 32 secret bytes, in memory that is zeroed when released.
private final class Seed: @unchecked Sendable {
  // Written once in init, read-only afterwards.
  private let storage: UnsafeMutableRawBufferPointer

  init<Bytes: Collection>(_ bytes: Bytes) where Bytes.Element == UInt8 {
    storage = .allocate(byteCount: bytes.count, alignment: 1)
    storage.copyBytes(from: bytes)
  }

  deinit {
    storage.initializeMemory(as: UInt8.self, repeating: 0)
    storage.deallocate()
  }

  func withBytes<Result, Failure: Error>(
    _ body: (UnsafeRawBufferPointer) throws(Failure) -> Result
  ) throws(Failure) -> Result {
    try body(UnsafeRawBufferPointer(storage))
  }

  static func wipe(_ bytes: inout [UInt8]) {
    for index in bytes.indices { bytes[index] = 0 }
  }

  static func wipe(_ data: inout Data) {
    data.resetBytes(in: data.startIndex..<data.endIndex)
  }
}

/// The fixed DER around an Ed25519 key (RFC 8410): reading these prefixes is encoding, not
/// cryptography.
enum DER {
  /// PKCS#8 v1 `PrivateKeyInfo`: version 0, algorithm id-Ed25519 (1.3.101.112), then the seed
  /// as an OCTET STRING inside the OCTET STRING.
  static let privateKeyPrefix = Data([
    0x30, 0x2e, 0x02, 0x01, 0x00, 0x30, 0x05, 0x06, 0x03, 0x2b, 0x65, 0x70, 0x04, 0x22, 0x04, 0x20,
  ])
  /// `SubjectPublicKeyInfo`: algorithm id-Ed25519, then the key as a BIT STRING.
  static let publicKeyPrefix = Data([0x30, 0x2a, 0x30, 0x05, 0x06, 0x03, 0x2b, 0x65, 0x70, 0x03, 0x21, 0x00])
}

/// PEM (RFC 7468) reading and writing.
enum PEM {
  /// The DER of every block of `text`, which must all be of kind `expected`.
  static func blocks(in text: String, expected: PEMKind) throws(KeyError) -> [Data] {
    var blocks: [Data] = []
    var open: (kind: PEMKind, label: String, body: String)?
    for rawLine in text.split(omittingEmptySubsequences: false, whereSeparator: \.isNewline) {
      let line = rawLine.trimmingCharacters(in: .whitespaces)
      if let current = open {
        if line == "-----END \(current.label)-----" {
          guard let der = Data(base64Encoded: current.body) else { throw .notBase64(current.kind) }
          blocks.append(der)
          open = nil
        } else if line.hasPrefix("-----") {
          throw .truncatedPEM(current.kind)
        } else {
          open?.body += line
        }
      } else if line.hasPrefix("-----BEGIN "), line.hasSuffix("-----"), line.count > 16 {
        let label = String(line.dropFirst(11).dropLast(5))
        let kind = PEMKind(label: label)
        guard kind == expected else { throw .wrongPEMType(expected: expected, found: kind) }
        open = (kind, label, "")
      }
    }
    if let open { throw .truncatedPEM(open.kind) }
    guard !blocks.isEmpty else { throw .noPEMBlock }
    return blocks
  }

  static func encode(_ der: Data, kind: PEMKind) -> String {
    let body = der.base64EncodedString(options: [.lineLength64Characters, .endLineWithLineFeed])
    return "-----BEGIN \(kind.label)-----\n\(body)\n-----END \(kind.label)-----\n"
  }
}
