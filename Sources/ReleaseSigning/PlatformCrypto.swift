import Foundation
import ReleaseSystem

#if canImport(CryptoKit)
  import CryptoKit
#else
  import CCrypto
#endif

/// The only place this module touches cryptography: Ed25519 and the hashes come from the
/// platform's library (CryptoKit on Apple platforms, OpenSSL 3's libcrypto elsewhere), never
/// from code written here. Keys travel as raw bytes: a 32-byte seed (RFC 8032's secret key) and
/// a 32-byte public key.
enum PlatformCrypto {
  static let keyLength = 32
  static let signatureLength = 64

  /// A new random seed.
  static func generateSeed() throws(KeyError) -> [UInt8] {
    #if canImport(CryptoKit)
      return Array(Curve25519.Signing.PrivateKey().rawRepresentation)
    #else
      guard let context = EVP_PKEY_CTX_new_id(EVP_PKEY_ED25519, nil) else {
        throw .cryptoFailure("EVP_PKEY_CTX_new_id")
      }
      defer { EVP_PKEY_CTX_free(context) }
      var key: OpaquePointer?
      guard EVP_PKEY_keygen_init(context) == 1, EVP_PKEY_keygen(context, &key) == 1, let key else {
        throw .cryptoFailure("EVP_PKEY_keygen")
      }
      defer { EVP_PKEY_free(key) }
      var seed = [UInt8](repeating: 0, count: keyLength)
      var length = keyLength
      guard EVP_PKEY_get_raw_private_key(key, &seed, &length) == 1, length == keyLength else {
        throw .cryptoFailure("EVP_PKEY_get_raw_private_key")
      }
      return seed
    #endif
  }

  /// The public key of a seed.
  static func publicKey(seed: UnsafeRawBufferPointer) throws(KeyError) -> Data {
    #if canImport(CryptoKit)
      do {
        return try Curve25519.Signing.PrivateKey(rawRepresentation: seed).publicKey.rawRepresentation
      } catch { throw .cryptoFailure("Curve25519.Signing.PrivateKey") }
    #else
      let key = try privateKey(seed: seed)
      defer { EVP_PKEY_free(key) }
      var raw = [UInt8](repeating: 0, count: keyLength)
      var length = keyLength
      guard EVP_PKEY_get_raw_public_key(key, &raw, &length) == 1, length == keyLength else {
        throw .cryptoFailure("EVP_PKEY_get_raw_public_key")
      }
      return Data(raw)
    #endif
  }

  /// The Ed25519 signature (64 bytes) of `message`. OpenSSL's is RFC 8032's deterministic one;
  /// CryptoKit's is randomized, and verifies the same way.
  static func sign(seed: UnsafeRawBufferPointer, message: Data) throws(KeyError) -> Data {
    #if canImport(CryptoKit)
      do {
        return try Curve25519.Signing.PrivateKey(rawRepresentation: seed).signature(for: message)
      } catch { throw .cryptoFailure("Curve25519.Signing.PrivateKey.signature") }
    #else
      let key = try privateKey(seed: seed)
      defer { EVP_PKEY_free(key) }
      guard let context = EVP_MD_CTX_new() else { throw .cryptoFailure("EVP_MD_CTX_new") }
      defer { EVP_MD_CTX_free(context) }
      // Ed25519 hashes internally: no digest is named.
      guard EVP_DigestSignInit(context, nil, nil, nil, key) == 1 else {
        throw .cryptoFailure("EVP_DigestSignInit")
      }
      var signature = [UInt8](repeating: 0, count: signatureLength)
      var length = signatureLength
      let status = message.withUnsafeBytes { bytes in
        EVP_DigestSign(
          context, &signature, &length, bytes.bindMemory(to: UInt8.self).baseAddress, bytes.count)
      }
      guard status == 1, length == signatureLength else { throw .cryptoFailure("EVP_DigestSign") }
      return Data(signature)
    #endif
  }

