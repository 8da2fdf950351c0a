import Foundation
import ReleaseCore
import ReleaseSystem

/// `git` through the injected process runner: the project repository (tags, CHANGELOG) and
/// customers' releases repositories.
package struct GitRepository {
  let directory: URL
  let runner: ProcessRunning
  let environment: [String: String]

  /// Who commits and tags when the environment and git's configuration name nobody (CI
  /// machines usually have no git identity).
  static let fallbackIdentity = (name: "release", email: "release@localhost")

  package enum GitError: Error, CustomStringConvertible, Equatable {
    case failed(command: String, directory: String, output: String)
    case dirty(directory: String, files: [String])
    case tagOnOtherCommit(tag: String, tagged: String, expected: String)

    package var description: String {
      switch self {
      case .failed(let command, let directory, let output):
        let detail =
          output.split(separator: "\n").last.map { ": \($0.trimmingCharacters(in: .whitespaces))" } ?? ""
        // A remote's URL may carry a credential (one configured in .git/config, say): git
        // echoes it, and the command names it.
        return URLCredentials.redactingLocations(in: "\(command) in \(directory) failed\(detail)")
      case .dirty(let directory, let files):
        let shown = files.prefix(5).joined(separator: ", ") + (files.count > 5 ? ", …" : "")
        return
          "\(directory): the work tree has uncommitted changes (\(shown)); commit them or pass --allow-dirty"
      case .tagOnOtherCommit(let tag, let tagged, let expected):
        return
          "tag \(tag) already exists on commit \(tagged.prefix(12)), not on \(expected.prefix(12)), and was not made for this release; a released version never moves"
      }
    }
  }

  /// Variables that would point git at another repository, index or object store than
  /// `directory` (a git hook running the tool sets some of them).
  static let locationVariables = [
    "GIT_DIR", "GIT_WORK_TREE", "GIT_INDEX_FILE", "GIT_OBJECT_DIRECTORY", "GIT_ALTERNATE_OBJECT_DIRECTORIES",
    "GIT_COMMON_DIR", "GIT_NAMESPACE", "GIT_PREFIX", "GIT_CEILING_DIRECTORIES",
  ]

  /// `fixedIdentity`: commits and tags carry `fallbackIdentity` whatever the environment or
  /// configuration say (releases repositories: the same release gives the same commit on any
  /// machine). Otherwise the identity is git's own (environment, then configuration), and
  /// `fallbackIdentity` only where there is none.
  package init(
    _ directory: URL, runner: ProcessRunning, environment: [String: String], fixedIdentity: Bool = false
  ) {
    self.directory = directory
    self.runner = runner
    // Credentials never pass through (ChildEnvironment); prompts would hang a CI job.
    var environment = ChildEnvironment.withoutSecrets(environment)
    for key in Self.locationVariables { environment.removeValue(forKey: key) }
    environment["GIT_TERMINAL_PROMPT"] = "0"
    if fixedIdentity {
      environment["GIT_AUTHOR_NAME"] = Self.fallbackIdentity.name
      environment["GIT_AUTHOR_EMAIL"] = Self.fallbackIdentity.email
      environment["GIT_COMMITTER_NAME"] = Self.fallbackIdentity.name
      environment["GIT_COMMITTER_EMAIL"] = Self.fallbackIdentity.email
    }
    self.environment = environment
  }

  /// This repository with `fallbackIdentity` filled in for whatever part of the committer's
  /// (also the tagger's) and author's identity neither the environment nor git's configuration
  /// gives.
  package func withFallbackIdentity() -> GitRepository {
    var copy = self
    let configured = { (key: String) -> Bool in
      ((try? self.run(["config", "--get", key])) ?? "").isEmpty == false
    }
    let hasName = configured("user.name")
    let hasEmail = configured("user.email")
    for role in ["AUTHOR", "COMMITTER"] {
      if !hasName && environment["GIT_\(role)_NAME"] == nil {
        copy.environmentOverrides["GIT_\(role)_NAME"] = Self.fallbackIdentity.name
      }
      if !hasEmail && environment["GIT_\(role)_EMAIL"] == nil {
        copy.environmentOverrides["GIT_\(role)_EMAIL"] = Self.fallbackIdentity.email
      }
    }
    return copy
  }

  private var environmentOverrides: [String: String] = [:]

  /// Runs git in `directory`; the output with surrounding white space trimmed. `writeLimit`:
  /// the most git may write (a clone of a repository others push to), else it is stopped
  /// (`SystemError.wroteTooMuch`).
  @discardableResult
  package func run(
    _ arguments: [String], extraEnvironment: [String: String] = [:], writeLimit: WriteLimit? = nil
  ) throws -> String {
    try output(arguments, extraEnvironment: extraEnvironment, writeLimit: writeLimit)
      .trimmingCharacters(in: .whitespacesAndNewlines)
  }

  /// Runs git in `directory`; its standard output exactly as printed.
  func output(
    _ arguments: [String], extraEnvironment: [String: String] = [:], writeLimit: WriteLimit? = nil
  ) throws -> String {
    // Talking to a remote (push, fetch, ls-remote) may take a while; local git takes seconds.
    let remote = ["push", "fetch", "ls-remote", "clone"].contains(arguments.first ?? "")
    let invocation = ProcessInvocation(
      "git", arguments, in: directory,
      environment: environment.merging(environmentOverrides) { $1 }.merging(extraEnvironment) { $1 },
      timeLimit: remote ? 600 : ProcessInvocation.defaultTimeLimit, writeLimit: writeLimit)
    let result = try runner.run(invocation)
    guard result.exitCode == 0 else {
      throw GitError.failed(
        command: "git " + arguments.joined(separator: " "), directory: directory.path,
        output: result.standardError.isEmpty ? result.standardOutput : result.standardError)
    }
    return result.standardOutput
  }

  /// The commit a ref points at, or nil when it does not exist.
  package func commit(of ref: String) -> String? {
    try? run(["rev-parse", "--verify", "--quiet", "--end-of-options", ref + "^{commit}"])
  }

  package func head() throws -> String { try run(["rev-parse", "--verify", "HEAD^{commit}"]) }

  /// Whether `directory` is inside a git work tree.
  package func isWorkTree() -> Bool {
    (try? run(["rev-parse", "--is-inside-work-tree"])) == "true"
  }

  /// Changed, staged or untracked files (ignored ones, such as dist/, do not count), as
  /// paths relative to the repository's top level.
  func uncommittedChanges() throws -> [String] {
    // -z: no quoting of unusual names, and entries never trimmed (a leading space is part
    // of the two-letter status).
    let records = try output(["status", "--porcelain=v1", "-z", "--untracked-files=normal"])
      .split(separator: "\0", omittingEmptySubsequences: true)
    var files: [String] = []
    var index = 0
    while index < records.count {
      let record = records[index]
      let status = record.prefix(2)
      files.append(String(record.dropFirst(3)))
      // A rename or copy is followed by its source path.
      index += status.contains("R") || status.contains("C") ? 2 : 1
    }
    return files
  }

  package func requireClean() throws {
    let changes = try uncommittedChanges()
    if !changes.isEmpty { throw GitError.dirty(directory: directory.path, files: changes) }
  }

  /// A tag as it is in the repository.
  package struct Tag: Equatable {
    var name: String
    /// The tag object (annotated) or the commit (lightweight) the ref points at.
    package var object: String
    /// The commit it finally points at.
    package var commit: String
    var isAnnotated: Bool
  }

  /// Every tag of the repository by name, in one `git for-each-ref`.
  package func tags() throws -> [String: Tag] {
    let format = "%(refname)%00%(objecttype)%00%(objectname)%00%(*objecttype)%00%(*objectname)"
    var tags: [String: Tag] = [:]
    for line in try output(["for-each-ref", "--format=\(format)", "refs/tags"]).split(separator: "\n") {
      let fields = line.split(separator: "\0", omittingEmptySubsequences: false).map(String.init)
      guard fields.count == 5, fields[0].hasPrefix("refs/tags/") else { continue }
      let name = String(fields[0].dropFirst("refs/tags/".count))
      let annotated = fields[1] == "tag"
      var commit = annotated ? fields[4] : fields[2]
      // A tag of a tag, or of something that is not a commit: peel it fully.
      if annotated && fields[3] != "commit" || !annotated && fields[1] != "commit" {
        commit = self.commit(of: fields[0]) ?? ""
      }
      tags[name] = Tag(name: name, object: fields[2], commit: commit, isAnnotated: annotated)
    }
    return tags
  }

  /// The message of an annotated tag.
  package func message(ofTag tag: Tag) throws -> String {
    guard tag.isAnnotated else { return "" }
    let text = try output(["cat-file", "tag", tag.object])
    // Header lines, a blank line, then the message.
    guard let range = text.range(of: "\n\n") else { return "" }
    return String(text[range.upperBound...])
  }

  /// Creates an annotated tag on `commit`; a tag that already points there is fine (reruns are
  /// idempotent), one on another commit is an error. Returns whether a tag was created.
  @discardableResult
  package func tag(
    _ name: String, at commit: String, message: String, extraEnvironment: [String: String] = [:]
  )
    throws -> Bool
  {
    if let existing = self.commit(of: "refs/tags/\(name)") {
      guard existing == commit else {
        throw GitError.tagOnOtherCommit(tag: name, tagged: existing, expected: commit)
      }
      return false
    }
    // The name comes from input (a customer id, a version): after the end of options it can
    // only ever be a name, a bad one if it starts with '-'.
    try run(
      ["tag", "--annotate", "--cleanup=verbatim", "--message", message, "--end-of-options", name, commit],
      extraEnvironment: extraEnvironment)
    return true
  }

  /// The newest tag reachable from HEAD matching a glob, if any.
  package func latestTag(matching pattern: String) -> String? {
    try? run(["describe", "--tags", "--abbrev=0", "--match", pattern, "HEAD"])
  }
}
