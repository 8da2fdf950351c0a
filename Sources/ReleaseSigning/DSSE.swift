import Foundation
import ReleaseSystem

/// Why an envelope was refused. Each is one line; none repeats the payload.
public enum DSSEError: Error, Equatable, Sendable, CustomStringConvertible {
  /// Not a DSSE envelope: bad JSON, a missing field, or a field that is not base64.
  case malformed(String)
  /// The envelope's `payloadType` is not the one the caller expects.
  case wrongPayloadType(expected: String, found: String)
  /// No signature is by a trusted key (the key ids found, sorted; none when unsigned).
  case unknownKeys([String])
  /// Signatures by trusted keys are present but none verifies.
  case badSignature(keyIDs: [String])

  public var description: String {
    switch self {
    case .malformed(let reason): return "not a DSSE envelope: \(reason)"
    case .wrongPayloadType(let expected, let found):
      return "DSSE payloadType is \(Self.quoted(found)), expected \(Self.quoted(expected))"
    case .unknownKeys(let keyIDs):
      return keyIDs.isEmpty
        ? "DSSE envelope is not signed"
        : "DSSE envelope is signed only by untrusted keys: "
          + keyIDs.prefix(3).map(Self.quoted).joined(separator: ", ")
          + (keyIDs.count > 3 ? " and \(keyIDs.count - 3) more" : "")
    case .badSignature(let keyIDs):
      return "DSSE signature by trusted key \(keyIDs.joined(separator: ", ")) does not verify"
    }
  }

  /// A value from the envelope, quoted and shortened so the description stays one line.
  private static func quoted(_ text: String) -> String {
    let shown = text.count > 100 ? String(text.prefix(100)) + "…" : text
    return "\"" + shown.map { $0.isNewline ? " " : String($0) }.joined() + "\""
  }
}

/// A DSSE envelope (the signing envelope of in-toto and Sigstore,
/// https://github.com/secure-systems-lab/dsse): a payload, its type, and Ed25519 signatures
/// over the pre-authentication encoding of both, each named by its key id.
public struct DSSEEnvelope: Equatable, Sendable {
  public struct Signature: Equatable, Sendable {
    /// Lower-case hex SHA-256 of the raw public key (`PublicKey.keyID`).
    public internal(set) var keyID: String
    /// The raw 64-byte Ed25519 signature (base64 in the JSON).
    public internal(set) var signature: Data

    init(keyID: String, signature: Data) {
      self.keyID = keyID
      self.signature = signature
    }
  }

  public internal(set) var payloadType: String
  public internal(set) var payload: Data
  public internal(set) var signatures: [Signature]

  init(payloadType: String, payload: Data, signatures: [Signature]) {
    self.payloadType = payloadType
    self.payload = payload
    self.signatures = signatures
  }

  /// Signs `payload` with each key, in order.
  public static func sign(payload: Data, payloadType: String, with keys: [SigningKey]) throws(KeyError)
    -> DSSEEnvelope
  {
    let message = preAuthenticationEncoding(payloadType: payloadType, payload: payload)
    var signatures: [Signature] = []
    for key in keys {
      signatures.append(Signature(keyID: key.keyID, signature: try key.signature(for: message)))
    }
    return DSSEEnvelope(payloadType: payloadType, payload: payload, signatures: signatures)
  }

  /// What was verified: the payload bytes, and the ids of the trusted keys whose signatures
  /// verified (in the envelope's order, each once).
  public struct Verified: Equatable, Sendable {
    public let payload: Data
    public let keyIDs: [String]
  }

