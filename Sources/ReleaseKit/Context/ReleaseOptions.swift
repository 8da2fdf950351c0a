import Foundation
import ReleaseManifest

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
  /// The SDK's changelog, which `release bump` writes and release notes quote.
  public static let sdkChangelogPath = "CHANGELOG.md"
  /// What devices are offered over the air (`rollouts.json`, committed).
  public var rolloutsPath = RolloutState.defaultPath
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
  /// Where the destinations are served (`--public-url` or `publish.publicURL`): the base of the
  /// URLs in indexes and of the over-the-air manifest URL every package carries.
  public var publicURL: String?
  /// How messages name where the settings above came from.
  public var origins = SettingOrigins()
  /// Where OTA manifests go when every destination is a releases repository
  /// (`publish.otaDestination` of release.config.json).
  public var otaDestination: PublishDestination?
  /// Every archive entry's modification time (`SOURCE_DATE_EPOCH`, else a fixed default).
  public var archiveModificationTime = SourceDateEpoch.defaultValue
  /// Seconds one `swift build`/`swift test` of a package may take (`--timeout`, default 30 min).
  public var timeout: Double = 30 * 60
  /// Bytes a model of a directory store may have (`--max-model-size`).
  public var maximumModelSize = DirectoryModelStore.defaultMaximumModelSize
  /// `release all --shard k/N`: build only shard k of N (see `ShardPlan`); no publishing.
  public var shard: ShardSelection?
  /// `release plan --shards N`: how many shards to plan.
  public var planShards: Int?
  /// `release merge <dist>...`: the shards' dist/ directories to join into `distPath`.
  public var mergeSources: [String] = []
  /// With some customers failed, still publish, tag and record those that passed.
  public var publishPassed = false

  public init() {}
}

/// `--shard k/N`: the k-th of N shards, 1-based.
public struct ShardSelection: Equatable, Sendable, CustomStringConvertible {
  public var index: Int
  public var count: Int

  static func parse(_ text: String) throws -> ShardSelection {
    let parts = text.split(separator: "/", omittingEmptySubsequences: false)
    guard parts.count == 2, let index = Int(parts[0]), let count = Int(parts[1]), (1...256).contains(count),
      (1...count).contains(index)
    else {
      throw ReleaseError.usage(
        "--shard: expected k/N with 1 <= k <= N <= 256 (e.g. 2/6), found \"\(text.prefix(40))\"")
    }
    return ShardSelection(index: index, count: count)
  }

  /// As `--shard` takes it: `2/6`.
  public var description: String { "\(index)/\(count)" }
}

extension ReleaseOptions {
  /// `<public URL>/ota/<id>/models.json`, the customer's over-the-air manifest as its SDK
  /// fetches it; nil without a public URL (the package then has no manifest to follow).
  public func modelManifestURL(for customer: String) -> String? {
    guard var base = publicURL else { return nil }
    while base.hasSuffix("/") { base.removeLast() }
    return "\(base)/\(OTAManifest.pointerKey(customer))"
  }
}

/// How a message names where a setting came from, followed by its value: the flag
/// (`--s3-endpoint https://…`), or the release.config.json key (`release.config.json:
/// publish.s3Endpoint: https://…`). A message naming a flag nobody typed sends the reader to the
/// wrong place.
public struct SettingOrigins: Equatable, Sendable {
  public var models = "--models"
  public var s3Endpoint = "--s3-endpoint"
  public var s3Region = "--s3-region"
  public var publicURL = "--public-url"

  public init() {}

  /// The label of a release.config.json key.
  static func configuration(_ path: String, key: String) -> String { "\(path): \(key):" }
}
