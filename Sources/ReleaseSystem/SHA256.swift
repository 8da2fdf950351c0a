import Foundation

#if canImport(CryptoKit)
  import CryptoKit
#else
  import CCrypto
#endif

/// Streaming SHA-256 from the platform's crypto library (CryptoKit on Apple, OpenSSL's
/// libcrypto elsewhere). Never hand-written: the digests identify customers' models.
public struct SHA256Hasher {
  #if canImport(CryptoKit)
    private var hasher = CryptoKit.SHA256()
  #else
    private final class Context {
      let pointer: OpaquePointer
      init() {
        pointer = EVP_MD_CTX_new()!
        EVP_DigestInit_ex(pointer, EVP_sha256(), nil)
      }
      deinit { EVP_MD_CTX_free(pointer) }
    }
    private let context = Context()
  #endif

  public init() {}

  public mutating func update(_ buffer: UnsafeRawBufferPointer) {
    #if canImport(CryptoKit)
      hasher.update(bufferPointer: buffer)
    #else
      if let base = buffer.baseAddress, buffer.count > 0 {
        EVP_DigestUpdate(context.pointer, base, buffer.count)
      }
    #endif
  }

  public mutating func update(_ data: Data) {
    data.withUnsafeBytes { update($0) }
  }

  /// Lower-case hex digest. The hasher must not be used afterwards.
  public mutating func finalizeHex() -> String {
    #if canImport(CryptoKit)
      return Self.lowercaseHex(hasher.finalize())
    #else
      var digest = [UInt8](repeating: 0, count: 32)
      var length: UInt32 = 0
      EVP_DigestFinal_ex(context.pointer, &digest, &length)
      return Self.lowercaseHex(digest.prefix(Int(length)))
    #endif
  }

  /// Two lower-case hex digits per byte. Not `String(format:)`, which goes through Foundation's
  /// formatter for every byte: it was a quarter of `release merge`'s time.
  static func lowercaseHex<Bytes: Sequence>(_ bytes: Bytes) -> String where Bytes.Element == UInt8 {
    let digits = Array("0123456789abcdef".utf8)
    var text: [UInt8] = []
    text.reserveCapacity(64)
    for byte in bytes {
      text.append(digits[Int(byte >> 4)])
      text.append(digits[Int(byte & 0x0F)])
    }
    return String(decoding: text, as: UTF8.self)
  }
}

public enum SHA256Digest {
  /// Hex SHA-256 of bytes in memory.
  public static func hex(of data: Data) -> String {
    var hasher = SHA256Hasher()
    hasher.update(data)
    return hasher.finalizeHex()
  }

  public static func hex(of string: String) -> String { hex(of: Data(string.utf8)) }

  /// Hex SHA-256 and size of a file, read in fixed 64 KiB blocks so memory stays flat
  /// whatever the file's size.
  public static func hexAndSize(ofFileAt url: URL) throws -> (sha256: String, size: Int64) {
    // Never blocks, and refuses a FIFO or device swapped in since the file was checked.
    let handle = try RegularFile.handle(url)
    defer { try? handle.close() }
    return try hexAndSize(of: handle)
  }

  /// Hex SHA-256 and size of what `handle` reads from where it stands to its end, in fixed
  /// 64 KiB blocks.
  public static func hexAndSize(of handle: FileHandle) throws -> (sha256: String, size: Int64) {
    var hasher = SHA256Hasher()
    var size: Int64 = 0
    while true {
      let block = try handle.read(upToCount: 64 * 1024) ?? Data()
      if block.isEmpty { break }
      size += Int64(block.count)
      hasher.update(block)
    }
    return (hasher.finalizeHex(), size)
  }

  public static func hex(ofFileAt url: URL) throws -> String { try hexAndSize(ofFileAt: url).sha256 }
}
