import Foundation
import ReleaseCore
import ReleaseOTA
import ReleasePublishing
import ReleaseSigning

/// `release verify`'s settings: what `release all` puts into every package from the settings,
/// so that verify regenerates a package as the run made it, and the keys a zip's signature is
/// checked against.
package struct VerifySettings: Sendable {
  /// What packages take from the settings, as `release all` takes it; the releases repository
  /// is release.config.json's `publish.packageURL`, else its first `git:` destination.
  package var packages: PackageSettings
  /// release.config.json as messages name it.
  package var configurationPath: String

  package init(packages: PackageSettings, configurationPath: String) {
    self.packages = packages
    self.configurationPath = configurationPath
  }

  /// The keys a zip's signature (`<zip>.sig` beside it) is checked against: the ones packages
  /// pin (`signing.trustedKeys`); none: a signature is reported, not checked.
  package var trustedKeys: [PublicKey] { packages.trustedKeys }
}

/// `release ota evaluate`'s settings.
package struct EvaluateSettings {
  package var inputs: InputSettings
  /// How challengers are judged and promoted (`rollouts` of release.config.json).
  package var policies: RolloutPolicyConfiguration
  /// release.config.json as messages name it.
  package var configurationPath: String
  /// With `--publish`: what `ota publish` would take (its destinations); nil without.
  package var publish: RunSettings?
}

/// The channel's root documents (`signing.root`, else `ota-root` beside release.config.json).
package struct RootSettings: Sendable {
  package var directory: URL
  /// As messages name it: `ota-root`.
  package var display: String
  /// The committed chain; nil when the directory holds no `1.json`.
  package var chain: RootChain?
}

extension SettingsResolution {
  /// `release verify`'s: the public URL and keys as `release all` takes them.
  package func verify() throws -> VerifySettings {
    var packages = PackageSettings()
    packages.publicURL = try checkedPublicURL().value
    let trusted = try trustedKeys()
    // The keys packages pin and whether they keep the legacy manifest: both in every package.
    packages.trustedKeys = trusted.keys
    packages.legacyManifests = configuration.legacyManifests ?? true
    // With trusted keys, the README says how to check the zip's signature.
    packages.allowedSignersURL = configuration.allowedSignersURL
    // As a release run names it: a configured destination it would refuse names none.
    let parse = destinationParser(InputSettings(), publicURL: packages.publicURL)
    packages.releasesRepository = releasesRepository(
      among: (configuration.destinations ?? []).compactMap { try? parse($0) })
    return VerifySettings(packages: packages, configurationPath: configuration.path)
  }

  /// `release ota evaluate`'s: the inputs, the rollout policies and, with `publishing`,
  /// `ota publish`'s settings.
  package func evaluate(publishing: Bool) throws -> EvaluateSettings {
    EvaluateSettings(
      inputs: try inputs(), policies: configuration.rollouts ?? RolloutPolicyConfiguration(),
      configurationPath: configuration.path, publish: publishing ? try overTheAir() : nil)
  }

  /// The S3 endpoint and region (each flag, else its release.config.json key) and how
  /// messages name them.
  package func s3() -> (endpoint: String?, region: String?, origins: SettingOrigins) {
    var origins = SettingOrigins()
    let endpoint: String?
    let region: String?
    (endpoint, origins.s3Endpoint) = setting(given.s3Endpoint, .s3Endpoint, key: .s3Endpoint)
    (region, origins.s3Region) = setting(given.s3Region, .s3Region, key: .s3Region)
    return (endpoint, region, origins)
  }

  /// `release share`'s destination: `destination` (`--destination`), else the first s3://
  /// destination of release.config.json, else its first git: one.
  package func shareDestination(_ destination: String?) throws -> PublishDestination {
    let (endpoint, region, origins) = s3()
    func parse(_ text: String, origin: String) throws -> PublishDestination {
      do {
        return try PublishDestination.parse(
          text, s3Endpoint: endpoint, region: region, baseURL: nil, origins: origins)
      } catch ReleaseError.usage(let message) where message.hasPrefix("--publish ") {
        throw ReleaseError.usage(origin + message.dropFirst("--publish".count))
      }
    }
    if let destination { return try parse(destination, origin: "--destination") }
    let configured = try (configuration.destinations ?? []).enumerated().map { index, text in
      try parse(text, origin: "\(configuration.path): \(ConfigurationKey.destinations.rawValue)[\(index)]:")
    }
    let s3 = configured.first { if case .s3 = $0 { return true } else { return false } }
    let git = configured.first { if case .releasesRepositories = $0 { return true } else { return false } }
    guard let found = s3 ?? git ?? configured.first else {
      throw ReleaseError.usage(
        "share: no destination; give --destination s3://<bucket>[/<prefix>], or publish.destinations in \(configuration.path)"
      )
    }
    return found
  }

  /// The trusted keys of a command that has nothing to do without them (`command` names it in
  /// the refusal, which says what was `expected`).
  package func requiredTrustedKeys(command: String, expected: String) throws -> TrustedKeys {
    let trusted = try trustedKeys()
    guard !trusted.entries.isEmpty else {
      throw ReleaseError.invalidInput("\(command): \(configuration.path) trusts no key \(expected)")
    }
    return trusted
  }

  /// `release ota root`'s: the directory of the root documents and the chain committed there.
  package func root() throws -> RootSettings {
    let (url, display) = RootDirectory.location(configuration, services: services)
    do {
      return RootSettings(
        directory: url, display: display, chain: try RootDirectory.load(url, display: display))
    } catch {
      throw ReleaseError.invalidInput(error.description)
    }
  }
}
