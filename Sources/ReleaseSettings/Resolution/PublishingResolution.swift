import Foundation
import ReleaseCore
import ReleasePublishing

extension SettingsResolution {
  /// The publishing group: destinations, the public URL, tags and pushes. Sets the public
  /// URL's origin in `inputs`, which the destinations' messages name.
  func publishing(_ mode: RunMode, _ inputs: inout InputSettings) throws -> PublishSettings {
    var publishing = PublishSettings()
    let (publicURL, publicURLOrigin) = try checkedPublicURL()
    publishing.publicURL = publicURL
    inputs.origins.publicURL = publicURLOrigin
    if given.noPublish && !given.publish.isEmpty {
      throw ReleaseError.usage(
        "\(SettingFlag.noPublish.rawValue): cannot be combined with \(SettingFlag.publish.rawValue)")
    }
    let parse = destinationParser(inputs, publicURL: publicURL)
    if given.noPublish {
      publishing.destinations = []
    } else if !given.publish.isEmpty {
      publishing.destinations = try given.publish.map(parse)
    } else {
      publishing.destinations = try configuredDestinations(parse)
    }
    // The releases repository's URL goes into generated READMEs (and so into source digests)
    // also under --no-publish, so that run makes the same packages as the publishing one.
    let configured = given.noPublish ? (configuration.destinations ?? []).compactMap { try? parse($0) } : nil
    publishing.releasesRepository = releasesRepository(among: configured ?? publishing.destinations)
    publishing.otaDestination = try configuration.otaDestination.map { text in
      do { return try parse(text) } catch ReleaseError.usage(let message) {
        throw ReleaseError.usage(
          "\(configuration.path): \(ConfigurationKey.otaDestination.rawValue): \(message)")
      }
    }
    if case .shard = mode {
      // A shard's dist/ is half a release: the merge job publishes, tags and records versions.
      let given: [(SettingFlag, Bool)] = [
        (.publish, !self.given.publish.isEmpty), (.tag, self.given.tag), (.push, self.given.push),
        (.publishPassed, self.given.publishPassed),
      ]
      if let (flag, _) = given.first(where: \.1) {
        throw ReleaseError.usage(
          "\(flag.rawValue): a shard does not publish; run it on 'release merge' of all shards")
      }
      publishing.destinations = []
    }
    try tagging(&publishing)
    return publishing
  }

  /// Which customers ship, tags and their push, once the destinations are known.
  private func tagging(_ publishing: inout PublishSettings) throws {
    publishing.publishPassed = given.publishPassed || (configuration.publishPassed ?? false)
    publishing.tag = given.tag || !publishing.destinations.isEmpty
    publishing.push = given.push
    publishing.allowDirty = given.allowDirty
    publishing.remote = given.remote ?? publishing.remote
    if let remote = publishing.remote { try URLPolicy.checkRemote(remote) }
    if publishing.push && !publishing.tag {
      throw ReleaseError.usage("--push: pushes tags, so it needs --tag or --publish")
    }
  }

  /// The releases repository packages name in their install steps: `publish.packageURL`, else
  /// the first `git:` destination's location.
  func releasesRepository(among destinations: [PublishDestination]) -> String? {
    configuration.packageURL ?? Self.releasesRepository(destinations)
  }

  /// The first `git:` destination's location.
  private static func releasesRepository(_ destinations: [PublishDestination]) -> String? {
    destinations.lazy.compactMap { destination -> String? in
      if case .releasesRepositories(let template) = destination { return template }
      return nil
    }.first
  }

  /// How a destination as typed is read with this run's S3 settings and public URL.
  func destinationParser(_ inputs: InputSettings, publicURL: String?) -> (String) throws ->
    PublishDestination
  {
    { text in
      try PublishDestination.parse(
        text, s3Endpoint: inputs.s3Endpoint, region: inputs.s3Region, baseURL: publicURL,
        origins: inputs.origins)
    }
  }

  /// release.config.json's `publish.destinations`, each refused value named by its index.
  func configuredDestinations(_ parse: (String) throws -> PublishDestination) throws -> [PublishDestination] {
    try (configuration.destinations ?? []).enumerated().map { index, text in
      do { return try parse(text) } catch ReleaseError.usage(let message) {
        throw ReleaseError.usage(
          "\(configuration.path): \(ConfigurationKey.destinations.rawValue)[\(index)]: \(message)")
      }
    }
  }

  /// The public URL as every command takes it (`--public-url`, else release.config.json's),
  /// refused if it carries a credential; and how messages name where it came from.
  package func checkedPublicURL() throws -> (value: String?, origin: String) {
    let (publicURL, origin) = setting(given.publicURL, .publicURL, key: .publicURL)
    if let publicURL { try URLPolicy.refuseCredential(inPublicURL: publicURL, origin: origin) }
    return (publicURL, origin)
  }
}
