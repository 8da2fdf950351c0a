import Foundation
import ReleaseArchive
import ReleaseSystem

/// A customer's SwiftPM releases repository: each version is a commit holding the generated
/// package, tagged with the plain version (`2.4.1`), so a consumer's `Package.swift` resolves
/// it with `.package(url: …, from: "2.4.0")`. A tag that exists with the same tree is done;
/// with another tree it is an error (versions never move).
struct ReleasesRepository {
  let locator: String
  let services: Services

  enum Outcome: CustomStringConvertible {
    case published(url: String, tag: String)
    case alreadyPublished(url: String, tag: String)

    var description: String {
      switch self {
      case .published(let url, let tag): return "pushed tag \(tag) to \(url)"
      case .alreadyPublished(let url, let tag): return "tag \(tag) already in \(url) with the same content"
      }
    }
  }

  struct TagDiffers: Error, CustomStringConvertible {
    let url: String
    let tag: String
    var description: String {
      "\(url): tag \(tag) already exists with different content; a published version never changes"
    }
  }

  func url(for id: String) -> String { locator.replacingOccurrences(of: "{id}", with: id) }

  func publish(_ release: PublishedRelease, cache: URL) throws -> Outcome {
    let url = url(for: release.job.id)
    let tag = release.job.version.description
    try createIfLocal(url)

    let work = cache.appendingPathComponent("releases").appendingPathComponent(release.job.id)
    try? FileManager.default.removeItem(at: work)
    try AtomicFile.createDirectory(work.deletingLastPathComponent())
    try GitRepository(work.deletingLastPathComponent(), runner: services.processRunner, environment: services.environment)
      .run(["clone", "--quiet", url, work.lastPathComponent])
    defer { try? FileManager.default.removeItem(at: work) }
    let git = GitRepository(work, runner: services.processRunner, environment: services.environment)

    // Replace the work tree with the package exactly as it ships in the archive.
    for item in try FileManager.default.contentsOfDirectory(atPath: work.path) where item != ".git" {
      try FileManager.default.removeItem(at: work.appendingPathComponent(item))
    }
    let extracted = cache.appendingPathComponent("releases").appendingPathComponent(".\(release.job.id)-extract")
    try? FileManager.default.removeItem(at: extracted)
    defer { try? FileManager.default.removeItem(at: extracted) }
    try ZipReader.extract(release.directory.appendingPathComponent(release.record.artifact.file), into: extracted)
    let top = extracted.appendingPathComponent(release.record.artifact.topLevelDirectory)
    for item in try FileManager.default.contentsOfDirectory(atPath: top.path) {
      try FileManager.default.moveItem(at: top.appendingPathComponent(item), to: work.appendingPathComponent(item))
    }
    try git.run(["add", "-A"])
    let tree = try git.run(["write-tree"])

    if let tagged = git.commit(of: "refs/tags/\(tag)") {
      guard try git.run(["rev-parse", tagged + "^{tree}"]) == tree else { throw TagDiffers(url: url, tag: tag) }
      return .alreadyPublished(url: url, tag: tag)
    }
    // The release's fixed date keeps the commit reproducible.
    let date = "@\(ArchiveStep.modificationTime(services.environment)) +0000"
    let dates = ["GIT_AUTHOR_DATE": date, "GIT_COMMITTER_DATE": date]
    let message = "\(release.record.packageName) \(tag)"
    try git.run(["commit", "--quiet", "--allow-empty", "-m", message], extraEnvironment: dates)
    try git.run(["tag", "-a", tag, "-m", message], extraEnvironment: dates)
    try git.run(["push", "--quiet", "origin", "HEAD:refs/heads/main", "refs/tags/\(tag)"])
    return .published(url: url, tag: tag)
  }

  /// A local releases repository that does not exist yet is created (bare, branch main).
  private func createIfLocal(_ url: String) throws {
    let path = url.hasPrefix("file://") ? String(url.dropFirst("file://".count)) : url
    guard !path.contains("://"), !path.contains("@"), !FileManager.default.fileExists(atPath: path) else { return }
    let directory = URL(fileURLWithPath: path)
    try AtomicFile.createDirectory(directory)
    try GitRepository(directory, runner: services.processRunner, environment: services.environment)
      .run(["init", "--quiet", "--bare", "--initial-branch=main"])
  }
}
