import Foundation

/// What the user asked for, after argument parsing. Paths are as given (relative to the root).
public struct ReleaseOptions: Equatable, Sendable {
  public enum Selection: Equatable, Sendable {
    case all
    /// Slugs or app ids, as typed.
    case customers([String])
  }

  public var selection: Selection = .all
  public var manifestPath = "customers.json"
  public var modelsPath = "models"
  public var templatesPath = "templates/ContextSDK"
  public var distPath = "dist"
  public var statePath = "release-state.json"
  /// Warm build slots, generated scratch packages and download caches (ignored by git).
  public var cachePath = ".release-cache"
  public var jobs = max(1, ProcessInfo.processInfo.activeProcessorCount)
  public var dryRun = false
  public var force = false
  public var failFast = false
  public var json = false
  /// Skip `swift test` (never the build); for debugging a customer quickly.
  public var skipTests = false
  /// Tag the project repository after success (implied by publishing).
  public var tag = false
  public var allowDirty = false
  /// Push the tags to `remote` (`--push [remote]`, default origin).
  public var push = false
  public var remote: String? = "origin"
  /// Destinations to publish to after every customer succeeded.
  public var publish: [PublishDestination] = []
  /// The `git:` destination's location (with `{id}`), from `--publish` or release.config.json,
  /// kept under `--no-publish`: customers add their package from there, so it is in their
  /// README and in the source digest whether or not this run publishes.
  public var releasesRepository: String?
  /// S3-compatible endpoint and signing region for `s3://` destinations and model stores
  /// (`--s3-endpoint`, `--s3-region` or release.config.json); nil: AWS S3, region from `AWS_REGION`.
  public var s3Endpoint: String?
  public var s3Region: String?
  /// Every archive entry's modification time (`SOURCE_DATE_EPOCH`, else a fixed default).
  public var archiveModificationTime = SourceDateEpoch.defaultValue

  public init() {}
}
