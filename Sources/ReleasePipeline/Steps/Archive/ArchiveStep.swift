import Foundation
import ReleaseArchive
import ReleaseCore
import ReleaseReporting
import ReleaseSystem

/// Zips the freshly generated package (never a build slot) reproducibly: one top-level
/// directory, sorted entries, normalised permissions, models stored, sources deflated, and a
/// fixed modification time, so the same inputs always give the same bytes.
package struct ArchiveStep: CustomerStep {
  package let name = "archive"

  package init() {}

  package func run(_ tested: TestedPackage, for job: CustomerJob, _ context: ReleaseContext) throws
    -> ArchivedPackage
  {
    let staging = context.cacheDirectory.appendingPathComponent("staging").appendingPathComponent(job.id)
    try? FileManager.default.removeItem(at: staging)
    let zip = staging.appendingPathComponent(job.archiveName)
    let written = try ZipWriter.write(
      directory: tested.source.directory, topLevelName: job.customer.packageName, to: zip,
      modificationTime: context.settings.build.archiveModificationTime)
    return ArchivedPackage(
      tested: tested, archive: .init(path: zip, sha256: written.sha256, size: written.size))
  }
}

/// A tested package and its archive in scratch space (staging).
package struct ArchivedPackage: Sendable {
  var tested: TestedPackage
  var archive: CustomerResult.Archive
}

/// A generated package that built, and passed its tests unless `--skip-tests`.
package struct TestedPackage: Sendable {
  package var source: GeneratedSource
  /// How many tests `swift test` ran, when it printed it.
  package var testCount: Int?
  /// How they ran; nil under `--skip-tests`.
  package var testedBy: TestMethod?

  package init(source: GeneratedSource, testCount: Int?, testedBy: TestMethod?) {
    self.source = source
    self.testCount = testCount
    self.testedBy = testedBy
  }
}
