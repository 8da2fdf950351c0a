import Foundation
import ReleaseCore
import ReleaseOTA
import ReleasePublishing
import ReleaseSigning

/// Which customers a release run takes and what it does with them: one case per way `all`,
/// `customer`, `merge` and `all --shard` run, chosen when the command line is resolved.
package enum RunMode: Equatable, Sendable {
  /// `release all`: every customer of the manifest.
  case all
  /// `release customer <id>...`: the named customers (slugs or app ids, as typed).
  case customers([String])
  /// `release all --shard k/N`: shard k of N of every customer; publishes, tags and records
  /// nothing (the merge does).
  case shard(ShardSelection)
  /// `release merge <dist>...`: joins the shards' dist/ directories into this run's instead of
  /// building.
  case merge(sources: [String])

  /// Whether the run joins shards instead of building.
  package var isMerge: Bool {
    if case .merge = self { return true }
    return false
  }

  /// The customers the run names; nil: every customer of the manifest.
  package var namedCustomers: [String]? {
    if case .customers(let names) = self { return names }
    return nil
  }
}

/// `--shard k/N`: the k-th of N shards, 1-based.
package struct ShardSelection: Equatable, Sendable, CustomStringConvertible {
  package var index: Int
  package var count: Int

  package init(index: Int, count: Int) {
    self.index = index
    self.count = count
  }

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

/// A release run's settings (`all`, `customer`, `merge`, `all --shard`), and what `plan` and
/// `ota publish` run their steps with: resolved once from the command line, release.config.json
/// and the environment (`SettingsResolution`). Each step reads the group it needs.
package struct RunSettings: Equatable, Sendable {
  package var mode: RunMode = .all
  package var inputs = InputSettings()
  package var build = BuildSettings()
  package var publishing = PublishSettings()
  /// The keys packages pin and the private keys this run signs with (`signing.trustedKeys`,
  /// `--signing-key`, `RELEASE_SIGNING_KEY`); the steps that sign say when a key is missing.
  package var signing = SigningSetup()
  package var channel = ChannelSettings()
  /// `--dry-run`: print the plan, write nothing.
  package var dryRun = false
  /// `--json`: newline-delimited JSON events on stdout.
  package var json = false

  package init() {}

  /// Whether packages get the signed channel: trusted keys and a public URL to serve it from.
  package var hasSignedChannel: Bool { packages.hasSignedChannel }
}

/// How the run builds and tests each customer's package.
package struct BuildSettings: Equatable, Sendable {
  package var jobs = max(1, ProcessInfo.processInfo.activeProcessorCount)
  /// Rebuild customers that are up to date in dist/.
  package var force = false
  package var failFast = false
  /// Skip `swift test` (never the build); for debugging a customer quickly.
  package var skipTests = false
  /// Test every customer with `swift test`, not only the first of each compile key.
  package var fullBuild = false
  /// Seconds one `swift build`/`swift test` of a package may take (`--timeout`, default 30 min).
  package var timeout: Double = 30 * 60
  /// Every archive entry's modification time (`SOURCE_DATE_EPOCH`, else a fixed default).
  package var archiveModificationTime = SourceDateEpoch.defaultValue

  package init() {}
}

/// Where the run's releases go, and the tags that record them.
package struct PublishSettings: Equatable, Sendable {
  /// Destinations to publish to after every customer succeeded.
  package var destinations: [PublishDestination] = []
  /// The `git:` destination's location (with `{id}`), from `--publish` or release.config.json,
  /// kept under `--no-publish`: customers add their package from there, so it is in their
  /// README and in the source digest whether or not this run publishes.
  package var releasesRepository: String?
  /// The over-the-air channel's own destination (`publish.otaDestination` of
  /// release.config.json), the only one meant to be public: a release run publishes the
  /// manifests and models there and nowhere else; `ota publish` there unless `--publish`.
  package var otaDestination: PublishDestination?
  /// Where the destinations are served (`--public-url` or `publish.publicURL`): the base of the
  /// URLs in indexes and of the over-the-air manifest URL every package carries.
  package var publicURL: String?
  /// With some customers failed, still publish, tag and record those that passed.
  package var publishPassed = false
  /// Tag the project repository after success (implied by publishing).
  package var tag = false
  package var allowDirty = false
  /// Push the tags to `remote` (`--push [remote]`, default origin).
  package var push = false
  package var remote: String? = "origin"
  /// Where the vendor publishes the `allowed_signers` line of the trusted keys
  /// (`signing.allowedSignersURL`), named in every signed package's README; nil: the README
  /// says to ask for the line.
  package var allowedSignersURL: String?

  package init() {}
}

/// The signed over-the-air channel's settings.
package struct ChannelSettings: Equatable, Sendable {
  /// The channel's root documents (`signing.root`), whose newest manifest keys are
  /// `signing.trusted`; nil with `signing.trustedKeys`.
  package var rootChain: RootChain?
  /// Keep publishing the legacy unsigned `ota/<id>/models.json` beside the signed channel, and
  /// keep its URL in packages (`publish.legacyManifests`, default true): packages already in
  /// the field poll it.
  package var legacyManifests = true
  /// Seconds a signed manifest is believed after it is published (`--expires`,
  /// `publish.manifestExpiry`; 7 days).
  package var manifestExpiry: Double = 7 * 86_400
  /// `release ota publish --refresh`: re-sign every signed channel's manifest as published.
  package var refresh = false

  package init() {}
}
