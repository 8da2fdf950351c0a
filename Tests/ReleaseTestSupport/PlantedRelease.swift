import Foundation
import ReleaseArchive
import ReleasePipeline
import ReleaseSettings
import ReleaseSystem

/// A release in dist/ changed the way an attacker with write access to a restored cache would.
package enum PlantedRelease {
  /// Rewrites the release's zip through `change` (which edits the extracted package), then makes
  /// release.json (files list, artifact digest and size) and the .sha256 agree with it, as an
  /// attacker with write access to the cache would.
  package static func plant(_ release: URL, zip: URL, change: (URL) throws -> Void) throws {
    let scratch = FileManager.default.temporaryDirectory.appendingPathComponent("plant-\(UUID().uuidString)")
    defer { try? FileManager.default.removeItem(at: scratch) }
    let package = try ZipReader.extract(zip, into: scratch.appendingPathComponent("x"))
    try change(package)
    var record = try ReleaseRecord.load(from: release.appendingPathComponent(ReleaseRecord.fileName))
    try FileManager.default.removeItem(at: zip)
    let written = try ZipWriter.write(
      directory: package, topLevelName: record.artifact.topLevelDirectory, to: zip,
      modificationTime: SourceDateEpoch.defaultValue)
    record.files = try StageStep.files(in: package)
    record.artifact.sha256 = written.sha256
    record.artifact.size = written.size
    try record.encoded().write(to: release.appendingPathComponent(ReleaseRecord.fileName))
    try "\(written.sha256)  \(zip.lastPathComponent)\n".write(
      to: release.appendingPathComponent(zip.lastPathComponent + ".sha256"), atomically: true, encoding: .utf8
    )
  }
}
