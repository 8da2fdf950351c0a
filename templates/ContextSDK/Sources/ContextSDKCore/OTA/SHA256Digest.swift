import Foundation

#if canImport(CryptoKit)
  import CryptoKit
#elseif canImport(CContextSDKCrypto)
  import CContextSDKCrypto
#endif

/// SHA-256 of a downloaded model, to accept exactly the published bytes. CryptoKit on Apple
/// platforms; elsewhere (Linux) the system's libcrypto, so the SDK needs no package dependency.
/// Both stream the file in blocks: models can be large.
struct SHA256Digest: Sendable {
  /// Lower-case hex digest of the file's bytes, read `readSize` bytes at a time.
  static func hex(ofFileAt url: URL, readSize: Int = 64 * 1024) throws -> String {
    let handle = try FileHandle(forReadingFrom: url)
    defer { try? handle.close() }
    var hasher = Hasher()
    while let block = try handle.read(upToCount: readSize), !block.isEmpty { hasher.update(block) }
    return hasher.finalizeHex()
  }

  static func hex(of data: Data) -> String {
    var hasher = Hasher()
    hasher.update(data)
    return hasher.finalizeHex()
  }

  #if canImport(CryptoKit)
    struct Hasher {
      private var hasher = CryptoKit.SHA256()
      mutating func update(_ data: Data) { hasher.update(data: data) }
      mutating func finalizeHex() -> String { hasher.finalize().map { String(format: "%02x", $0) }.joined() }
    }
  #else
    /// libcrypto's SHA-256 (EVP), the system library every Linux distribution ships.
    struct Hasher {
      private final class Context {
        let pointer: OpaquePointer?
        init() {
          pointer = EVP_MD_CTX_new()
          if let pointer { EVP_DigestInit_ex(pointer, EVP_sha256(), nil) }
        }
        deinit { EVP_MD_CTX_free(pointer) }
      }
      private let context = Context()

      mutating func update(_ data: Data) {
        data.withUnsafeBytes { bytes in _ = EVP_DigestUpdate(context.pointer, bytes.baseAddress, bytes.count) }
      }

      mutating func finalizeHex() -> String {
        var digest = [UInt8](repeating: 0, count: Int(EVP_MAX_MD_SIZE))
        var length: UInt32 = 0
        guard context.pointer != nil, EVP_DigestFinal_ex(context.pointer, &digest, &length) == 1 else { return "" }
        return digest.prefix(Int(length)).map { String(format: "%02x", $0) }.joined()
      }
    }
  #endif
}
