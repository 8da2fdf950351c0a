import Foundation

/// What the command line gave for the settings the resolution reads, as parsed (a value the
/// parser checks alone, such as a number or a duration, already typed): nil or empty when not
/// given. The command line fills it from its parsed arguments; `SettingsResolution` merges it
/// with release.config.json and the environment.
package struct CommandLineSettings: Equatable, Sendable {
  /// `--config`: release.config.json elsewhere.
  package var configPath: String?

  // Inputs.
  package var manifest: String?
  package var models: String?
  package var maximumModelSize: Int64?
  package var templates: String?
  package var state: String?
  package var rollouts: String?
  package var dist: String?
  package var cache: String?
  package var s3Endpoint: String?
  package var s3Region: String?

  // Behaviour.
  package var jobs: Int?
  package var timeout: Double?
  package var shard: ShardSelection?
  package var dryRun = false
  package var force = false
  package var failFast = false
  package var json = false
  package var skipTests = false
  package var fullBuild = false

  // Publishing.
  /// Every `--publish` in order; empty when none was given.
  package var publish: [String] = []
  package var noPublish = false
  package var publishPassed = false
  package var adoptUnsignedIndex = false
  package var publicURL: String?
  /// `--expires` of the signed channel's manifests, as typed (checked with the config's).
  package var manifestExpiry: String?
  package var tag = false
  package var push = false
  package var remote: String?
  package var allowDirty = false
  package var refresh = false

  // Signing.
  /// Every `--signing-key` in order.
  package var signingKeys: [String] = []

  package init() {}
}

/// The flags the resolution's messages name, as the command table declares them (a test
/// checks each is one of its options).
package enum SettingFlag: String, CaseIterable, Sendable {
  case models = "--models"
  case s3Endpoint = "--s3-endpoint"
  case s3Region = "--s3-region"
  case publicURL = "--public-url"
  case manifestExpiry = "--expires"
  case publish = "--publish"
  case noPublish = "--no-publish"
  case publishPassed = "--publish-passed"
  case tag = "--tag"
  case push = "--push"
  case remote = "--remote"
}
