import Foundation
import ReleaseCLITestSupport
import ReleaseSystem
import ReleaseTestSupport
import XCTest

@testable import ReleasePublishing

/// Issue 12, "credentials in URLs": a token in a URL travels into every package's README and
/// release.json, into `ps` and into error messages (measured: 14 files). Every URL the tool
/// takes from input refuses user info with a line that says where the credential belongs, and
/// the secret appears nowhere: not in the output, not in dist/, the cache or the state file.
final class CredentialsInURLEndToEndTests: XCTestCase {
  private let secret = "SECRET-\(UUID().uuidString.prefix(8))"

  private func assertRefused(
    _ arguments: [String], config: String? = nil, expected: String, file: StaticString = #filePath,
    line: UInt = #line
  ) throws {
    let workspace = try Workspace()
    if let config {
      try config.write(to: workspace.file("release.config.json"), atomically: true, encoding: .utf8)
    }
    let before = Workspace.snapshot(workspace.root)
    let run = workspace.run(arguments)
    XCTAssertEqual(run.exitCode, 2, run.allOutput, file: file, line: line)
    XCTAssertEqual(run.standardError.count, 1, run.allOutput, file: file, line: line)
    XCTAssertTrue(run.standardError.first?.contains(expected) == true, run.allOutput, file: file, line: line)
    XCTAssertFalse(
      run.allOutput.contains(secret), "the secret was printed: \(run.allOutput)", file: file, line: line)
    XCTAssertEqual(Workspace.snapshot(workspace.root), before, "nothing written", file: file, line: line)
    for (path, digest) in Workspace.snapshot(workspace.root) where digest != before[path] {
      XCTFail("\(path) changed", file: file, line: line)
    }
  }

  func testAGitDestinationWithATokenIsRefusedAndTheTokenAppearsNowhere() throws {
    try assertRefused(
      ["all", "--publish", "git:https://x:\(secret)@host.example/{id}.git"],
      expected:
        "--publish git:https://x:***@host.example/{id}.git: a credential in a URL ends up in every package's README, release.json and process list; remove it and let git find it (a credential helper, or an SSH key in ssh-agent)"
    )
    try assertRefused(
      ["all", "--publish", "git:ssh://git:\(secret)@host.example/{id}.git"],
      expected: "--publish git:ssh://git:***@host.example/{id}.git: a credential in a URL")
    try assertRefused(
      ["all", "--publish", "git:deploy:\(secret)@host.example:sdk/{id}.git"],
      expected: "--publish git:deploy:***@host.example:sdk/{id}.git: a credential in a URL")
    try assertRefused(
      ["all", "--publish", "git:https://\(secret)@host.example/{id}.git"],
      expected: "--publish git:https://***@host.example/{id}.git: a credential in a URL")
    try assertRefused(
      ["all"], config: #"{"publish": {"destinations": ["git:https://x:\#(secret)@host.example/{id}.git"]}}"#,
      expected:
        "release.config.json: publish.destinations[0]: --publish git:https://x:***@host.example/{id}.git")
  }

  func testPublicAndModelStoreURLsWithCredentialsAreRefused() throws {
    try assertRefused(
      ["all", "--publish", "dir:out", "--public-url", "https://user:\(secret)@cdn.example/sdk"],
      expected:
        "--public-url https://user:***@cdn.example/sdk: a credential in a URL ends up in every package and index; serve the destination without one"
    )
    try assertRefused(
      ["all", "--models", "https://user:\(secret)@models.example/store"],
      expected:
        "--models https://user:***@models.example/store: a credential in a URL shows in the process list and in messages; a model store URL must not carry one (use s3:// with the AWS_* variables for a private store)"
    )
    try assertRefused(
      ["all"], config: #"{"models": "https://\#(secret)@models.example/store"}"#,
      expected: "release.config.json: models: https://***@models.example/store: a credential in a URL")
  }

  /// `--remote` takes a URL too: a token there was accepted and printed twice in git's error
  /// (issue 12 audit).
  func testARemoteURLWithACredentialIsRefused() throws {
    for remote in [
      "https://x:\(secret)@host.example/project.git", "https://\(secret)@host.example/project.git",
      "deploy:\(secret)@host.example:project.git",
    ] {
      try assertRefused(
        ["all", "--tag", "--push", "--remote", remote],
        expected:
          "--remote \(URLCredentials.redacted(remote)): a credential in a URL shows in the process list and in git's messages; remove it and let git find it (a credential helper, or an SSH key in ssh-agent)"
      )
    }
  }

  /// A URL git prints back (a remote configured with a token, a failed push) is shown with its
  /// user info redacted, in the command and in git's own words.
  func testGitErrorsShowURLsWithoutTheirCredentials() throws {
    let runner = ScriptedProcessRunner()
    let secret = self.secret
    runner.on("git", "push") { _ in
      ProcessResult(
        exitCode: 128, standardOutput: "",
        standardError:
          "fatal: unable to access 'https://x:\(secret)@host.example/p.git/': Could not resolve host\n")
    }
    let directory = try TemporaryDirectory()
    let repository = GitRepository(directory.url, runner: runner, environment: [:])
    XCTAssertThrowsError(
      try repository.run(["push", "https://deploy:\(secret)@host.example/p.git", "refs/tags/v1"])
    ) { error in
      XCTAssertFalse("\(error)".contains(secret), "\(error)")
      XCTAssertTrue(
        "\(error)".contains("git push https://deploy:***@host.example/p.git refs/tags/v1"), "\(error)")
      XCTAssertTrue("\(error)".contains("'https://x:***@host.example/p.git/'"), "\(error)")
    }
  }

  /// The ordinary forms stay accepted: an SSH user without a password, a plain https URL.
  func testURLsWithoutCredentialsAreAccepted() throws {
    for text in [
      "git:git@host.example:sdk/{id}.git", "git:ssh://git@host.example/sdk/{id}.git",
      "git:https://host.example/{id}.git",
    ] {
      XCTAssertNoThrow(try PublishDestination.parse(text, s3Endpoint: nil, baseURL: nil), text)
    }
  }
}
