import Foundation

/// Why an OpenSSH file signature was refused. Each is one line.
public enum SSHSignatureError: Error, Equatable, Sendable, CustomStringConvertible {
  /// Not an armored SSHSIG, or its fields are not as OpenSSH's `PROTOCOL.sshsig` lays them out.
  case malformed(String)
  /// A key or signature algorithm other than `ssh-ed25519`, or a hash other than sha256/sha512.
  case unsupportedAlgorithm(String)
  /// Signed for another purpose (`-n` of `ssh-keygen -Y`).
  case wrongNamespace(expected: String, found: String)
  /// Signed by a key that is not trusted (its `SHA256:` fingerprint).
  case untrustedKey(fingerprint: String)
  /// The signature does not match the data.
  case badSignature(fingerprint: String)
  /// An `allowed_signers` identity must be one non-empty word.
  case invalidIdentity

  public var description: String {
    switch self {
    case .malformed(let reason): return "not an SSH signature: \(reason)"
    case .unsupportedAlgorithm(let name):
      return "SSH signature uses unsupported algorithm \(Self.shown(name))"
    case .wrongNamespace(let expected, let found):
      return "SSH signature is for namespace \(Self.shown(found)), expected \(Self.shown(expected))"
    case .untrustedKey(let fingerprint): return "SSH signature is by untrusted key \(fingerprint)"
    case .badSignature(let fingerprint):
      return "SSH signature by \(fingerprint) does not match the data (changed since it was signed?)"
    case .invalidIdentity: return "an allowed_signers identity must be one word without spaces or quotes"
    }
  }

  /// A value read from the signature, printable and short.
  private static func shown(_ text: String) -> String {
    let printable = text.unicodeScalars.map {
      $0.properties.isWhitespace || $0.value < 0x20 ? " " : String($0)
    }
    let joined = printable.joined()
    return "\"" + (joined.count > 64 ? String(joined.prefix(64)) + "…" : joined) + "\""
  }
}

/// OpenSSH file signatures (`ssh-keygen -Y sign/verify`, OpenSSH's `PROTOCOL.sshsig`), Ed25519
/// only. What is signed is `"SSHSIG" || string(namespace) || string("") || string(hash) ||
/// string(H(data))`; the signature file is `"SSHSIG" || uint32(1) || string(public key) ||
/// string(namespace) || string("") || string(hash) || string(signature)`, base64 in lines of
/// 70 characters between `-----BEGIN SSH SIGNATURE-----` and `-----END SSH SIGNATURE-----`.
public enum SSHSignature {
  static let magic = Data("SSHSIG".utf8)
  static let keyType = "ssh-ed25519"
  static let begin = "-----BEGIN SSH SIGNATURE-----"
  static let end = "-----END SSH SIGNATURE-----"

  /// The armored signature of `data` (hash sha512), as `ssh-keygen -Y sign -n <namespace>`
  /// writes it.
  static func sign(_ data: Data, namespace: String, with key: SigningKey) throws(KeyError) -> String {
    try sign(sha512: Digest.hash(data, .sha512), namespace: namespace, with: key)
  }

  /// The armored signature of a file's bytes, read in fixed blocks.
  public static func sign(fileAt url: URL, namespace: String, with key: SigningKey) throws -> String {
    try sign(sha512: Digest.hash(fileAt: url, .sha512), namespace: namespace, with: key)
  }

  /// Verifies an armored signature of `data` against the trusted keys, as
  /// `ssh-keygen -Y verify -n <namespace>` does with an `allowed_signers` file; returns the key
  /// that signed.
  public static func verify(
    _ armored: String, of data: Data, namespace: String, trustedKeys: [PublicKey]
  ) throws(SSHSignatureError) -> PublicKey {
    let signature = try Parsed(armored: armored)
    let digest = Digest.hash(data, signature.hashAlgorithm == "sha512" ? .sha512 : .sha256)
    return try signature.verify(digest: digest, namespace: namespace, trustedKeys: trustedKeys)
  }

  /// Verifies an armored signature of a file's bytes; returns the key that signed. Errors from
  /// reading the file are thrown as they come.
  public static func verify(
    _ armored: String, ofFileAt url: URL, namespace: String, trustedKeys: [PublicKey]
  ) throws -> PublicKey {
    let signature = try Parsed(armored: armored)
    let digest = try Digest.hash(fileAt: url, signature.hashAlgorithm == "sha512" ? .sha512 : .sha256)
    return try signature.verify(digest: digest, namespace: namespace, trustedKeys: trustedKeys)
  }

