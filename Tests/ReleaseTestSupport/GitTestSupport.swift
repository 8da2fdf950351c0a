import Foundation
import ReleaseCore
import ReleaseSystem
import XCTest

/// A setup step that failed, with git's own words (fails the test, never skips it).
package struct GitSetupError: Error, CustomStringConvertible {
  package var description: String

  package init(description: String) { self.description = description }
}

/// Real git for tests: a fixed identity (CI machines have none) and no user or system
/// configuration, both for the fixtures' commands and for the runs of `release` under test.
package enum TestGit {
  package static let committer = (name: "Test Committer", email: "committer@example.com")

  package static let environment: [String: String] = [
    "GIT_AUTHOR_NAME": "Test Author", "GIT_AUTHOR_EMAIL": "author@example.com",
    "GIT_COMMITTER_NAME": committer.name, "GIT_COMMITTER_EMAIL": committer.email,
    "GIT_CONFIG_NOSYSTEM": "1", "GIT_CONFIG_GLOBAL": "/dev/null",
  ]

  /// Runs git in `directory`; its trimmed standard output. Throws with git's message when it
  /// fails.
  @discardableResult
  package static func run(_ arguments: [String], in directory: URL, environment extra: [String: String] = [:])
    throws
    -> String
  {
    try runProgram("git", arguments, in: directory, environment: extra)
      .trimmingCharacters(in: .whitespacesAndNewlines)
  }

  /// Runs `program` (git, or swift on a consumer of a releases repository) in `directory` with
  /// this identity; its standard output. Throws with the program's output when it fails.
  @discardableResult
  package static func runProgram(
    _ program: String, _ arguments: [String], in directory: URL, environment extra: [String: String] = [:]
  ) throws -> String {
    let environment = ProcessInfo.processInfo.environment.merging(Self.environment) { $1 }.merging(extra) {
      $1
    }
    // A TMPDIR of its own, as the tool runs its children: `swift` leaves folders in it.
    let result = try SystemProcessRunner().runWithOwnTemporaryDirectory(
      ProcessInvocation(program, arguments, in: directory, environment: environment))
    guard result.exitCode == 0 else {
      throw GitSetupError(
        description:
          "\(program) \(arguments.joined(separator: " ")) in \(directory.path): exit \(result.exitCode)\n"
          + result.standardOutput + result.standardError)
    }
    return result.standardOutput
  }

  /// `git init` on branch main with a `.gitignore` (dist/ by default) and one commit of
  /// everything.
  package static func initialize(
    _ directory: URL, ignoring ignored: [String] = ["dist/"], message: String = "Project"
  )
    throws
  {
    try (ignored.joined(separator: "\n") + "\n").write(
      to: directory.appendingPathComponent(".gitignore"), atomically: true, encoding: .utf8)
    try run(["init", "--quiet", "--initial-branch=main"], in: directory)
    try commitAll(directory, message: message)
  }

  package static func commitAll(_ directory: URL, message: String) throws {
    try run(["add", "--all"], in: directory)
    try run(["commit", "--quiet", "--allow-empty", "-m", message], in: directory)
  }

  package static func head(_ directory: URL) throws -> String {
    try run(["rev-parse", "HEAD"], in: directory)
  }

  /// Every ref below `refs/` → the object it points at.
  package static func refs(_ directory: URL) throws -> [String: String] {
    var refs: [String: String] = [:]
    for line in try run(["for-each-ref", "--format=%(refname) %(objectname)"], in: directory)
      .split(separator: "\n")
    {
      let fields = line.split(separator: " ").map(String.init)
      if fields.count == 2 { refs[fields[0]] = fields[1] }
    }
    return refs
  }

  /// Tag name → the object its ref points at.
  package static func tags(_ directory: URL) throws -> [String: String] {
    var tags: [String: String] = [:]
    for (ref, object) in try refs(directory) where ref.hasPrefix("refs/tags/") {
      tags[String(ref.dropFirst("refs/tags/".count))] = object
    }
    return tags
  }

  /// The commit a tag finally points at.
  package static func taggedCommit(_ tag: String, in directory: URL) throws -> String {
    try run(["rev-parse", "refs/tags/\(tag)^{commit}"], in: directory)
  }
}

extension Workspace {
  /// The SDK version of the workspace's state file (an input of the run).
  package func sdkVersion() throws -> SemanticVersion {
    try ReleaseState.load(from: file("release-state.json"), displayPath: "release-state.json").sdkVersion
  }
}

extension ScriptedProcessRunner {
  /// A runner that runs git for real (`keys generate` asks it whether the key is ignored) and
  /// fails the test on any other program.
  package static func realGit() -> ScriptedProcessRunner {
    let runner = ScriptedProcessRunner()
    runner.on("git") { try SystemProcessRunner().run($0) }
    return runner
  }
}