  /// Checks the envelope against the keys a verifier trusts: `payloadType` exactly as
  /// expected, signatures by other keys ignored, at least one by a trusted key that verifies.
  /// A trusted key's signature that fails does not refuse an envelope another trusted key's
  /// signature makes good (key rotation signs with both).
  public func verify(payloadType expected: String, trustedKeys: [PublicKey]) throws(DSSEError) -> Verified {
    guard payloadType == expected else { throw .wrongPayloadType(expected: expected, found: payloadType) }
    let trusted = Dictionary(trustedKeys.map { ($0.keyID, $0) }, uniquingKeysWith: { first, _ in first })
    let message = Self.preAuthenticationEncoding(payloadType: payloadType, payload: payload)
    var verified: [String] = []
    var failed: [String] = []
    for signature in signatures {
      guard let key = trusted[signature.keyID] else { continue }
      if key.isValidSignature(signature.signature, for: message) {
        if !verified.contains(signature.keyID) { verified.append(signature.keyID) }
      } else if !failed.contains(signature.keyID) {
        failed.append(signature.keyID)
      }
    }
    guard !verified.isEmpty else {
      if failed.isEmpty { throw .unknownKeys(Set(signatures.map(\.keyID)).sorted()) }
      throw .badSignature(keyIDs: failed.sorted())
    }
    return Verified(payload: payload, keyIDs: verified)
  }

  /// Parses the envelope's JSON and verifies it (see `verify(payloadType:trustedKeys:)`).
  public static func verify(json: Data, payloadType: String, trustedKeys: [PublicKey]) throws(DSSEError)
    -> Verified
  {
    try DSSEEnvelope(json: json).verify(payloadType: payloadType, trustedKeys: trustedKeys)
  }

  /// Parses an envelope's JSON. Base64 fields are read standard or URL-safe, with or without
  /// padding, as the DSSE specification asks of a verifier.
  public init(json: Data) throws(DSSEError) {
    let wire: Wire
    do {
      wire = try JSONDecoder().decode(Wire.self, from: json)
    } catch {
      throw .malformed("the JSON is not {payloadType, payload, signatures: [{keyid, sig}]}")
    }
    guard let payload = Self.decodeBase64(wire.payload) else { throw .malformed("payload is not base64") }
    var signatures: [Signature] = []
    for entry in wire.signatures {
      guard let signature = Self.decodeBase64(entry.sig) else {
        throw .malformed("a signature is not base64")
      }
      signatures.append(Signature(keyID: entry.keyid ?? "", signature: signature))
    }
    self.init(payloadType: wire.payloadType, payload: payload, signatures: signatures)
  }

  /// The envelope's JSON: standard base64 with padding, sorted keys, the same bytes for the
  /// same envelope.
  public func jsonData() throws -> Data {
    let wire = Wire(
      payloadType: payloadType, payload: payload.base64EncodedString(),
      signatures: signatures.map { Wire.Entry(keyid: $0.keyID, sig: $0.signature.base64EncodedString()) })
    return try StableJSON.encode(wire)
  }

  /// DSSE's pre-authentication encoding, what is signed:
  /// `"DSSEv1" SP len(type) SP type SP len(payload) SP payload`, lengths as ASCII decimal byte
  /// counts.
  public static func preAuthenticationEncoding(payloadType: String, payload: Data) -> Data {
    let type = Data(payloadType.utf8)
    var encoding = Data("DSSEv1 \(type.count) ".utf8)
    encoding.append(type)
    encoding.append(Data(" \(payload.count) ".utf8))
    encoding.append(payload)
    return encoding
  }

  static func decodeBase64(_ text: String) -> Data? {
    var standard = text.replacingOccurrences(of: "-", with: "+").replacingOccurrences(of: "_", with: "/")
    if !standard.hasSuffix("=") {
      standard += String(repeating: "=", count: (4 - standard.utf8.count % 4) % 4)
    }
    return Data(base64Encoded: standard)
  }

  /// The JSON shape, with the specification's field names.
  private struct Wire: Codable {
    struct Entry: Codable {
      // Optional in the specification; an entry without one matches no trusted key.
      var keyid: String?
      var sig: String
    }
    var payloadType: String
    var payload: String
    var signatures: [Entry]
  }
}
