import Foundation
import ReleaseCore
import ReleaseGeneration
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
  /// The over-the-air channel's own destination (`publish.otaDestination` of
  /// release.config.json), the only one meant to be public: a release run publishes the
  /// manifests and models there and nowhere else; `ota publish` there unless `--publish`.
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
  /// The channel's root documents (`signing.root`), whose newest manifest keys are
  /// `signing.trusted`; nil with `signing.trustedKeys`.
  package var rootChain: RootChain?
  /// Where the vendor publishes the `allowed_signers` line of the trusted keys
  /// (`signing.allowedSignersURL`), named in every signed package's README; nil: the README
  /// says to ask for the line.
  package var allowedSignersURL: String?
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

/// `--shard k/N`: the k-th of N shards, 1-based.
package struct ShardSelection: Equatable, Sendable, CustomStringConvertible {
  package var index: Int
  package var count: Int

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
  /// `<public URL>/ota/<id>/models.json`, the customer's legacy unsigned over-the-air manifest
  /// as its SDK fetches it; nil without a public URL (the package then has no manifest to
  /// follow), and nil on the signed channel once `publish.legacyManifests` is false.
  package func modelManifestURL(for customer: String) -> String? {
    guard let base = publicBase else { return nil }
    if hasSignedChannel && !legacyManifests { return nil }
    return "\(base)/\(OTAManifest.pointerKey(customer))"
  }

  /// Whether packages get the signed channel: trusted keys and a public URL to serve it from.
  package var hasSignedChannel: Bool { signing.hasTrustedKeys && publicURL != nil }

  /// `<public URL>/ota/<channel>/manifest.json`: the signed manifest a package follows; nil
  /// without the signed channel.
  package func manifestURL(channel: String) -> String? {
    guard hasSignedChannel, let base = publicBase else { return nil }
    return "\(base)/\(SignedOTAChannel.pointerKey(channel: channel))"
  }

  /// The keys every package of the signed channel pins, in the configuration's order; nil
  /// without the signed channel.
  package var pinnedKeys: [PinnedKey]? {
    guard hasSignedChannel else { return nil }
    return signing.trusted.map {
      PinnedKey(keyID: $0.keyID, publicKey: $0.rawRepresentation.base64EncodedString())
    }
  }

  /// The newest root document's envelope, as every package of the signed channel embeds it;
  /// nil without a root or without the signed channel.
  package var embeddedRoot: String? {
    guard hasSignedChannel, let chain = rootChain else { return nil }
    return String(decoding: chain.envelopes[chain.envelopes.count - 1], as: UTF8.self)
  }

  /// How a customer checks a release zip's signature, shown in every package's README: the
  /// trusted keys' fingerprints, the signer identity and where the `allowed_signers` line is
  /// published; nil without trusted keys (the README is then as it was before signing).
  package var signatureCheck: SignatureCheck? {
    guard signing.hasTrustedKeys else { return nil }
    return SignatureCheck(
      fingerprints: signing.trusted.map(\.sshFingerprint), identity: ReleaseSignature.defaultIdentity,
      namespace: ReleaseSignature.namespace, allowedSignersURL: allowedSignersURL)
  }

  private var publicBase: String? {
    guard var base = publicURL else { return nil }
    while base.hasSuffix("/") { base.removeLast() }
    return base
  }
}
