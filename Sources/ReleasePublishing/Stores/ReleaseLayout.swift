import Foundation
import ReleaseCore

/// Where a customer's releases go in an object store destination, below its prefix: each
/// customer's index of published versions and each release's files. Publishing writes there;
/// `release share` links there.
package enum ReleaseLayout {
  /// The customer's index of its published versions.
  package static func customerIndexKey(_ id: String) -> String { "customers/\(id)/index.json" }

  /// Where a file of a customer's release lives.
  package static func artifactKey(customer id: String, version: SemanticVersion, file: String) -> String {
    "artifacts/\(id)/\(version)/\(file)"
  }
}