  /// Whether `signature` is `publicKey`'s Ed25519 signature of `message`.
  static func verify(publicKey: Data, signature: Data, message: Data) -> Bool {
    guard publicKey.count == keyLength, signature.count == signatureLength else { return false }
    #if canImport(CryptoKit)
      guard let key = try? Curve25519.Signing.PublicKey(rawRepresentation: publicKey) else { return false }
      return key.isValidSignature(signature, for: message)
    #else
      let key = publicKey.withUnsafeBytes { bytes in
        EVP_PKEY_new_raw_public_key(
          EVP_PKEY_ED25519, nil, bytes.bindMemory(to: UInt8.self).baseAddress, bytes.count)
      }
      guard let key else { return false }
      defer { EVP_PKEY_free(key) }
      guard let context = EVP_MD_CTX_new() else { return false }
      defer { EVP_MD_CTX_free(context) }
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

  #if !canImport(CryptoKit)
    private static func privateKey(seed: UnsafeRawBufferPointer) throws(KeyError) -> OpaquePointer {
      guard seed.count == keyLength,
        let key = EVP_PKEY_new_raw_private_key(
          EVP_PKEY_ED25519, nil, seed.bindMemory(to: UInt8.self).baseAddress, seed.count)
      else { throw .cryptoFailure("EVP_PKEY_new_raw_private_key") }
      return key
    }
  #endif
}

/// Raw digests (not hex): SHA-512 for OpenSSH signatures, SHA-256 for OpenSSH fingerprints.
enum Digest {
  enum Algorithm {
    case sha256, sha512
  }

  static func hash(_ data: Data, _ algorithm: Algorithm) -> Data {
    var hasher = Hasher(algorithm)
    hasher.update(data)
    return hasher.finalize()
  }

  /// Streaming, so a file of any size is hashed in fixed blocks.
  static func hash(fileAt url: URL, _ algorithm: Algorithm) throws -> Data {
    let handle = try RegularFile.handle(url)
    defer { try? handle.close() }
    var hasher = Hasher(algorithm)
    while true {
      let block = try handle.read(upToCount: 64 * 1024) ?? Data()
      if block.isEmpty { break }
      hasher.update(block)
    }
    return hasher.finalize()
  }

  struct Hasher {
    #if canImport(CryptoKit)
      private enum State {
        case sha256(CryptoKit.SHA256)
        case sha512(CryptoKit.SHA512)
      }
      private var state: State

      init(_ algorithm: Algorithm) {
        switch algorithm {
        case .sha256: state = .sha256(CryptoKit.SHA256())
        case .sha512: state = .sha512(CryptoKit.SHA512())
        }
      }

      mutating func update(_ data: Data) {
        switch state {
        case .sha256(var hasher):
          hasher.update(data: data)
          state = .sha256(hasher)
        case .sha512(var hasher):
          hasher.update(data: data)
          state = .sha512(hasher)
        }
      }

      func finalize() -> Data {
        switch state {
        case .sha256(let hasher): return Data(hasher.finalize())
        case .sha512(let hasher): return Data(hasher.finalize())
        }
      }
    #else
      private final class Context {
        let pointer: OpaquePointer
        init(_ algorithm: Algorithm) {
          pointer = EVP_MD_CTX_new()!
          EVP_DigestInit_ex(pointer, algorithm == .sha256 ? EVP_sha256() : EVP_sha512(), nil)
        }
        deinit { EVP_MD_CTX_free(pointer) }
      }
      private let context: Context

      init(_ algorithm: Algorithm) { context = Context(algorithm) }

      mutating func update(_ data: Data) {
        data.withUnsafeBytes { buffer in
          if let base = buffer.baseAddress, buffer.count > 0 {
            EVP_DigestUpdate(context.pointer, base, buffer.count)
          }
        }
      }

      /// The hasher must not be used afterwards.
      func finalize() -> Data {
        var digest = [UInt8](repeating: 0, count: 64)
        var length: UInt32 = 0
        EVP_DigestFinal_ex(context.pointer, &digest, &length)
        return Data(digest.prefix(Int(length)))
      }
    #endif
  }
}
