import Foundation
import ReleaseCore
import ReleaseSigning

/// The key files `release ota root init` and `rotate` are given: the public keys of the
/// root's two roles (`--root-key`, `--manifest-key`) and the root private keys that sign the
/// new root (`--signing-key`). Read here, with the other settings' key files, so no command
/// reads a key file itself. A message names the option and the file, never a byte of a key.
package enum RootKeyFiles {
  /// The public keys of `files`, each once, in the order given; nil when none is given (the
  /// role keeps its keys). `option` names them in messages.
  package static func publicKeys(_ files: [String], option: String, _ services: Services) throws
    -> [PublicKey]?
  {
    guard !files.isEmpty else { return nil }
    var keys: [PublicKey] = []
    for file in files {
      let data = try read(file, option: option, services)
      do {
        let key = try PublicKey(pem: String(decoding: data, as: UTF8.self))
        if !keys.contains(key) { keys.append(key) }
      } catch {
        throw ReleaseError.invalidInput("\(option) \(file): not an Ed25519 public key (\(error))")
      }
    }
    return keys
  }

  /// Every private key of `files` (`--signing-key`, at least one).
  package static func signingKeys(_ files: [String], _ services: Services) throws -> [SigningKey] {
    guard !files.isEmpty else {
      throw ReleaseError.usage("--signing-key: expected the root private keys that sign the new root")
    }
    var keys: [SigningKey] = []
    for file in files {
      let data = try read(file, option: "--signing-key", services)
      do { keys += try SigningKey.keys(pem: String(decoding: data, as: UTF8.self)) } catch {
        throw ReleaseError.invalidInput("--signing-key \(file): not an Ed25519 private key (\(error))")
      }
    }
    return keys
  }

  /// A key file's bytes: a PEM key is a few hundred bytes, so anything over 64 KiB is no key.
  private static func read(_ file: String, option: String, _ services: Services) throws -> Data {
    guard let data = try? Data(contentsOf: services.resolve(file)), data.count <= 64 * 1024 else {
      throw ReleaseError.invalidInput("\(option) \(file): no such file or cannot be read")
    }
    return data
  }
}