  static func sign(sha512 digest: Data, namespace: String, with key: SigningKey) throws(KeyError) -> String {
    let message = signedData(namespace: namespace, hashAlgorithm: "sha512", digest: digest)
    let signature = try key.signature(for: message)
    var blob = magic
    blob.append(contentsOf: [0, 0, 0, 1])
    blob.appendSSHString(key.publicKey.sshPublicKeyBlob)
    blob.appendSSHString(Data(namespace.utf8))
    blob.appendSSHString(Data())
    blob.appendSSHString(Data("sha512".utf8))
    var signatureBlob = Data()
    signatureBlob.appendSSHString(Data(keyType.utf8))
    signatureBlob.appendSSHString(signature)
    blob.appendSSHString(signatureBlob)
    let lines = blob.base64EncodedString().chunked(into: 70)
    return ([begin] + lines + [end]).joined(separator: "\n") + "\n"
  }

  /// What the signature covers.
  static func signedData(namespace: String, hashAlgorithm: String, digest: Data) -> Data {
    var data = magic
    data.appendSSHString(Data(namespace.utf8))
    data.appendSSHString(Data())
    data.appendSSHString(Data(hashAlgorithm.utf8))
    data.appendSSHString(digest)
    return data
  }

  /// The fields of a signature file.
  struct Parsed {
    var publicKey: PublicKey
    var namespace: String
    var hashAlgorithm: String
    var signature: Data

    init(armored: String) throws(SSHSignatureError) {
      let lines = armored.split(whereSeparator: \.isNewline).map { $0.trimmingCharacters(in: .whitespaces) }
        .filter { !$0.isEmpty }
      guard lines.first == SSHSignature.begin, lines.last == SSHSignature.end, lines.count > 2 else {
        throw .malformed("no \(SSHSignature.begin) … \(SSHSignature.end) block")
      }
      guard let blob = Data(base64Encoded: lines.dropFirst().dropLast().joined()) else {
        throw .malformed("the body is not base64")
      }
      var reader = SSHReader(blob)
      guard try reader.bytes(count: SSHSignature.magic.count) == SSHSignature.magic else {
        throw .malformed("no SSHSIG magic")
      }
      let version = try reader.uint32()
      guard version == 1 else { throw .malformed("version \(version), expected 1") }
      publicKey = try SSHSignature.publicKey(blob: try reader.string())
      namespace = String(decoding: try reader.string(), as: UTF8.self)
      _ = try reader.string()  // reserved
      hashAlgorithm = String(decoding: try reader.string(), as: UTF8.self)
      guard hashAlgorithm == "sha512" || hashAlgorithm == "sha256" else {
        throw .unsupportedAlgorithm(hashAlgorithm)
      }
      var signatureReader = SSHReader(try reader.string())
      try reader.finish()
      let algorithm = String(decoding: try signatureReader.string(), as: UTF8.self)
      guard algorithm == SSHSignature.keyType else { throw .unsupportedAlgorithm(algorithm) }
      signature = try signatureReader.string()
      try signatureReader.finish()
    }

    func verify(digest: Data, namespace expected: String, trustedKeys: [PublicKey]) throws(SSHSignatureError)
      -> PublicKey
    {
      guard namespace == expected else { throw .wrongNamespace(expected: expected, found: namespace) }
      guard trustedKeys.contains(publicKey) else {
        throw .untrustedKey(fingerprint: publicKey.sshFingerprint)
      }
      let message = SSHSignature.signedData(
        namespace: namespace, hashAlgorithm: hashAlgorithm, digest: digest)
      guard publicKey.isValidSignature(signature, for: message) else {
        throw .badSignature(fingerprint: publicKey.sshFingerprint)
      }
      return publicKey
    }
  }

