import Foundation
import ReleaseCore
import ReleaseManifest
import ReleaseModels
import ReleaseOTA
import ReleasePublishing
import ReleaseSigning

/// What the user asked for, after argument parsing. Paths are as given (relative to the root).
package struct ReleaseOptions: Equatable, Sendable {
  package enum Selection: Equatable, Sendable {
    case all
    /// Slugs or app ids, as typed.
    case customers([String])
  }

  package var selection: Selection = .all
  package var manifestPath = "customers.json"
  package var modelsPath = "models"
  package var templatesPath = "templates/ContextSDK"
  package var distPath = "dist"
  package var statePath = "release-state.json"
  /// The SDK's changelog, which `release bump` writes and release notes quote.
  package static let sdkChangelogPath = "CHANGELOG.md"
  /// What devices are offered over the air (`rollouts.json`, committed).
  package var rolloutsPath = RolloutState.defaultPath
  /// Warm build slots, generated scratch packages and download caches (ignored by git).
  package var cachePath = ".release-cache"
  package var jobs = max(1, ProcessInfo.processInfo.activeProcessorCount)
  package var dryRun = false
  package var force = false
  package var failFast = false
  package var json = false
  /// Skip `swift test` (never the build); for debugging a customer quickly.
  package var skipTests = false
  /// Test every customer with `swift test`, not only the first of each compile key.
  package var fullBuild = false
  /// Tag the project repository after success (implied by publishing).
  package var tag = false
  package var allowDirty = false
  /// Push the tags to `remote` (`--push [remote]`, default origin).
  package var push = false
  package var remote: String? = "origin"
  /// Destinations to publish to after every customer succeeded.
  package var publish: [PublishDestination] = []
  /// The `git:` destination's location (with `{id}`), from `--publish` or release.config.json,
  /// kept under `--no-publish`: customers add their package from there, so it is in their
  /// README and in the source digest whether or not this run publishes.
  package var releasesRepository: String?
  /// S3-compatible endpoint and signing region for `s3://` destinations and model stores
  /// (`--s3-endpoint`, `--s3-region` or release.config.json); nil: AWS S3, region from `AWS_REGION`.
  package var s3Endpoint: String?
  package var s3Region: String?
  /// Where the destinations are served (`--public-url` or `publish.publicURL`): the base of the
  /// URLs in indexes and of the over-the-air manifest URL every package carries.
  package var publicURL: String?
  /// How messages name where the settings above came from.
  package var origins = SettingOrigins()
  /// Where OTA manifests go when every destination is a releases repository
  /// (`publish.otaDestination` of release.config.json).
  package var otaDestination: PublishDestination?
  /// Every archive entry's modification time (`SOURCE_DATE_EPOCH`, else a fixed default).
  package var archiveModificationTime = SourceDateEpoch.defaultValue
  /// Seconds one `swift build`/`swift test` of a package may take (`--timeout`, default 30 min).
  package var timeout: Double = 30 * 60
  /// Bytes a model of a directory store may have (`--max-model-size`).
  package var maximumModelSize = DirectoryModelStore.defaultMaximumModelSize
  /// `release all --shard k/N`: build only shard k of N (see `ShardPlan`); no publishing.
  package var shard: ShardSelection?
  /// `release merge <dist>...`: the shards' dist/ directories to join into `distPath`.
  package var mergeSources: [String] = []
  /// With some customers failed, still publish, tag and record those that passed.
  package var publishPassed = false
  /// The keys packages pin and the private keys this run signs with (`signing.trustedKeys`,
  /// `--signing-key`, `RELEASE_SIGNING_KEY`); the steps that sign say when a key is missing.
  package var signing = SigningSetup()

  package init() {}
}

/// `--shard k/N`: the k-th of N shards, 1-based.
package struct ShardSelection: Equatable, Sendable, CustomStringConvertible {
  var index: Int
  var count: Int

  package static func parse(_ text: String) throws -> ShardSelection {
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
  package var description: String { "\(index)/\(count)" }
}

extension ReleaseOptions {
  /// `<public URL>/ota/<id>/models.json`, the customer's over-the-air manifest as its SDK
  /// fetches it; nil without a public URL (the package then has no manifest to follow).
  package func modelManifestURL(for customer: String) -> String? {
    guard var base = publicURL else { return nil }
    while base.hasSuffix("/") { base.removeLast() }
    return "\(base)/\(OTAManifest.pointerKey(customer))"
  }
}
