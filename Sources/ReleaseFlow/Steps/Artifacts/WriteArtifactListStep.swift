import Foundation
import ReleasePipeline
import ReleaseSystem

/// `dist/artifacts.json` (after GoReleaser's): every release file of the run — archive,
/// checksum and release.json of each customer built or up to date — with customer, version,
/// kind, path (relative to dist/), size and SHA-256, for other CI steps to consume. Written
/// after the content checks, so it lists only checked files; nothing in it depends on time
/// or machine, so a sharded run merged gives the same bytes as one run.
package struct WriteArtifactListStep: Step {
  static let fileName = "artifacts.json"
  package let name = "list artifacts"
  package let changesState = true

  struct Entry: Codable, Equatable, Sendable {
    var customer: String
    var version: String
    var kind: Kind
    var path: String
    var size: Int64
    var sha256: String
  }

  enum Kind: String, Codable, Sendable { case sourceArchive, checksum, releaseManifest }

  package struct List: Codable, Equatable, Sendable {
    var artifacts: [Entry]
  }

  package func skipReason(_ release: CheckedRelease, _ context: ReleaseContext) -> String? {
    release.results.nothingShipsReason("listed")
  }

  package func dryRunDescription(_ release: CheckedRelease, _ context: ReleaseContext) -> [String] {
    [
      "would list \(release.results.shipping.count * 3) files in \(context.settings.inputs.distPath)/\(Self.fileName)"
    ]
  }

  package func run(_ release: CheckedRelease, _ context: ReleaseContext) throws {
    var entries: [Entry] = []
    for job in release.releases.map(\.job) {
      let directory = job.releaseDirectory(in: context.distDirectory)
      let files: [(String, Kind)] = [
        (job.archiveName, .sourceArchive), (job.archiveName + ".sha256", .checksum),
        (ReleaseRecord.fileName, .releaseManifest),
      ]
      for (file, kind) in files {
        let (sha256, size) = try SHA256Digest.hexAndSize(ofFileAt: directory.appendingPathComponent(file))
        entries.append(
          Entry(
            customer: job.id, version: job.version.description, kind: kind,
            path: "\(job.id)/\(job.version)/\(file)", size: size, sha256: sha256))
      }
    }
    entries.sort { $0.path.utf8.lexicographicallyPrecedes($1.path.utf8) }
    try AtomicFile.write(
      try StableJSON.encode(List(artifacts: entries)),
      to: context.distDirectory.appendingPathComponent(Self.fileName))
  }
}
