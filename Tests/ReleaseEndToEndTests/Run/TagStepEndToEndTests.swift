import Foundation
import ReleaseCLITestSupport
import ReleaseSystem
import ReleaseTestSupport
import XCTest

@testable import ReleaseCLI
@testable import ReleaseCore

/// Tags in the project repository, with real git in temporary checkouts: `release customer
/// … --tag` on a clean checkout whose release-state.json records the release. Expected tag
/// names come from the inputs: a customer's first release gets the SDK version of the state
/// file the workspace starts from.
final class TagStepEndToEndTests: XCTestCase {
  func tagRun(_ workspace: Workspace, _ extra: [String] = [], customers: [String] = ["acme"]) -> Workspace.Run
  {
    workspace.run(
      ["customer"] + customers + ["--tag", "--skip-tests"] + extra, environment: TestGit.environment)
  }

  func testTagsTheRecordedReleaseOnHeadAndARerunOrALaterCommitChangesNoTag() throws {
    let workspace = try RecordedRelease.of(["acme", "bluebird"]).checkout()
    let root = workspace.root
    let sdk = try workspace.sdkVersion()
    let released = try TestGit.head(root)
    let distBefore = Workspace.snapshot(workspace.dist)

    let first = tagRun(workspace)
    XCTAssertEqual(first.exitCode, 0, first.allOutput)
    let tags = try TestGit.tags(root)
    XCTAssertEqual(Set(tags.keys), ["acme/v\(sdk)", "v\(sdk)"], first.allOutput)
    for name in tags.keys {
      XCTAssertEqual(
        try TestGit.run(["cat-file", "-t", "refs/tags/\(name)"], in: root), "tag", "\(name) is annotated")
      XCTAssertEqual(try TestGit.taggedCommit(name, in: root), released, "\(name) is on HEAD")
      XCTAssertEqual(
        try TestGit.run(
          ["for-each-ref", "--format=%(taggername) %(taggeremail)", "refs/tags/\(name)"], in: root),
        "\(TestGit.committer.name) <\(TestGit.committer.email)>", "the tagger is git's identity")
    }
    XCTAssertEqual(
      try TestGit.run(["for-each-ref", "--format=%(contents:subject)", "refs/tags/acme/v\(sdk)"], in: root),
      "ContextSDK_Acme \(sdk) (SDK \(sdk))")
    // The release was up to date: tagging built nothing, and the state file did not change.
    let releases = { (files: [String: String]) in
      files.filter { $0.key.hasPrefix("acme/") || $0.key.hasPrefix("bluebird/") }
    }
    XCTAssertEqual(releases(Workspace.snapshot(workspace.dist)), releases(distBefore))
    XCTAssertEqual(try TestGit.run(["status", "--porcelain"], in: root), "")

    // A rerun is idempotent: the same tag objects.
    let rerun = tagRun(workspace)
    XCTAssertEqual(rerun.exitCode, 0, rerun.allOutput)
    XCTAssertTrue(rerun.allOutput.contains("tags already in place"), rerun.allOutput)
    XCTAssertEqual(try TestGit.tags(root), tags)

    // A later commit that does not touch acme: the same release, its tags stay where they are.
    try "Notes\n".write(to: workspace.file("NOTES.md"), atomically: true, encoding: .utf8)
    try TestGit.commitAll(root, message: "Add notes")
    let later = tagRun(workspace)
    XCTAssertEqual(later.exitCode, 0, later.allOutput)
    XCTAssertEqual(try TestGit.tags(root), tags)
    XCTAssertEqual(try TestGit.taggedCommit("acme/v\(sdk)", in: root), released)
  }

