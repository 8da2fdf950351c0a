import Foundation
import ReleaseCore

/// What the over-the-air publish needs of a customer's release record (`release.json`): its
/// version and whether its package pinned keys. Read from `dist/<id>/<version>/release.json`,
/// which every release run writes.
package struct ReleasedPackage: Codable, Equatable, Sendable {
  package var version: String
  /// Whether the package pins the signing keys (then it follows only its signed channel);
  /// absent in records written before it was recorded.
  package var pinnedKeys: Bool?

  /// A record without the field counts as unpinned: such a package may follow the legacy
  /// unsigned manifest.
  package var pinsKeys: Bool { pinnedKeys ?? false }

  /// The customer's records in `dist`, by version directory; one that cannot be read counts
  /// as an unpinned package of that version.
  static func all(of customer: String, in dist: URL) -> [ReleasedPackage] {
    let directory = dist.appendingPathComponent(customer, isDirectory: true)
    let versions = (try? FileManager.default.contentsOfDirectory(atPath: directory.path)) ?? []
    return versions.sorted().compactMap { version in
      let file = directory.appendingPathComponent(version).appendingPathComponent(ReleaseRecord.fileName)
      guard FileManager.default.fileExists(atPath: file.path) else { return nil }
      guard let data = try? Data(contentsOf: file),
        let package = try? JSONDecoder().decode(ReleasedPackage.self, from: data)
      else { return ReleasedPackage(version: version, pinnedKeys: nil) }
      return package
    }
  }

  /// Whether `customer` still has a released package without pinned keys: a record in `dist`
  /// that does not say it pinned keys, or a version release-state.json records as released
  /// whose record is not in `dist` (unknown, so counted as unpinned).
  static func hasUnpinnedPackage(_ customer: String, state: ReleaseState, dist: URL) -> Bool {
    let records = all(of: customer, in: dist)
    if records.contains(where: { !$0.pinsKeys }) { return true }
    guard let entry = state.customers[customer] else { return false }
    let recorded = Set(records.map(\.version))
    let released = Set([entry.version.description] + entry.releases.map(\.version))
    return !released.isSubset(of: recorded)
  }
}
