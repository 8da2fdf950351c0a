import Foundation
import ReleaseCore
import ReleaseSystem

/// A proposed change to files, shown as `git diff` shows it once applied (new files as
/// `git add -N` shows them): made by git in a scratch repository holding the old files, with no
/// user or system git configuration, so the output is the same on every machine. `release bump`
/// and the rollout commands print their change this way, for review and for `--dry-run`.
package struct UnifiedDiff {
  package struct FileChange: Equatable {
    /// As the user names it (relative to the project root, or absolute).
    package var path: String
    /// nil: the file does not exist yet.
    var old: String?
    package var new: String

    package init(path: String, old: String? = nil, new: String) {
      self.path = path
      self.old = old
      self.new = new
    }
  }

  let services: Services

  package init(services: Services) {
    self.services = services
  }

  package func diff(_ files: [FileChange]) throws -> String {
    let scratch = try TemporaryFiles.shared.makeDirectory(prefix: "release-diff")
    defer { try? FileManager.default.removeItem(at: scratch) }
    var environment = services.environment
    environment["GIT_CONFIG_NOSYSTEM"] = "1"
    environment["GIT_CONFIG_GLOBAL"] = "/dev/null"
    let git = GitRepository(scratch, runner: services.processRunner, environment: environment)
    try git.run(["init", "--quiet"])
    for file in files {
      if let old = file.old {
        try AtomicFile.write(old, to: scratch.appendingPathComponent(diffPath(file.path)), durable: false)
      }
    }
    try git.run(["add", "--all", "--force", "."])
    for file in files {
      try AtomicFile.write(file.new, to: scratch.appendingPathComponent(diffPath(file.path)), durable: false)
    }
    let created = files.filter { $0.old == nil }.map { diffPath($0.path) }
    if !created.isEmpty { try git.run(["add", "--intent-to-add", "--force", "--"] + created) }
    return try git.output(["diff", "--no-color", "--no-ext-diff", "--no-textconv"])
  }

  /// Where a file goes in the scratch repository, as the diff names it: its path relative to
  /// the project root, or its absolute path (without the leading slash) outside the root.
  private func diffPath(_ path: String) -> String {
    let absolute = services.resolve(path).path
    let root = services.root.standardizedFileURL.path
    let prefix = root.hasSuffix("/") ? root : root + "/"
    return absolute.hasPrefix(prefix)
      ? String(absolute.dropFirst(prefix.count)) : String(absolute.drop { $0 == "/" })
  }
}
