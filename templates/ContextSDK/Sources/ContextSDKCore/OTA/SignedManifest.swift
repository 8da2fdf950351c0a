import Foundation

#if canImport(CryptoKit)
  import CryptoKit
#elseif canImport(CContextSDKCrypto)
  import CContextSDKCrypto
#endif

/// A public key this build trusts to sign its over-the-air manifests, as `customer.json` pins
/// it: the raw 32-byte Ed25519 key in base64, and its key id, the lower-case hex SHA-256 of
/// those 32 bytes.
struct TrustedKey: Codable, Equatable, Sendable {
  let keyID: String
  /// Standard base64 (RFC 4648 §4, with padding) of the raw 32-byte Ed25519 public key.
  let publicKey: String

  init(keyID: String, publicKey: String) {
    self.keyID = keyID
    self.publicKey = publicKey
  }

  /// The raw key, when it is 32 bytes whose SHA-256 is `keyID`; nil otherwise, and then the key
  /// trusts nothing.
  var rawKey: Data? {
    guard let raw = Data(base64Encoded: publicKey), raw.count == 32, SHA256Digest.hex(of: raw) == keyID else {
      return nil
    }
    return raw
  }
}

/// Ed25519 signature verification (RFC 8032): CryptoKit on Apple platforms, the system's
/// libcrypto on Linux.
enum Ed25519 {
  /// Whether `signature` (64 bytes) is `publicKey`'s (32 raw bytes) signature of `message`.
  static func isValidSignature(_ signature: Data, of message: Data, publicKey: Data) -> Bool {
    guard publicKey.count == 32, signature.count == 64 else { return false }
    #if canImport(CryptoKit)
      guard let key = try? Curve25519.Signing.PublicKey(rawRepresentation: publicKey) else { return false }
      return key.isValidSignature(signature, for: message)
    #else
      let key = publicKey.withUnsafeBytes { bytes in
        EVP_PKEY_new_raw_public_key(EVP_PKEY_ED25519, nil, bytes.bindMemory(to: UInt8.self).baseAddress, bytes.count)
      }
      guard let key else { return false }
      defer { EVP_PKEY_free(key) }
      guard let context = EVP_MD_CTX_new() else { return false }
      defer { EVP_MD_CTX_free(context) }
      // Ed25519 hashes the message itself: no digest is named.
      guard EVP_DigestVerifyInit(context, nil, nil, nil, key) == 1 else { return false }
      let status = signature.withUnsafeBytes { signatureBytes in
        message.withUnsafeBytes { messageBytes in
          EVP_DigestVerify(
            context, signatureBytes.bindMemory(to: UInt8.self).baseAddress, signatureBytes.count,
            messageBytes.bindMemory(to: UInt8.self).baseAddress, messageBytes.count)
        }
      }
      return status == 1
    #endif
  }
}

/// The signed over-the-air manifest, `ota/<channel>/manifest.json`: a DSSE envelope
/// (https://github.com/secure-systems-lab/dsse) whose payload is the manifest's JSON:
///
///     {"payloadType": "application/vnd.contextsdk.ota-manifest+json",
///      "payload": "<base64 of the manifest JSON bytes>",
///      "signatures": [{"keyid": "<hex key id>", "sig": "<base64 Ed25519 signature>"}]}
///
/// Each signature is Ed25519 over DSSE's pre-authentication encoding of the payload type and
/// the payload bytes. The device believes the payload only when a signature whose `keyid` is a
/// pinned key verifies; signatures by other keys are ignored.
enum SignedManifest {
  static let payloadType = "application/vnd.contextsdk.ota-manifest+json"

  /// DSSE's pre-authentication encoding, what is signed:
  /// `"DSSEv1" SP len(type) SP type SP len(payload) SP payload`, lengths as ASCII decimal byte
  /// counts.
  static func preAuthenticationEncoding(payloadType: String, payload: Data) -> Data {
    let type = Data(payloadType.utf8)
    var encoding = Data("DSSEv1 \(type.count) ".utf8)
    encoding.append(type)
    encoding.append(Data(" \(payload.count) ".utf8))
    encoding.append(payload)
    return encoding
  }

  /// The payload of `envelope`, once its type is the manifest's and a signature by one of
  /// `trustedKeys` verifies; nothing of the payload is read before.
  static func verifiedPayload(of envelope: Data, trustedKeys: [TrustedKey]) throws(ModelManifest.Problem) -> Data
  {
    guard let decoded = DSSEEnvelope(envelope) else { throw .notAnEnvelope }
    guard decoded.payloadType == payloadType else { throw .payloadType(decoded.payloadType) }
    guard let payload = decoded.payload else { throw .notAnEnvelope }
    guard !decoded.signatures.isEmpty else { throw .unsigned }
    var pinnedFound = false
    for signature in decoded.signatures {
      // Only pinned keys count; a signature by any other key is ignored.
      guard let key = trustedKeys.first(where: { $0.keyID == signature.keyID }), key.rawKey != nil else { continue }
      pinnedFound = true
      if decoded.isValid(signature.signature, by: key) { return payload }
    }
    throw pinnedFound ? .badSignature : .untrustedKeys
  }
}