  func testATagOnAnotherCommitForAnotherReleaseIsAnErrorAndNothingRuns() throws {
    let workspace = try RecordedRelease.of(["acme", "bluebird"]).checkout()
    let root = workspace.root
    let sdk = try workspace.sdkVersion()
    let first = tagRun(workspace)
    XCTAssertEqual(first.exitCode, 0, first.allOutput)
    let tagged = try TestGit.head(root)

    // Someone re-creates acme's tag by hand on a new commit; HEAD moves on once more.
    try "one\n".write(to: workspace.file("NOTES.md"), atomically: true, encoding: .utf8)
    try TestGit.commitAll(root, message: "Notes")
    let handMade = try TestGit.head(root)
    try TestGit.run(
      ["tag", "--force", "--annotate", "-m", "acme, by hand", "acme/v\(sdk)", handMade], in: root)
    try "two\n".write(to: workspace.file("NOTES.md"), atomically: true, encoding: .utf8)
    try TestGit.commitAll(root, message: "More notes")
    let tagsBefore = try TestGit.tags(root)
    let distBefore = Workspace.snapshot(workspace.dist)

    let moved = tagRun(workspace)
    XCTAssertEqual(moved.exitCode, 2, moved.allOutput)
    XCTAssertEqual(moved.standardError.count, 1, moved.allOutput)
    let message = try XCTUnwrap(moved.standardError.first)
    XCTAssertTrue(
      message.hasPrefix("error: tag acme/v\(sdk) already exists on commit \(handMade.prefix(12))"), message)
    XCTAssertTrue(message.contains("a released version never moves"), message)
    // Refused before any work: no tag changed, nothing built, nothing recorded.
    XCTAssertEqual(try TestGit.tags(root), tagsBefore)
    XCTAssertEqual(try TestGit.taggedCommit("v\(sdk)", in: root), tagged)
    XCTAssertEqual(Workspace.snapshot(workspace.dist), distBefore)
    XCTAssertEqual(try TestGit.run(["status", "--porcelain"], in: root), "")
  }

  func testADirtyWorkTreeIsRefusedInOneLineAndAllowDirtyTags() throws {
    let workspace = try RecordedRelease.of(["acme", "bluebird"]).checkout()
    let root = workspace.root
    let sdk = try workspace.sdkVersion()
    // A changed tracked file (not an input of the release) and a new untracked one.
    try "dist/\n*.swp\n".write(to: workspace.file(".gitignore"), atomically: true, encoding: .utf8)
    try "draft\n".write(to: workspace.file("draft notes.txt"), atomically: true, encoding: .utf8)
    let distBefore = Workspace.snapshot(workspace.dist)

    let refused = tagRun(workspace)
    XCTAssertEqual(refused.exitCode, 2, refused.allOutput)
    XCTAssertEqual(
      refused.standardError,
      [
        "error: \(root.path): the work tree has uncommitted changes (.gitignore, draft notes.txt); commit them or pass --allow-dirty"
      ])
    XCTAssertEqual(try TestGit.tags(root), [:])
    XCTAssertEqual(Workspace.snapshot(workspace.dist), distBefore)

    // A dry run shows the plan, and the refusal as part of it.
    let preview = tagRun(workspace, ["--dry-run"])
    XCTAssertEqual(preview.exitCode, 0, preview.allOutput)
    XCTAssertTrue(preview.standardOutput.contains { $0.contains("plan acme ") }, preview.allOutput)
    XCTAssertTrue(
      preview.standardOutput.contains {
        $0.hasSuffix(
          "would refuse: \(root.path): the work tree has uncommitted changes (.gitignore, draft notes.txt); commit them or pass --allow-dirty"
        )
      }, preview.allOutput)
    XCTAssertEqual(try TestGit.tags(root), [:])
    XCTAssertEqual(Workspace.snapshot(workspace.dist), distBefore)

    let allowed = tagRun(workspace, ["--allow-dirty"])
    XCTAssertEqual(allowed.exitCode, 0, allowed.allOutput)
    XCTAssertEqual(Set(try TestGit.tags(root).keys), ["acme/v\(sdk)", "v\(sdk)"])
    XCTAssertEqual(try TestGit.taggedCommit("acme/v\(sdk)", in: root), try TestGit.head(root))
  }

