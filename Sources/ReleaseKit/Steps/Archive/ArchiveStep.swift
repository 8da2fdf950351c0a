import Foundation
import ReleaseArchive
import ReleaseSystem

/// Zips the freshly generated package (never a build slot) reproducibly: one top-level
/// directory, sorted entries, normalised permissions, models stored, sources deflated, and a
/// fixed modification time, so the same inputs always give the same bytes.
struct ArchiveStep: CustomerStep {
  let name = "archive"

  /// 2020-01-01T00:00:00Z. A constant rather than the wall clock so reruns are byte-identical;
  /// `SOURCE_DATE_EPOCH` overrides it, as in other reproducible-build tools.
  static let defaultModificationTime: Int64 = 1_577_836_800

  func run(_ job: CustomerJob, _ context: ReleaseContext) throws {
    guard let package = job.packageDirectory else { preconditionFailure("archive runs after generate") }
    let staging = context.cacheDirectory.appendingPathComponent("staging").appendingPathComponent(job.id)
    try? FileManager.default.removeItem(at: staging)
    let zip = staging.appendingPathComponent(job.archiveName)
    let written = try ZipWriter.write(
      directory: package, topLevelName: job.customer.packageName, to: zip,
      modificationTime: Self.modificationTime(context.services.environment))
    job.archive = (zip, written.sha256, written.size)
  }

  static func modificationTime(_ environment: [String: String]) -> Int64 {
    environment["SOURCE_DATE_EPOCH"].flatMap { Int64($0) } ?? defaultModificationTime
  }
}
