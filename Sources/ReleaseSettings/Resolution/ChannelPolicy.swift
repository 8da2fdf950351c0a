import Foundation
import ReleaseCore
import ReleasePublishing

/// Where the over-the-air channel may go: devices read it anonymously and releases are
/// private, so no release destination may be, hold or lie inside the channel's, nor be served
/// at the public URL.
enum ChannelPolicy {
  /// Refuses (exit 2, one line) a configuration that would make a release destination public:
  /// `publish.otaDestination` in the same bucket with one prefix holding the other, or a public
  /// URL that serves a release destination. `releases`: the release destinations, by default
  /// the run's own (`ota publish` names those of release.config.json).
  static func checkSeparation(_ settings: RunSettings, releases: [PublishDestination]? = nil) throws {
    let publishing = settings.publishing
    for release in releases ?? publishing.destinations {
      if let ota = publishing.otaDestination,
        let reason = ChannelSeparation.overlap(ota: ota, release: release)
      {
        throw ReleaseError.usage("\(ConfigurationKey.otaDestination.rawValue) \(reason)")
      }
      if let publicURL = publishing.publicURL,
        let reason = ChannelSeparation.publicURLServes(publicURL, release: release)
      {
        throw ReleaseError.usage("\(settings.inputs.origins.publicURL) \(publicURL): \(reason)")
      }
    }
  }
}

extension SettingsResolution {
  /// `release ota publish`'s and `ota evaluate --publish`'s settings: a release's, whose
  /// destinations are where the over-the-air channel goes: `--publish` when given, else
  /// release.config.json's `publish.otaDestination`, else its `publish.destinations` (beside
  /// the releases in a directory, as a release run puts them there). Devices read the channel
  /// anonymously and releases are private, so a target that is, holds or lies inside an S3
  /// release destination is refused (exit 2, naming publish.otaDestination), as is every
  /// overlap a release run refuses (`ChannelPolicy.checkSeparation`).
  package func overTheAir() throws -> RunSettings {
    var settings = try run(.all)
    let given = !self.given.publish.isEmpty
    let parse = destinationParser(settings.inputs, publicURL: settings.publishing.publicURL)
    let releases = given ? try configuredDestinations(parse) : settings.publishing.destinations
    try ChannelPolicy.checkSeparation(settings, releases: releases)
    if !given, let ota = settings.publishing.otaDestination { settings.publishing.destinations = [ota] }
    for (index, target) in settings.publishing.destinations.enumerated() {
      for release in releases {
        guard let reason = ChannelSeparation.overlap(ota: target, release: release) else { continue }
        if given {
          throw ReleaseError.usage(
            "\(SettingFlag.publish.rawValue) \(reason); name the over-the-air channel's own destination in \(configuration.path) as \(ConfigurationKey.otaDestination.rawValue)"
          )
        }
        throw ReleaseError.usage(
          "\(configuration.path): \(ConfigurationKey.destinations.rawValue)[\(index)]: \(target) holds releases, which are private, and devices read the over-the-air files anonymously; name the over-the-air channel's own destination in \(configuration.path) as \(ConfigurationKey.otaDestination.rawValue) (or give --publish)"
        )
      }
    }
    return settings
  }

  /// `release ota publish`'s settings: `overTheAir`'s, refused when there is nowhere to
  /// publish or `--refresh` has no signed channel to re-sign.
  package func otaPublish() throws -> RunSettings {
    let settings = try overTheAir()
    if settings.channel.refresh && !settings.hasSignedChannel {
      throw ReleaseError.usage(
        "--refresh: re-signs the signed channel, and this run has none; it needs release.config.json's signing.trustedKeys and a public URL (--public-url or publish.publicURL)"
      )
    }
    if settings.publishing.destinations.isEmpty {
      throw ReleaseError.usage(
        "ota publish: no destination; give --publish dir:<path> or s3://<bucket>[/<prefix>], or name one in release.config.json as \(ConfigurationKey.otaDestination.rawValue)"
      )
    }
    return settings
  }
}