  /// The release-please flow: a run that would record new versions cannot tag (HEAD does not
  /// hold them); release without tags, commit the state file, then tag that commit.
  func testTagsGoOnTheCommitThatRecordsTheRelease() throws {
    let recorded = try RecordedRelease.of(["acme", "bluebird"])
    let workspace = try recorded.checkout()
    let root = workspace.root
    let sdk = try workspace.sdkVersion()
    // The state the workspace started from, without acme: dist/ still holds acme's release.
    let unrecorded = #"{"sdkVersion": "\#(sdk)", "customers": {}}"#
    try unrecorded.write(to: workspace.file("release-state.json"), atomically: true, encoding: .utf8)
    try TestGit.commitAll(root, message: "Forget the release")

    let refused = tagRun(workspace)
    XCTAssertEqual(refused.exitCode, 2, refused.allOutput)
    XCTAssertEqual(refused.standardError.count, 1, refused.allOutput)
    XCTAssertTrue(
      refused.standardError[0].hasPrefix("error: release-state.json does not record acme \(sdk) yet"),
      refused.allOutput)
    XCTAssertEqual(try TestGit.tags(root), [:])
    XCTAssertEqual(try String(contentsOf: workspace.file("release-state.json"), encoding: .utf8), unrecorded)

    // Release without tags: the state file records acme; commit it, then tag.
    let record = workspace.run(["customer", "acme", "--skip-tests"], environment: TestGit.environment)
    XCTAssertEqual(record.exitCode, 0, record.allOutput)
    let state = try ReleaseState.load(from: workspace.file("release-state.json"), displayPath: "state")
    XCTAssertEqual(state.customers["acme"]?.version, sdk)
    try TestGit.commitAll(root, message: "Release acme \(sdk)")
    let releaseCommit = try TestGit.head(root)

    let tagged = tagRun(workspace)
    XCTAssertEqual(tagged.exitCode, 0, tagged.allOutput)
    XCTAssertEqual(Set(try TestGit.tags(root).keys), ["acme/v\(sdk)", "v\(sdk)"])
    XCTAssertEqual(try TestGit.taggedCommit("acme/v\(sdk)", in: root), releaseCommit)
    // The tagged commit holds the state that records the release.
    let committedState = try TestGit.run(["show", "acme/v\(sdk):release-state.json"], in: root)
    XCTAssertEqual(
      try JSONDecoder().decode(ReleaseState.self, from: Data(committedState.utf8)).customers["acme"]?.version,
      sdk)
  }

  func testAFailedCustomerMeansNoTagsAtAll() throws {
    let workspace = try RecordedRelease.of(["acme", "bluebird"]).checkout()
    let root = workspace.root
    // bluebird's release directory is in the way of a file: its stage step fails, acme is fine.
    try FileManager.default.removeItem(at: workspace.dist.appendingPathComponent("bluebird"))
    try Data("in the way\n".utf8).write(to: workspace.dist.appendingPathComponent("bluebird"))
    let stateBefore = try Data(contentsOf: workspace.file("release-state.json"))

    let run = tagRun(workspace, ["--json"], customers: ["acme", "bluebird"])
    XCTAssertEqual(run.exitCode, 1, run.allOutput)
    let summary = try XCTUnwrap(run.events.last { $0["event"] as? String == "summary" }, run.allOutput)
    let statuses = Dictionary(
      uniqueKeysWithValues: (summary["customers"] as? [[String: Any]] ?? []).map {
        ($0["id"] as? String ?? "?", $0["status"] as? String ?? "?")
      })
    XCTAssertEqual(statuses, ["acme": "up to date", "bluebird": "failed"], run.allOutput)
    let failure = try XCTUnwrap(
      run.events.first { $0["event"] as? String == "customer_failed" }, run.allOutput)
    XCTAssertEqual(failure["failed_step"] as? String, "stage", run.allOutput)
    XCTAssertEqual(try TestGit.tags(root), [:], "no tag when a customer failed")
    XCTAssertEqual(try Data(contentsOf: workspace.file("release-state.json")), stateBefore)
  }

