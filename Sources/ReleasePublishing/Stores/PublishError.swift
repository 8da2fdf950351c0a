import Foundation

/// Why publishing to an object store failed.
package enum PublishError: Error, CustomStringConvertible {
  case immutableObjectDiffers(location: String, published: String, local: String)
  case readBackMismatch(location: String, expected: String, found: String)
  case versionDiffers(location: String, version: String)
  case unreadableIndex(location: String, reason: String)
  case contended(location: String, attempts: Int)

  package var description: String {
    switch self {
    case .immutableObjectDiffers(let location, let published, let local):
      return
        "\(location): already published with different bytes (sha256 \(published.prefix(12))…, this build \(local.prefix(12))…); a published version never changes — bump the version instead"
    case .readBackMismatch(let location, let expected, let found):
      return "\(location): read back \(found), expected \(expected); the upload is corrupt"
    case .versionDiffers(let location, let version):
      return
        "\(location): version \(version) is already listed with another archive; a published version never changes"
    case .contended(let location, let attempts):
      return
        "\(location): changed by another publisher \(attempts) times while this one merged into it; nothing of it was overwritten, rerun to add this release"
    case .unreadableIndex(let location, let reason):
      return
        "\(location): not an index written by release (\(reason)); fix or remove it, nothing was published"
    }
  }
}