/// A DSSE envelope as the device reads it, what manifests and root documents arrive in:
/// standard base64 with padding only, anything else is not base64.
struct DSSEEnvelope {
  private struct Wire: Decodable {
    struct Signature: Decodable {
      let keyid: String
      let sig: String
    }
    let payloadType: String
    let payload: String
    let signatures: [Signature]?
  }

  let payloadType: String
  /// Nil when the payload is not base64.
  let payload: Data?
  /// Each signature's key id and bytes (nil when not base64), as listed.
  let signatures: [(keyID: String, signature: Data?)]
  /// What is signed: the pre-authentication encoding of the type and payload.
  private let message: Data?

  /// Nil when `data` is not an envelope's JSON.
  init?(_ data: Data) {
    guard let wire = try? JSONDecoder().decode(Wire.self, from: data) else { return nil }
    payloadType = wire.payloadType
    payload = Data(base64Encoded: wire.payload)
    signatures = (wire.signatures ?? []).map { ($0.keyid, Data(base64Encoded: $0.sig)) }
    message = payload.map { SignedManifest.preAuthenticationEncoding(payloadType: wire.payloadType, payload: $0) }
  }

  /// Whether `signature` is `key`'s Ed25519 signature of this envelope.
  func isValid(_ signature: Data?, by key: TrustedKey) -> Bool {
    guard let signature, let message, let raw = key.rawKey else { return false }
    return Ed25519.isValidSignature(signature, of: message, publicKey: raw)
  }

  /// The ids of the distinct `keys` whose signature of this envelope verifies.
  func signers(among keys: [TrustedKey]) -> Set<String> {
    var signers: Set<String> = []
    for signature in signatures where !signers.contains(signature.keyID) {
      if let key = keys.first(where: { $0.keyID == signature.keyID }), isValid(signature.signature, by: key) {
        signers.insert(key.keyID)
      }
    }
    return signers
  }
}

/// Where the SDK fetches from: `https://` only, and `http://` only to this device itself
/// (127.0.0.0/8, ::1, localhost), for tests.
enum OTATransport {
  static func isAllowed(_ url: URL) -> Bool {
    switch url.scheme?.lowercased() {
    case "https": return url.host?.isEmpty == false
    case "http": return isLoopback(url.host)
    default: return false
    }
  }

  static func isLoopback(_ host: String?) -> Bool {
    guard var host = host?.lowercased() else { return false }
    if host.hasPrefix("[") && host.hasSuffix("]") { host = String(host.dropFirst().dropLast()) }
    if host == "localhost" || host == "::1" { return true }
    let octets = host.split(separator: ".", omittingEmptySubsequences: false)
    guard octets.count == 4, octets[0] == "127" else { return false }
    return octets.allSatisfy { octet in
      guard let value = Int(octet), String(value) == octet else { return false }
      return (0...255).contains(value)
    }
  }

  /// Whether a redirect from `original` to `target` may be followed: same scheme, host and port.
  static func isSameOrigin(_ original: URL, _ target: URL) -> Bool {
    original.scheme?.lowercased() == target.scheme?.lowercased()
      && original.host?.lowercased() == target.host?.lowercased() && effectivePort(original) == effectivePort(target)
  }

  private static func effectivePort(_ url: URL) -> Int? {
    url.port ?? (url.scheme?.lowercased() == "https" ? 443 : url.scheme?.lowercased() == "http" ? 80 : nil)
  }
}

/// A manifest's `expires`: `YYYY-MM-DDTHH:MM:SSZ`, UTC, no fractions, nothing else.
enum ManifestExpiry {
  static func date(_ text: String) -> Date? {
    let bytes = Array(text.utf8)
    guard bytes.count == 20 else { return nil }
    let separators: [Int: UInt8] = [4: 45, 7: 45, 10: 84, 13: 58, 16: 58, 19: 90]  // - - T : : Z
    for (index, byte) in bytes.enumerated() {
      if let separator = separators[index] {
        guard byte == separator else { return nil }
      } else {
        guard (48...57).contains(byte) else { return nil }
      }
    }
    func number(_ start: Int, _ length: Int) -> Int {
      bytes[start..<start + length].reduce(0) { $0 * 10 + Int($1 - 48) }
    }
    var calendar = Calendar(identifier: .gregorian)
    guard let utc = TimeZone(identifier: "UTC") else { return nil }
    calendar.timeZone = utc
    let components = DateComponents(
      calendar: calendar, timeZone: utc, year: number(0, 4), month: number(5, 2), day: number(8, 2),
      hour: number(11, 2), minute: number(14, 2), second: number(17, 2))
    guard components.isValidDate(in: calendar) else { return nil }
    return calendar.date(from: components)
  }
}
