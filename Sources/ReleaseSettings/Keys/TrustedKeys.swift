import Foundation
import ReleaseCore
import ReleaseOTA
import ReleaseSigning

/// The public keys releases and over-the-air manifests are signed for:
/// `release.config.json`'s `signing.trustedKeys`, each a SubjectPublicKeyInfo PEM file (as
/// `openssl pkey -pubout` and `release keys generate` write it), its path relative to the
/// configuration file; or, with `signing.root`, the manifest keys of the channel's newest root
/// document.
package struct TrustedKeys: Equatable {
  /// One trusted key and the file it came from (as the configuration names it).
  package struct Entry: Equatable {
    package let key: PublicKey
    package let file: String
  }

  /// In the configuration's order; a key listed twice counts once.
  package let entries: [Entry]
  /// The root documents the keys come from (`signing.root`); nil with `signing.trustedKeys`.
  package var chain: RootChain? = nil

  package var keys: [PublicKey] { entries.map(\.key) }

  /// The entry of `key`, nil when it is not trusted.
  package func entry(for key: PublicKey) -> Entry? { entries.first { $0.key == key } }

  /// Why a trusted key could not be read: each names the configuration file, the key's place
  /// in `signing.trustedKeys` and the key file. Public keys only: nothing secret to leak.
  package enum LoadError: Error, Equatable, CustomStringConvertible {
    case missingFile(configuration: String, index: Int, file: String)
    case unreadable(configuration: String, index: Int, file: String)
    case notPublicKey(configuration: String, index: Int, file: String, reason: KeyError)
    /// `signing.root` names a directory whose root documents do not form a chain.
    case root(configuration: String, reason: String)

    package var description: String {
      switch self {
      case .missingFile(let configuration, let index, let file):
        return
          "\(Self.key(configuration, index)) \(file): no such file; make a key pair with 'release keys generate keys'"
      case .unreadable(let configuration, let index, let file):
        return "\(Self.key(configuration, index)) \(file): cannot be read"
      case .root(let configuration, let reason):
        return "\(configuration): signing.root: \(reason)"
      case .notPublicKey(let configuration, let index, let file, let reason):
        return
          "\(Self.key(configuration, index)) \(file): not an Ed25519 public key (\(reason)); expected a PEM file as 'openssl pkey -pubout' or 'release keys generate' writes it"
      }
    }

    private static func key(_ configuration: String, _ index: Int) -> String {
      "\(configuration): signing.trustedKeys[\(index)]:"
    }
  }

  /// Reads every file `configuration` lists (none: no keys, not an error here; a command that
  /// needs keys says so). Stops at the first file that cannot be used.
  package static func load(_ configuration: ReleaseConfiguration, services: Services) throws(LoadError)
    -> TrustedKeys
  {
    if configuration.root != nil { return try loadRoot(configuration, services: services) }
    let base = services.resolve(configuration.path).deletingLastPathComponent()
    var entries: [Entry] = []
    for (index, file) in (configuration.trustedKeys ?? []).enumerated() {
      let url =
        file.hasPrefix("/")
        ? URL(fileURLWithPath: file) : base.appendingPathComponent(file).standardizedFileURL
      var isDirectory: ObjCBool = false
      guard FileManager.default.fileExists(atPath: url.path, isDirectory: &isDirectory),
        !isDirectory.boolValue
      else { throw .missingFile(configuration: configuration.path, index: index, file: file) }
      // A public key file is a few hundred bytes; anything much larger is not one.
      guard let data = try? Data(contentsOf: url), data.count <= 64 * 1024,
        let text = String(data: data, encoding: .utf8)
      else { throw .unreadable(configuration: configuration.path, index: index, file: file) }
      let key: PublicKey
      do { key = try PublicKey(pem: text) } catch {
        throw .notPublicKey(configuration: configuration.path, index: index, file: file, reason: error)
      }
      if !entries.contains(where: { $0.key == key }) { entries.append(Entry(key: key, file: file)) }
    }
    return TrustedKeys(entries: entries)
  }

  /// The newest root's manifest keys, each named by the root document that lists it.
  private static func loadRoot(_ configuration: ReleaseConfiguration, services: Services) throws(LoadError)
    -> TrustedKeys
  {
    let path = configuration.path
    guard configuration.trustedKeys == nil else {
      throw .root(
        configuration: path,
        reason:
          "set with signing.trustedKeys; expected one of them: the root's manifest keys are the trusted keys, so remove signing.trustedKeys"
      )
    }
    let (url, display) = RootDirectory.location(configuration, services: services)
    let chain: RootChain?
    do { chain = try RootDirectory.load(url, display: display) } catch {
      throw .root(configuration: path, reason: error.description)
    }
    guard let chain else {
      throw .root(
        configuration: path,
        reason: "\(display)/1.json: no such file; make the first root with 'release ota root init'")
    }
    let file = RootDirectory.file(display, version: chain.current.version)
    return TrustedKeys(entries: chain.current.manifest.keys.map { Entry(key: $0, file: file) }, chain: chain)
  }

  /// `load`, its errors as bad input (exit 2, one line).
  package static func loadForCommand(_ configuration: ReleaseConfiguration, services: Services) throws
    -> TrustedKeys
  {
    do { return try load(configuration, services: services) } catch {
      throw ReleaseError.invalidInput(error.description)
    }
  }
}