  func testPushSendsExactlyTheRunsTagsAndWithoutPushNothingLeaves() throws {
    let workspace = try RecordedRelease.of(["acme", "bluebird"]).checkout()
    let root = workspace.root
    let sdk = try workspace.sdkVersion()
    let remote = workspace.file("remote.git")
    try FileManager.default.createDirectory(at: remote, withIntermediateDirectories: true)
    try TestGit.run(["init", "--quiet", "--bare"], in: remote)
    try TestGit.run(["remote", "add", "origin", remote.path], in: root)
    // remote.git sits in the work tree: ignore it, and keep a local tag that is not the run's.
    try "dist/\nremote.git/\n".write(to: workspace.file(".gitignore"), atomically: true, encoding: .utf8)
    try TestGit.commitAll(root, message: "Ignore the remote")
    try TestGit.run(["tag", "--annotate", "-m", "not a release", "experiment"], in: root)
    let remoteBefore = Workspace.snapshot(remote)

    let local = tagRun(workspace)
    XCTAssertEqual(local.exitCode, 0, local.allOutput)
    XCTAssertEqual(Set(try TestGit.tags(root).keys), ["acme/v\(sdk)", "v\(sdk)", "experiment"])
    XCTAssertEqual(Workspace.snapshot(remote), remoteBefore, "without --push the remote is untouched")
    XCTAssertEqual(try TestGit.refs(remote), [:])

    let pushed = tagRun(workspace, ["--push"])
    XCTAssertEqual(pushed.exitCode, 0, pushed.allOutput)
    let localTags = try TestGit.tags(root)
    XCTAssertEqual(
      try TestGit.refs(remote),
      [
        "refs/tags/acme/v\(sdk)": try XCTUnwrap(localTags["acme/v\(sdk)"]),
        "refs/tags/v\(sdk)": try XCTUnwrap(localTags["v\(sdk)"]),
      ], "exactly the run's tags, the same tag objects, no branch")

    // Pushing again changes nothing.
    let again = tagRun(workspace, ["--push"])
    XCTAssertEqual(again.exitCode, 0, again.allOutput)
    XCTAssertEqual(Set(try TestGit.refs(remote).keys), ["refs/tags/acme/v\(sdk)", "refs/tags/v\(sdk)"])
  }

  func testWithoutAnyGitIdentityTheTagsAreMadeByRelease() throws {
    let workspace = try RecordedRelease.of(["acme", "bluebird"]).checkout()
    let root = workspace.root
    let sdk = try workspace.sdkVersion()
    // As on a CI machine: no identity in the environment or in any git configuration.
    var environment = ProcessInfo.processInfo.environment.filter {
      !$0.key.hasPrefix("GIT_AUTHOR_") && !$0.key.hasPrefix("GIT_COMMITTER_") && $0.key != "EMAIL"
    }
    environment["GIT_CONFIG_NOSYSTEM"] = "1"
    environment["GIT_CONFIG_GLOBAL"] = "/dev/null"
    environment["CI"] = "true"
    let output = CapturedOutput()
    let services = Services(
      processRunner: SystemProcessRunner(), clock: SystemClock(), root: root, environment: environment,
      output: output)
    let code = CommandLineInterface.main(
      arguments: ["customer", "acme", "--tag", "--skip-tests", "--cache", Workspace.sharedCache.path],
      services: services)
    XCTAssertEqual(code, 0, (output.standardOutput + output.standardError).joined(separator: "\n"))
    XCTAssertEqual(
      try TestGit.run(
        ["for-each-ref", "--format=%(taggername) %(taggeremail)", "refs/tags/acme/v\(sdk)"], in: root),
      "release <release@localhost>")
  }

  func testTaggingOutsideAGitWorkTreeIsBadInput() throws {
    let workspace = try Workspace()
    let run = tagRun(workspace)
    XCTAssertEqual(run.exitCode, 2, run.allOutput)
    XCTAssertEqual(
      run.standardError,
      [
        "error: --tag: \(workspace.root.path) is not in a git work tree; tags go into the project repository (git init and commit it, or release without --tag/--publish)"
      ])
    XCTAssertFalse(FileManager.default.fileExists(atPath: workspace.dist.appendingPathComponent("acme").path))
  }
}
