import Foundation
import ReleaseCore
import ReleaseSigning

/// The private keys a run signs with: the files of `--signing-key` (repeatable), else the PEM
/// text of `RELEASE_SIGNING_KEY` (one or more keys, as a CI secret holds them). Each must be
/// the private half of a trusted key (`signing.trustedKeys`).
///
/// The key material is never written anywhere, logged or put in a message: errors name where
/// a key came from (the file, the variable and the key's place in it) and at most its key id,
/// which is public. Child processes never see the variable (`ChildEnvironment` drops every
/// name ending in `_SIGNING_KEY`).
package struct SigningKeys {
  package static let environmentVariable = "RELEASE_SIGNING_KEY"
  package static let makeKeyHint = "make a key with 'release keys generate keys'"

  /// One private key and where it came from, for messages.
  package struct Entry {
    package let key: SigningKey
    package let source: String
  }

  /// In the order given; none when signing is optional and no key was given.
  package let entries: [Entry]

  package var keys: [SigningKey] { entries.map(\.key) }

  /// Why the private keys cannot be used. No case holds, and no description shows, a byte of
  /// the key text.
  package enum ResolveError: Error, Equatable, CustomStringConvertible {
    /// Signing is required and no key was given.
    case noKey
    /// A private key was given, but the configuration trusts no key.
    case noTrustedKeys(source: String, configuration: String)
    case missingFile(String)
    case unreadableFile(String)
    /// `source` holds no usable Ed25519 private key.
    case invalidKey(source: String, reason: KeyError)
    /// The key's public half is not among the trusted keys.
    case untrusted(source: String, keyID: String, configuration: String)

    package var description: String {
      switch self {
      case .noKey:
        return
          "no signing key: set \(SigningKeys.environmentVariable) or pass --signing-key; \(SigningKeys.makeKeyHint)"
      case .noTrustedKeys(let source, let configuration):
        return
          "\(source): \(configuration) trusts no key (signing.trustedKeys is empty or absent); add the key's .pub file there"
      case .missingFile(let file): return "--signing-key \(file): no such file"
      case .unreadableFile(let file): return "--signing-key \(file): cannot be read"
      case .invalidKey(let source, let reason):
        return "\(source): not an Ed25519 private key (\(reason)); \(SigningKeys.makeKeyHint)"
      case .untrusted(let source, let keyID, let configuration):
        return
          "\(source): key \(keyID) is not among \(configuration)'s signing.trustedKeys; add its .pub file there (and release it to devices first) or sign with a trusted key"
      }
    }
  }

  /// Reads the keys from `files` (resolved against `services.root`) when any are given, else
  /// from `RELEASE_SIGNING_KEY` in `services.environment`, and checks each against `trusted`.
  /// With `required`, no key at all is an error; without, it is an empty set.
  package static func resolve(
    files: [String], trusted: TrustedKeys, configuration: String, required: Bool, services: Services
  ) throws(ResolveError) -> SigningKeys {
    var entries: [Entry] = []
    if !files.isEmpty {
      for file in files {
        let url = services.resolve(file)
        guard FileManager.default.fileExists(atPath: url.path) else { throw .missingFile(file) }
        guard let data = try? Data(contentsOf: url), data.count <= 64 * 1024 else {
          throw .unreadableFile(file)
        }
        let source = "--signing-key \(file)"
        entries += try read(String(decoding: data, as: UTF8.self), source: source)
      }
    } else if let text = services.environment[environmentVariable], !text.isEmpty {
      entries = try read(text, source: environmentVariable)
    }
    if entries.isEmpty {
      if required { throw .noKey }
      return SigningKeys(entries: [])
    }
    guard !trusted.entries.isEmpty else {
      throw .noTrustedKeys(source: entries[0].source, configuration: configuration)
    }
    for entry in entries where trusted.entry(for: entry.key.publicKey) == nil {
      throw .untrusted(source: entry.source, keyID: entry.key.keyID, configuration: configuration)
    }
    return SigningKeys(entries: entries)
  }

  /// Every key of `text`, each named by `source` and, when there are several, its place.
  private static func read(_ text: String, source: String) throws(ResolveError) -> [Entry] {
    let keys: [SigningKey]
    do { keys = try SigningKey.keys(pem: text) } catch { throw .invalidKey(source: source, reason: error) }
    return keys.enumerated().map { index, key in
      Entry(key: key, source: keys.count == 1 ? source : "\(source) (key \(index + 1) of \(keys.count))")
    }
  }

  /// `resolve`, its errors as bad input (exit 2, one line).
  package static func resolveForCommand(
    files: [String], trusted: TrustedKeys, configuration: String, required: Bool, services: Services
  ) throws -> SigningKeys {
    do {
      return try resolve(
        files: files, trusted: trusted, configuration: configuration, required: required, services: services)
    } catch { throw ReleaseError.invalidInput(error.description) }
  }
}
