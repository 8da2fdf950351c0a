import Foundation

#if canImport(CryptoKit)
  import CryptoKit
#else
  import CCrypto
#endif

/// HMAC-SHA256 (RFC 2104) from the platform's crypto library (CryptoKit on Apple, OpenSSL's
/// libcrypto elsewhere). Never hand-written: it signs the share links given to customers.
public enum HMACSHA256 {
  /// The 32-byte authentication code of `message` under `key`.
  public static func code(for message: Data, key: Data) -> Data {
    #if canImport(CryptoKit)
      let code = HMAC<CryptoKit.SHA256>.authenticationCode(for: message, using: SymmetricKey(data: key))
      return Data(code)
    #else
      var output = [UInt8](repeating: 0, count: 32)
      var length: UInt32 = 0
      // A zero-length key still needs a non-null pointer: libcrypto reads a null key as
      // "keep the previous one".
      let keyBytes = key.isEmpty ? Data([0]) : key
      let result = keyBytes.withUnsafeBytes { keyBuffer in
        message.withUnsafeBytes { messageBuffer in
          HMAC(
            EVP_sha256(), keyBuffer.baseAddress, Int32(key.count),
            messageBuffer.baseAddress?.assumingMemoryBound(to: UInt8.self), messageBuffer.count, &output,
            &length)
        }
      }
      // HMAC() fails only when libcrypto cannot allocate its context.
      guard result != nil, length == 32 else { preconditionFailure("libcrypto HMAC-SHA256 failed") }
      return Data(output)
    #endif
  }

  public static func code(for message: String, key: Data) -> Data { code(for: Data(message.utf8), key: key) }

  /// Lower-case hex of the authentication code.
  public static func hex(of message: Data, key: Data) -> String {
    SHA256Hasher.lowercaseHex(code(for: message, key: key))
  }

  public static func hex(of message: String, key: Data) -> String { hex(of: Data(message.utf8), key: key) }
}
