import Foundation
import ReleaseGeneration
import ReleaseManifest
import ReleaseSystem

/// Moves a customer's finished release into `dist/<id>/<version>/`: the zip, its `.sha256`
/// and `release.json` are assembled in a hidden temporary directory beside it and renamed
/// into place in one step, so `dist/` never holds half a release.
package struct StageStep: CustomerStep {
  package let name = "stage"
  package let inputs: ReleaseInputs

  package init(inputs: ReleaseInputs) { self.inputs = inputs }

  package func run(_ archived: ArchivedPackage, for job: CustomerJob, _ context: ReleaseContext) throws
    -> StagedRelease
  {
    let archive = archived.archive
    let testCount = archived.tested.testCount
    let final = job.releaseDirectory(in: context.distDirectory)
    let temporary = AtomicFile.temporarySibling(of: final)
    try AtomicFile.createDirectory(temporary)
    do {
      let zip = temporary.appendingPathComponent(job.archiveName)
      do {
        try FileManager.default.moveItem(at: archive.path, to: zip)
      } catch {
        // One line with the system's reason (a full disk), not Foundation's error dump.
        throw SystemError.cannotWrite(path: zip.path, reason: SystemError.reason(error))
      }
      try AtomicFile.write(
        "\(archive.sha256)  \(job.archiveName)\n",
        to: temporary.appendingPathComponent(job.archiveName + ".sha256"))
      let record = ReleaseRecord(
        job, archiveSHA256: archive.sha256, archiveSize: archive.size,
        files: try Self.files(in: archived.tested.source.directory), testCount: testCount, inputs: inputs)
      try AtomicFile.write(try record.encoded(), to: temporary.appendingPathComponent(ReleaseRecord.fileName))
      FaultPoint.reach("stage.assembled")
      // An earlier release directory of the same version (a forced rebuild) is swapped out in
      // one step, so a reader never finds no release there.
      try AtomicFile.replace(final, with: temporary)
    } catch {
      try? FileManager.default.removeItem(at: temporary)
      throw error
    }
    return StagedRelease(
      archive: .init(
        path: final.appendingPathComponent(job.archiveName), sha256: archive.sha256, size: archive.size),
      testCount: testCount, testedBy: archived.tested.testedBy)
  }

  /// Every regular file of the generated package with its SHA-256, sorted by path bytes.
  package static func files(in package: URL) throws -> [ReleaseRecord.File] {
    var files: [ReleaseRecord.File] = []
    guard let enumerator = FileManager.default.enumerator(atPath: package.path) else { return [] }
    while let path = enumerator.nextObject() as? String {
      guard enumerator.fileAttributes?[.type] as? FileAttributeType == .typeRegular else { continue }
      let (sha256, size) = try SHA256Digest.hexAndSize(ofFileAt: package.appendingPathComponent(path))
      files.append(ReleaseRecord.File(path: path, sha256: sha256, size: size))
    }
    return files.sorted { $0.path.utf8.lexicographicallyPrecedes($1.path.utf8) }
  }
}
