import Foundation
import ReleaseCore
import ReleaseModels
import ReleaseOTA

/// Where a command's inputs are: the manifest, the model store, the template, the state, the
/// rollouts, dist/ and the cache (paths as given, relative to the root), with the S3 settings
/// of a bucket store. What the over-the-air commands resolve, and a release run's first group.
package struct InputSettings: Equatable, Sendable {
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
  /// Bytes a model of a directory store may have (`--max-model-size`).
  package var maximumModelSize = DirectoryModelStore.defaultMaximumModelSize
  /// S3-compatible endpoint and signing region for `s3://` destinations and model stores
  /// (`--s3-endpoint`, `--s3-region` or release.config.json); nil: AWS S3, region from `AWS_REGION`.
  package var s3Endpoint: String?
  package var s3Region: String?
  /// How messages name where the store, S3 and public URL settings came from.
  package var origins = SettingOrigins()

  package init() {}

  /// Whether `location` names a model store over the network rather than a directory.
  package static func isRemoteStore(_ location: String) -> Bool {
    let lower = location.lowercased()
    return lower.hasPrefix("http://") || lower.hasPrefix("https://") || lower.hasPrefix("s3://")
  }

  /// The base URL of an http(s) model store, without trailing slashes; nil when `location` is
  /// not the URL of a directory on a host, without a query or a user.
  package static func storeBaseURL(_ location: String) -> URL? {
    var trimmed = location
    while trimmed.hasSuffix("/") { trimmed.removeLast() }
    guard let base = URL(string: trimmed), base.host?.isEmpty == false, base.query == nil, base.user == nil
    else { return nil }
    return base
  }
}

/// The modification time of every archive entry (and of releases-repository commits).
package enum SourceDateEpoch {
  /// 2020-01-01T00:00:00Z. A constant rather than the wall clock so reruns are byte-identical;
  /// `SOURCE_DATE_EPOCH` overrides it, as in other reproducible-build tools.
  package static let defaultValue: Int64 = 1_577_836_800

  /// `SOURCE_DATE_EPOCH` when set, else the default; anything but a whole number of seconds
  /// is bad input rather than silently ignored.
  package static func value(_ environment: [String: String]) throws -> Int64 {
    guard let text = environment["SOURCE_DATE_EPOCH"] else { return defaultValue }
    guard let seconds = Int64(text), seconds >= 0 else {
      throw ReleaseError.usage(
        "SOURCE_DATE_EPOCH: \"\(text.prefix(40))\" is not a whole number of seconds since 1970; expected e.g. \(defaultValue)"
      )
    }
    return seconds
  }
}
