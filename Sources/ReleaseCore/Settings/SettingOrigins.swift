import Foundation

/// How a message names where a setting came from, followed by its value: the flag
/// (`--s3-endpoint https://…`), or the release.config.json key (`release.config.json:
/// publish.s3Endpoint: https://…`). A message naming a flag nobody typed sends the reader to the
/// wrong place.
package struct SettingOrigins: Equatable, Sendable {
  package var models = "--models"
  package var s3Endpoint = "--s3-endpoint"
  package var s3Region = "--s3-region"
  package var publicURL = "--public-url"

  package init() {}

  /// The label of a release.config.json key.
  package static func configuration(_ path: String, key: String) -> String { "\(path): \(key):" }
}
