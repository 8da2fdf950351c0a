import Foundation
import ReleaseArchive
import ReleaseCore
import ReleasePublishing
import ReleaseSystem

/// A customer's SwiftPM releases repository: each version is a commit holding the generated
/// package exactly as it is in the archive, tagged with the plain version (`2.4.1`), so a
/// consumer's `Package.swift` resolves it with `.package(url: …, from: "2.4.0")`. A tag that
/// exists with the same tree is done; with another tree it is an error (versions never
/// move), and so is a version below one already published (versions only increase).
package struct ReleasesRepository {
  /// The `git:` destination's location, with `{id}` for the customer.
  let locator: String
  let services: Services
  /// The release's fixed date (the archive's modification time), for reproducible commits.
  let commitTime: Int64
  /// The most the clone of a releases repository may write (`maximumCloneSize`; tests inject
  /// a small one).
  var cloneLimit: Int64 = maximumCloneSize

  /// Anyone who can push to a releases repository (or a hostile server) decides how big its
  /// clone is: past this, the clone is stopped before it fills the disk. Far above a
  /// customer's history (each release is one package with its models, at most
  /// `ChannelCheck.maximumModelSize` each).
  static let maximumCloneSize: Int64 = 4 << 30

  enum Outcome: CustomStringConvertible, Equatable {
    case published(url: String, tag: String)
    case alreadyPublished(url: String, tag: String)

    var description: String {
      switch self {
      case .published(let url, let tag): return "published as tag \(tag) in \(url)"
      case .alreadyPublished(let url, let tag):
        return "already published: tag \(tag) in \(url) has the same content"
      }
    }
  }

  enum PublishError: Error, CustomStringConvertible {
    case tagDiffers(url: String, tag: String)
    case versionBelowPublished(url: String, tag: String, newest: String)
    case readBack(url: String, tag: String, found: String)
    case cloneTooLarge(url: String, written: Int64, limit: Int64)

    var description: String {
      switch self {
      case .tagDiffers(let url, let tag):
        return "\(url): tag \(tag) already exists with different content; a published version never changes"
      case .versionBelowPublished(let url, let tag, let newest):
        return "\(url): cannot publish \(tag) after \(newest); a customer's versions only increase"
      case .readBack(let url, let tag, let found):
        return "\(url): after the push, tag \(tag) is \(found), not the tag just made"
      case .cloneTooLarge(let url, let written, let limit):
        return
          "\(URLCredentials.redacted(url)): cloning the releases repository wrote \(written) bytes, more than the \(limit) a clone may; stopped, nothing published"
      }
    }
  }

  /// The URL customers add the package from: the location with `{id}` replaced; a local path
  /// (absolute, or relative to the project root) becomes a `file://` URL.
  package static func url(template: String, id: String, root: URL) -> String {
    let location = template.replacingOccurrences(of: "{id}", with: id)
    if isRemote(location) { return location }
    let path = location.hasPrefix("/") ? location : root.appendingPathComponent(location).path
    return "file://" + URL(fileURLWithPath: path).standardizedFileURL.path
  }

  /// `scheme://…` (also `file://`) or scp-like `[user@]host:path` (a colon before any slash).
  static func isRemote(_ location: String) -> Bool {
    if location.contains("://") { return true }
    guard let colon = location.firstIndex(of: ":") else { return false }
    return !location[..<colon].contains("/")
  }

  /// The directory of a `file://` URL; nil for other URLs.
  static func localPath(_ url: String) -> String? {
    url.hasPrefix("file://") ? String(url.dropFirst("file://".count)) : nil
  }

  func url(for id: String) -> String { Self.url(template: locator, id: id, root: services.root) }

  func publish(_ release: PublishedRelease, cache: URL) throws -> Outcome {
    let url = url(for: release.job.id)
    let tag = release.job.version.description
    if let path = Self.localPath(url) { try createIfMissing(path) }

    let scratch = cache.appendingPathComponent("releases")
    let work = scratch.appendingPathComponent(release.job.id)
    let extracted = scratch.appendingPathComponent(".\(release.job.id)-extract")
    for directory in [work, extracted] { try? FileManager.default.removeItem(at: directory) }
    defer { for directory in [work, extracted] { try? FileManager.default.removeItem(at: directory) } }
    try AtomicFile.createDirectory(scratch)
    try clone(url, into: work)
    let git = GitRepository(
      work, runner: services.processRunner, environment: services.environment, fixedIdentity: true)

    // The work tree becomes the package exactly as it ships in the archive (nothing was
    // checked out, so only .git is there).
    let top = try ZipReader.extract(
      release.directory.appendingPathComponent(release.record.artifact.file), into: extracted)
    for item in try FileManager.default.contentsOfDirectory(atPath: top.path) {
      try FileManager.default.moveItem(
        at: top.appendingPathComponent(item), to: work.appendingPathComponent(item))
    }
    // --force: the package's own .gitignore must not keep any of its files out.
    try git.run(["add", "--all", "--force", "."])
    let tree = try git.run(["write-tree"])

    let tags = try git.tags()
    if let existing = tags[tag] {
      guard try git.run(["rev-parse", existing.commit + "^{tree}"]) == tree else {
        throw PublishError.tagDiffers(url: url, tag: tag)
      }
      return .alreadyPublished(url: url, tag: tag)
    }
    if let newest = tags.keys.compactMap(SemanticVersion.init).max(), newest > release.job.version {
      throw PublishError.versionBelowPublished(url: url, tag: tag, newest: newest.description)
    }

    // The release's fixed date and identity keep the commit reproducible.
    let date = "@\(commitTime) +0000"
    let dates = ["GIT_AUTHOR_DATE": date, "GIT_COMMITTER_DATE": date]
    let message = "\(release.record.packageName) \(tag)\n\nSDK \(release.record.sdkVersion)\n"
    // The branch the clone is on: the remote's default branch (main for one created here).
    let branch = (try? git.run(["symbolic-ref", "--short", "HEAD"])) ?? "main"
    try git.run(
      ["commit", "--quiet", "--allow-empty", "--cleanup=verbatim", "-m", message], extraEnvironment: dates)
    try git.tag(tag, at: "HEAD", message: message, extraEnvironment: dates)
    try git.run([
      "push", "--quiet", "--atomic", "--", "origin", "HEAD:refs/heads/\(branch)", "refs/tags/\(tag)",
    ])

    // Read back: the remote's tag is the one made here.
    let local = try git.run(["rev-parse", "refs/tags/\(tag)"])
    let remote = try git.run(["ls-remote", "--", "origin", "refs/tags/\(tag)"]).split(separator: "\t").first
      .map(
        String.init)
    guard remote == local else { throw PublishError.readBack(url: url, tag: tag, found: remote ?? "missing") }
    return .published(url: url, tag: tag)
  }

  /// Clones `url` into `work` (in a directory that exists), without checking anything out,
  /// writing at most `cloneLimit` bytes: past them git is stopped and what it wrote removed.
  func clone(_ url: String, into work: URL) throws {
    let parent = GitRepository(
      work.deletingLastPathComponent(), runner: services.processRunner, environment: services.environment)
    do {
      try parent.run(
        ["clone", "--quiet", "--no-checkout", "--", url, work.lastPathComponent],
        writeLimit: WriteLimit(directory: work, bytes: cloneLimit))
    } catch SystemError.wroteTooMuch(_, _, let written, let limit) {
      try? FileManager.default.removeItem(at: work)
      throw PublishError.cloneTooLarge(url: url, written: written, limit: limit)
    }
  }

  /// A local releases repository that does not exist yet is created (bare, branch main).
  private func createIfMissing(_ path: String) throws {
    guard !FileManager.default.fileExists(atPath: path) else { return }
    let directory = URL(fileURLWithPath: path)
    try AtomicFile.createDirectory(directory)
    try GitRepository(directory, runner: services.processRunner, environment: services.environment)
      .run(["init", "--quiet", "--bare", "--initial-branch=main"])
  }
}
