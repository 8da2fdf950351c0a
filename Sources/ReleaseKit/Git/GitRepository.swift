import Foundation
import ReleaseSystem

/// `git` through the injected process runner: the project repository (tags, CHANGELOG) and
/// customers' releases repositories. Commits made here carry a fixed identity and the
/// release's date so the same release always gives the same commit.
struct GitRepository {
  let directory: URL
  let runner: ProcessRunning
  let environment: [String: String]

  enum GitError: Error, CustomStringConvertible, Equatable {
    case failed(command: String, directory: String, output: String)
    case dirty(directory: String, files: [String])
    case tagOnOtherCommit(tag: String, tagged: String, expected: String)

    var description: String {
      switch self {
      case .failed(let command, let directory, let output):
        let detail = output.split(separator: "\n").last.map { ": \($0)" } ?? ""
        return "\(command) in \(directory) failed\(detail)"
      case .dirty(let directory, let files):
        let shown = files.prefix(5).joined(separator: ", ") + (files.count > 5 ? ", …" : "")
        return "\(directory): the work tree has uncommitted changes (\(shown)); commit them or pass --allow-dirty"
      case .tagOnOtherCommit(let tag, let tagged, let expected):
        return "tag \(tag) already exists on commit \(tagged.prefix(12)), not on \(expected.prefix(12)); a released version cannot move"
      }
    }
  }

  init(_ directory: URL, runner: ProcessRunning, environment: [String: String]) {
    self.directory = directory
    self.runner = runner
    // A fixed committer keeps commits reproducible and works on machines without a git
    // identity; credentials never pass through (ChildEnvironment).
    var environment = ChildEnvironment.withoutSecrets(environment)
    environment["GIT_TERMINAL_PROMPT"] = "0"
    environment["GIT_AUTHOR_NAME"] = environment["GIT_AUTHOR_NAME"] ?? "release"
    environment["GIT_AUTHOR_EMAIL"] = environment["GIT_AUTHOR_EMAIL"] ?? "release@localhost"
    environment["GIT_COMMITTER_NAME"] = environment["GIT_COMMITTER_NAME"] ?? "release"
    environment["GIT_COMMITTER_EMAIL"] = environment["GIT_COMMITTER_EMAIL"] ?? "release@localhost"
    self.environment = environment
  }

  @discardableResult
  func run(_ arguments: [String], extraEnvironment: [String: String] = [:]) throws -> String {
    let invocation = ProcessInvocation(
      "git", arguments, in: directory, environment: environment.merging(extraEnvironment) { $1 })
    let result = try runner.run(invocation)
    guard result.exitCode == 0 else {
      throw GitError.failed(
        command: "git " + arguments.joined(separator: " "), directory: directory.path,
        output: result.standardError.isEmpty ? result.standardOutput : result.standardError)
    }
    return result.standardOutput.trimmingCharacters(in: .whitespacesAndNewlines)
  }

  /// The commit a ref points at, or nil when it does not exist.
  func commit(of ref: String) -> String? {
    try? run(["rev-parse", "--verify", "--quiet", ref + "^{commit}"])
  }

  func head() throws -> String { try run(["rev-parse", "HEAD"]) }

  /// Changed or untracked files (ignored ones, such as dist/, do not count).
  func uncommittedChanges() throws -> [String] {
    try run(["status", "--porcelain"]).split(separator: "\n").map { String($0.dropFirst(3)) }
  }

  func requireClean() throws {
    let changes = try uncommittedChanges()
    if !changes.isEmpty { throw GitError.dirty(directory: directory.path, files: changes) }
  }

  /// Creates an annotated tag on `commit`; a tag that already points there is fine (reruns are
  /// idempotent), one on another commit is an error. Returns whether a tag was created.
  @discardableResult
  func tag(_ name: String, at commit: String, message: String) throws -> Bool {
    if let existing = self.commit(of: "refs/tags/\(name)") {
      guard existing == commit else { throw GitError.tagOnOtherCommit(tag: name, tagged: existing, expected: commit) }
      return false
    }
    try run(["tag", "-a", name, "-m", message, commit])
    return true
  }

  /// The newest tag reachable from HEAD matching a pattern, if any.
  func latestTag(matching pattern: String) -> String? {
    try? run(["describe", "--tags", "--abbrev=0", "--match", pattern, "HEAD"])
  }
}
