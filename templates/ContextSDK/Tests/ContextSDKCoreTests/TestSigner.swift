@testable import ContextSDKCore
import Foundation

#if canImport(CryptoKit)
  import CryptoKit
#elseif canImport(CContextSDKCrypto)
  import CContextSDKCrypto
#endif

/// Ed25519 signing for the tests, which publish signed manifests as the release tool does: the
/// SDK only verifies. CryptoKit on Apple platforms, libcrypto (EVP) on Linux.
struct TestSigner {
  let seed: Data

  /// RFC 8032's first test key.
  static let rfc8032 = TestSigner(hex: "9d61b19deffd5a60ba844af492ec2cc44449c5697b326919703bac031cae7f60")
  /// A key no build pins.
  static let stranger = TestSigner(hex: String(repeating: "42", count: 32))

  init(hex: String) { seed = Data(hexString: hex) }

  var publicKey: Data {
    #if canImport(CryptoKit)
      return (try? Curve25519.Signing.PrivateKey(rawRepresentation: seed))?.publicKey.rawRepresentation ?? Data()
    #else
      guard let key = privateKey() else { return Data() }
      defer { EVP_PKEY_free(key) }
      var raw = [UInt8](repeating: 0, count: 32)
      var length = 32
      guard EVP_PKEY_get_raw_public_key(key, &raw, &length) == 1 else { return Data() }
      return Data(raw.prefix(length))
    #endif
  }

  var keyID: String { SHA256Digest.hex(of: publicKey) }

  var trustedKey: TrustedKey { TrustedKey(keyID: keyID, publicKey: publicKey.base64EncodedString()) }

  func sign(_ message: Data) -> Data {
    #if canImport(CryptoKit)
      return (try? Curve25519.Signing.PrivateKey(rawRepresentation: seed).signature(for: message)) ?? Data()
    #else
      guard let key = privateKey(), let context = EVP_MD_CTX_new() else { return Data() }
      defer {
        EVP_PKEY_free(key)
        EVP_MD_CTX_free(context)
      }
      guard EVP_DigestSignInit(context, nil, nil, nil, key) == 1 else { return Data() }
      var signature = [UInt8](repeating: 0, count: 64)
      var length = 64
      let status = message.withUnsafeBytes { bytes in
        EVP_DigestSign(context, &signature, &length, bytes.bindMemory(to: UInt8.self).baseAddress, bytes.count)
      }
      return status == 1 ? Data(signature.prefix(length)) : Data()
    #endif
  }

  #if !canImport(CryptoKit)
    private func privateKey() -> OpaquePointer? {
      seed.withUnsafeBytes { bytes in
        EVP_PKEY_new_raw_private_key(EVP_PKEY_ED25519, nil, bytes.bindMemory(to: UInt8.self).baseAddress, bytes.count)
      }
    }
  #endif

  /// A DSSE envelope of `payload` signed by `signers` (none: unsigned), as JSON.
  static func envelope(
    _ payload: Data, signedBy signers: [TestSigner], payloadType: String = SignedManifest.payloadType
  ) -> Data {
    let message = SignedManifest.preAuthenticationEncoding(payloadType: payloadType, payload: payload)
    let signatures = signers.map { ["keyid": $0.keyID, "sig": $0.sign(message).base64EncodedString()] }
    let object: [String: Any] = [
      "payloadType": payloadType, "payload": payload.base64EncodedString(), "signatures": signatures,
    ]
    return (try? JSONSerialization.data(withJSONObject: object, options: [.sortedKeys])) ?? Data()
  }
}

extension Data {
  init(hexString: String) {
    var bytes: [UInt8] = []
    var index = hexString.startIndex
    while index < hexString.endIndex, let next = hexString.index(index, offsetBy: 2, limitedBy: hexString.endIndex) {
      bytes.append(UInt8(hexString[index..<next], radix: 16) ?? 0)
      index = next
    }
    self.init(bytes)
  }

  var hexString: String { map { String(format: "%02x", $0) }.joined() }
}