  /// The key in an OpenSSH public key blob: `string("ssh-ed25519") || string(raw32)`.
  static func publicKey(blob: Data) throws(SSHSignatureError) -> PublicKey {
    var reader = SSHReader(blob)
    let type = String(decoding: try reader.string(), as: UTF8.self)
    guard type == keyType else { throw .unsupportedAlgorithm(type) }
    let raw = try reader.string()
    try reader.finish()
    do { return try PublicKey(raw: raw) } catch { throw .malformed("an Ed25519 public key is 32 bytes") }
  }
}

extension PublicKey {
  /// OpenSSH's public key blob: `string("ssh-ed25519") || string(raw 32 bytes)`.
  var sshPublicKeyBlob: Data {
    var blob = Data()
    blob.appendSSHString(Data(SSHSignature.keyType.utf8))
    blob.appendSSHString(rawRepresentation)
    return blob
  }

  /// The key as an OpenSSH public key line, `ssh-ed25519 <base64 blob>` (what a `.pub` file
  /// of `ssh-keygen` holds, without a comment).
  public var openSSHPublicKey: String { "\(SSHSignature.keyType) \(sshPublicKeyBlob.base64EncodedString())" }

  /// The fingerprint `ssh-keygen -l` prints: `SHA256:` and the unpadded base64 of the SHA-256
  /// of the public key blob.
  public var sshFingerprint: String {
    let encoded = Digest.hash(sshPublicKeyBlob, .sha256).base64EncodedString()
    return "SHA256:" + encoded.prefix { $0 != "=" }
  }

  /// The line of an `allowed_signers` file (`ssh-keygen -Y verify -f`) that trusts this key
  /// for `identity`, and only for signatures in `namespace`:
  /// `<identity> namespaces="<namespace>" ssh-ed25519 <base64 blob>`. Without the option the
  /// line would also accept the key's signature of anything else (a commit, another file).
  public func allowedSignersLine(identity: String, namespace: String) throws(SSHSignatureError) -> String {
    func isWord(_ text: String) -> Bool {
      !text.isEmpty
        && !text.unicodeScalars.contains {
          $0.properties.isWhitespace || $0.value < 0x20 || $0.value == 0x7f || $0 == "\"" || $0 == "#"
            || $0 == ","
        }
    }
    guard isWord(identity), isWord(namespace) else { throw .invalidIdentity }
    return "\(identity) namespaces=\"\(namespace)\" \(openSSHPublicKey)"
  }

  /// Reads an OpenSSH public key line, `ssh-ed25519 <base64 blob> [comment]`.
  init(openSSH line: String) throws(KeyError) {
    let fields = line.split(whereSeparator: \.isWhitespace)
    guard fields.count >= 2, fields[0] == SSHSignature.keyType,
      let blob = Data(base64Encoded: String(fields[1]))
    else { throw .notOpenSSHEd25519 }
    do { self = try SSHSignature.publicKey(blob: blob) } catch { throw .notOpenSSHEd25519 }
  }
}

/// Reads SSH wire encoding (RFC 4251): `uint32` big-endian, `string` = uint32 length + bytes.
struct SSHReader {
  private let data: Data
  private var offset: Int

  init(_ data: Data) {
    self.data = Data(data)
    offset = 0
  }

  mutating func bytes(count: Int) throws(SSHSignatureError) -> Data {
    guard count >= 0, data.count - offset >= count else { throw .malformed("a field runs past the end") }
    defer { offset += count }
    return data.subdata(in: offset..<offset + count)
  }

  mutating func uint32() throws(SSHSignatureError) -> UInt32 {
    try bytes(count: 4).reduce(0) { $0 << 8 | UInt32($1) }
  }

  mutating func string() throws(SSHSignatureError) -> Data {
    let length = try uint32()
    return try bytes(count: Int(length))
  }

  /// Refuses bytes left over.
  func finish() throws(SSHSignatureError) {
    guard offset == data.count else { throw .malformed("bytes after the last field") }
  }
}

extension Data {
  mutating func appendSSHString(_ bytes: Data) {
    let length = UInt32(bytes.count)
    append(contentsOf: [24, 16, 8, 0].map { UInt8(truncatingIfNeeded: length >> $0) })
    append(bytes)
  }
}

extension String {
  func chunked(into size: Int) -> [String] {
    var chunks: [String] = []
    var rest = Substring(self)
    while !rest.isEmpty {
      chunks.append(String(rest.prefix(size)))
      rest = rest.dropFirst(size)
    }
    return chunks
  }
}
