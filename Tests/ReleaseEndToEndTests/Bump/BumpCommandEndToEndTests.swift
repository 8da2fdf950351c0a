import Foundation
import ReleaseCLITestSupport
import ReleaseGeneration
import ReleaseSystem
import ReleaseTestSupport
import XCTest

@testable import ReleaseBump
@testable import ReleaseCLI
@testable import ReleaseCore

/// `release bump` on a fixture repository (Tests/Fixtures/Bump/repo) committed in a temporary
/// git repository with history and a `v2.4.0` tag, with a fixed clock: `git diff` after the
/// bump must equal the reviewed golden `Tests/Fixtures/Bump/expected.diff`. After a deliberate
/// change, `UPDATE_GOLDEN=1 swift test --filter BumpCommandEndToEndTests` rewrites it (review the diff).
final class BumpCommandEndToEndTests: XCTestCase {
  static let fixtures = RepositoryRoot.url.appendingPathComponent("Tests/Fixtures/Bump")
  static let golden = fixtures.appendingPathComponent("expected.diff")

  struct Run {
    var exitCode: Int32
    var standardOutput: [String]
    var standardError: [String]
    var all: String { (standardOutput + standardError).joined(separator: "\n") }
    /// What was printed on stdout, as the bytes a terminal receives.
    var printed: String { standardOutput.map { $0 + "\n" }.joined() }
  }

  /// `release bump …` in-process, in `root`, at the fixed instant of `ManualClock`.
  func bump(_ arguments: [String], in root: URL) -> Run {
    let output = CapturedOutput()
    let services = Services(
      processRunner: SystemProcessRunner(), clock: ManualClock(), root: root,
      environment: ProcessInfo.processInfo.environment.merging(TestGit.environment) { $1 }, output: output)
    let code = CommandLineInterface.main(arguments: ["bump"] + arguments, services: services)
    return Run(exitCode: code, standardOutput: output.standardOutput, standardError: output.standardError)
  }

  /// The fixture, committed as the 2.4.0 release and tagged `v2.4.0`, then three commits (one
  /// of them a merge) that the new CHANGELOG section lists. Commit dates are fixed and
  /// increasing, so `git log` has one order.
  func fixtureRepository(tagged: Bool = true) throws -> TemporaryDirectory {
    let directory = try TemporaryDirectory()
    let root = directory.url
    for item in try FileManager.default.contentsOfDirectory(
      atPath: Self.fixtures.appendingPathComponent("repo").path)
    {
      try FileManager.default.copyItem(
        at: Self.fixtures.appendingPathComponent("repo").appendingPathComponent(item),
        to: root.appendingPathComponent(item))
    }
    var second = 1_780_000_000
    func dated() -> [String: String] {
      second += 60
      return ["GIT_AUTHOR_DATE": "@\(second) +0000", "GIT_COMMITTER_DATE": "@\(second) +0000"]
    }
    func commit(_ message: String, writing file: String, _ text: String) throws {
      let url = root.appendingPathComponent(file)
      try FileManager.default.createDirectory(
        at: url.deletingLastPathComponent(), withIntermediateDirectories: true)
      try text.write(to: url, atomically: true, encoding: .utf8)
      try TestGit.run(["add", "--all"], in: root)
      try TestGit.run(["commit", "--quiet", "-m", message], in: root, environment: dated())
    }
    try TestGit.run(["init", "--quiet", "--initial-branch=main"], in: root)
    try commit("Release 2.4.0", writing: ".gitignore", "dist/\n")
    if tagged {
      try TestGit.run(["tag", "--annotate", "-m", "SDK 2.4.0", "v2.4.0"], in: root, environment: dated())
    }
    try commit("Cache downloaded models for offline use", writing: "docs/offline.md", "Offline\n")
    try TestGit.run(["checkout", "--quiet", "-b", "docs"], in: root)
    try commit("Document the model resolver", writing: "docs/resolver.md", "Resolver\n")
    try TestGit.run(["checkout", "--quiet", "main"], in: root)
    try commit(
      "Fix the bundle identifier check for app extensions", writing: "docs/extensions.md", "Extensions\n")
    try TestGit.run(
      ["merge", "--quiet", "--no-ff", "-m", "Merge branch 'docs'", "docs"], in: root, environment: dated())
    return directory
  }

  func testBumpMinorMatchesTheGoldenDiffAndDryRunPrintsItWritingNothing() throws {
    let repository = try fixtureRepository()
    let root = repository.url
    let stateBefore = try ReleaseState.load(
      from: root.appendingPathComponent("release-state.json"), displayPath: "s")

    let dryRun = bump(["minor", "--dry-run"], in: root)
    XCTAssertEqual(dryRun.exitCode, 0, dryRun.all)
    XCTAssertEqual(try TestGit.run(["status", "--porcelain"], in: root), "", "--dry-run writes nothing")

    let run = bump(["minor"], in: root)
    XCTAssertEqual(run.exitCode, 0, run.all)
    let diff = try TestGit.run(["diff", "--no-color"], in: root) + "\n"

    if ProcessInfo.processInfo.environment["UPDATE_GOLDEN"] == "1" {
      try diff.write(to: Self.golden, atomically: true, encoding: .utf8)
      print("BumpCommandEndToEndTests: rewrote \(Self.golden.path)")
    }
    let golden = try String(contentsOf: Self.golden, encoding: .utf8)
    XCTAssertEqual(diff, golden, "git diff after the bump differs from \(Self.golden.path)")
    XCTAssertEqual(run.printed, golden, "the bump prints the diff it makes")
    XCTAssertEqual(dryRun.printed, golden, "--dry-run prints the same diff")
    XCTAssertEqual(dryRun.standardError.count, 1, dryRun.all)
    XCTAssertTrue(dryRun.standardError[0].contains("not written"), dryRun.all)

    // One consistent change: the state and the template constant agree on the next minor
    // version, every customer keeps its version, and only the expected files changed.
    let old = stateBefore.sdkVersion
    let new = SemanticVersion(old.major, old.minor + 1, 0)
    let state = try ReleaseState.load(
      from: root.appendingPathComponent("release-state.json"), displayPath: "s")
    XCTAssertEqual(state.sdkVersion, new)
    XCTAssertEqual(state.customers, stateBefore.customers)
    XCTAssertEqual(
      try PackageGenerator.templateSDKVersion(root.appendingPathComponent("templates/ContextSDK")),
      new.description)
    XCTAssertEqual(
      Set(try TestGit.run(["diff", "--name-only"], in: root).split(separator: "\n")),
      [
        "CHANGELOG.md", "README.md", "release-state.json",
        "templates/ContextSDK/Sources/ContextSDKCore/SDKVersion.swift",
      ])
  }

  func testABadPartOrDisagreeingVersionsAreExitTwoAndWriteNothing() throws {
    let repository = try fixtureRepository()
    let root = repository.url
    for (arguments, message) in [
      (["mini"], "error: bump: expected one of major, minor, patch; found \"mini\""),
      ([], "error: bump: expected one of major, minor, patch; found nothing"),
      (["minor", "patch"], "error: bump: expected one of major, minor, patch; found \"minor patch\""),
    ] {
      let run = bump(arguments, in: root)
      XCTAssertEqual(run.exitCode, 2, "\(arguments): \(run.all)")
      XCTAssertEqual(run.standardError, [message], "\(arguments)")
      XCTAssertEqual(run.standardOutput, [], "\(arguments)")
    }
    XCTAssertEqual(try TestGit.run(["status", "--porcelain"], in: root), "")

    // A template whose constant is not the state's version: refused, nothing written.
    let versionFile = root.appendingPathComponent(
      "templates/ContextSDK/Sources/ContextSDKCore/SDKVersion.swift")
    let text = try String(contentsOf: versionFile, encoding: .utf8)
    try text.replacingOccurrences(of: "\"2.4.0\"", with: "\"2.3.9\"").write(
      to: versionFile, atomically: true, encoding: .utf8)
    let disagreeing = bump(["patch"], in: root)
    XCTAssertEqual(disagreeing.exitCode, 2, disagreeing.all)
    XCTAssertEqual(
      disagreeing.standardError,
      [
        "error: templates/ContextSDK/Sources/ContextSDKCore/SDKVersion.swift: contextSDKVersion is 2.3.9 but release-state.json has sdkVersion 2.4.0; make them agree before bumping"
      ])
    XCTAssertEqual(
      try TestGit.run(["status", "--porcelain"], in: root),
      "M templates/ContextSDK/Sources/ContextSDKCore/SDKVersion.swift", "only the file the test changed")
  }

  /// The real template, bumped, still generates: `release customer --dry-run` loads it (the
  /// template's constant must equal the state's version) and plans the new version.
  func testTheBumpedTemplateStillGeneratesAndAMissingChangelogIsCreated() throws {
    let workspace = try Workspace()
    try TestGit.initialize(workspace.root)
    let old = try workspace.sdkVersion()
    let new = SemanticVersion(old.major, old.minor, old.patch + 1)

    let run = bump(["patch"], in: workspace.root)
    XCTAssertEqual(run.exitCode, 0, run.all)
    XCTAssertTrue(
      run.printed.contains("diff --git a/CHANGELOG.md b/CHANGELOG.md\nnew file mode 100644\n"), run.all)
    let changelog = try String(contentsOf: workspace.file("CHANGELOG.md"), encoding: .utf8)
    // The workspace's one commit set the version constant: nothing since.
    let commit = try TestGit.run(["rev-parse", "--short=12", "HEAD"], in: workspace.root)
    XCTAssertEqual(
      changelog, "# Changelog\n\n## \(new) - 2027-01-15\n\n- No changes since commit \(commit).\n")
    XCTAssertEqual(try workspace.sdkVersion(), new)

    let plan = workspace.run(["customer", "acme", "--dry-run"])
    XCTAssertEqual(plan.exitCode, 0, plan.allOutput)
    XCTAssertTrue(plan.standardOutput.contains { $0.contains("plan acme \(new): build") }, plan.allOutput)

    XCTAssertNoThrow(
      try PackageTemplate.load(workspace.file("templates/ContextSDK")).checkSDKVersion(
        expected: new.description))
  }

  /// The "Models over the air" examples (docs/over-the-air.md: a signal catalog, an error
  /// message, a manifest) show versions that are history, not the SDK version a reader copies:
  /// the bump of the repository's own documentation, from its current SDK version, must leave
  /// that page as it is.
  func testBumpingTheRepositoryReadmeLeavesTheOverTheAirExamplesAlone() throws {
    func read(_ path: String) throws -> String {
      try String(contentsOf: RepositoryRoot.url.appendingPathComponent(path), encoding: .utf8)
    }
    let overTheAir = try read("docs/over-the-air.md")
    XCTAssertTrue(overTheAir.hasPrefix("# Models over the air"), "the page the examples are on")
    let current = try ReleaseState.load(
      from: RepositoryRoot.url.appendingPathComponent("release-state.json"), displayPath: "release-state.json"
    ).sdkVersion
    for part in [SemanticVersion.Part.major, .minor, .patch] {
      let bumped = VersionBump.replacingInCodeBlocks(
        overTheAir, current.description, with: current.bumped(part).description)
      XCTAssertEqual(bumped, overTheAir, "\(part) bump from \(current)")
    }
    let services = Services(
      processRunner: SystemProcessRunner(), clock: ManualClock(), root: RepositoryRoot.url,
      environment: [:], output: CapturedOutput())
    let documents = VersionBump(
      services: services, statePath: "release-state.json", templatesPath: "templates/ContextSDK"
    ).documentationPaths
    XCTAssertTrue(documents.contains("docs/over-the-air.md"), "\(documents)")
    XCTAssertTrue(
      try documents.map(read).contains {
        VersionBump.replacingInCodeBlocks($0, current.description, with: "99.0.0") != $0
      },
      "the docs' code blocks do show the current version elsewhere")
  }

  /// `release bump` writes the state file under the lock every run records under, and applies
  /// its change to what the file holds then: a run that records a customer while the bump is
  /// under way (here: as soon as the bump lists the commits for the CHANGELOG) keeps its record.
  func testABumpKeepsARecordMadeWhileItRuns() throws {
    let repository = try fixtureRepository()
    let root = repository.url
    let stateFile = root.appendingPathComponent("release-state.json")
    let recorded = DispatchSemaphore(value: 0)
    let runner = HookedProcessRunner { invocation in
      guard invocation.program == "git", invocation.arguments.first == "log" else { return }
      // Another run recording cobalt as WriteStateStep does: the state file's lock, a re-read.
      Thread.detachNewThread {
        defer { recorded.signal() }
        do {
          let lock = try FileLock(root.appendingPathComponent(".release-state.json.lock"), timeout: 30)
          var state = try ReleaseState.load(from: stateFile, displayPath: "release-state.json")
          state.customers["cobalt"] = .init(version: SemanticVersion(2, 4, 0), sourceDigest: "cobalt-digest")
          try state.write(to: stateFile)
          withExtendedLifetime(lock) {}
        } catch {
          XCTFail("the concurrent record failed: \(error)")
        }
      }
      // Give it the time to record when nothing holds the lock (the bump does, once fixed);
      // once it has, leave the signal for the check below.
      if recorded.wait(timeout: .now() + 2) == .success { recorded.signal() }
    }
    let output = CapturedOutput()
    let services = Services(
      processRunner: runner, clock: ManualClock(), root: root,
      environment: ProcessInfo.processInfo.environment.merging(TestGit.environment) { $1 }, output: output)
    XCTAssertEqual(CommandLineInterface.main(arguments: ["bump", "minor"], services: services), 0)
    // The concurrent record has finished (it waited for the bump's lock, if it had to).
    XCTAssertEqual(recorded.wait(timeout: .now() + 40), .success)
    let state = try ReleaseState.load(from: stateFile, displayPath: "release-state.json")
    XCTAssertEqual(state.sdkVersion, SemanticVersion(2, 5, 0), "the bump's change")
    XCTAssertEqual(state.customers["cobalt"]?.version, SemanticVersion(2, 4, 0), "the other run's record")
    XCTAssertEqual(Set(state.customers.keys), ["acme", "bluebird", "cobalt"])
  }
}

extension BumpCommandEndToEndTests {
  /// The range of commits listed for the CHANGELOG comes from a tag name: git takes it after
  /// `--end-of-options`, so it is never an option.
  func testTheCommitRangeIsNeverAnOption() throws {
    let repository = try fixtureRepository()
    let logs = Locked<[[String]]>([])
    let runner = HookedProcessRunner { invocation in
      if invocation.program == "git", invocation.arguments.first == "log" {
        logs.withLock { $0.append(invocation.arguments) }
      }
    }
    let services = Services(
      processRunner: runner, clock: ManualClock(), root: repository.url,
      environment: ProcessInfo.processInfo.environment.merging(TestGit.environment) { $1 },
      output: CapturedOutput())
    XCTAssertEqual(
      CommandLineInterface.main(arguments: ["bump", "minor", "--dry-run"], services: services), 0)
    XCTAssertEqual(logs.value.count, 1)
    let arguments = logs.value.first ?? []
    XCTAssertEqual(Array(arguments.suffix(2)), ["--end-of-options", "v2.4.0..HEAD"], "\(arguments)")
  }
}

/// Where the CHANGELOG's commits start when the repository has no `v*` tag, or when the
/// person bumping names the start.
extension BumpCommandEndToEndTests {
  /// No tag at all (a repository that never tagged an SDK version): the new section lists the
  /// commits after the one that wrote the 2.4.0 section, the same three as after a tag, not
  /// every commit ever made. Without that section either, the commits after the one that set
  /// the template's version constant to 2.4.0 (the fixture's first).
  func testWithoutATagTheCommitsStartAfterThePreviousVersionsOwnCommit() throws {
    let repository = try fixtureRepository(tagged: false)
    let root = repository.url
    XCTAssertEqual(try TestGit.run(["tag", "--list"], in: root), "", "no tag")
    let run = bump(["minor"], in: root)
    XCTAssertEqual(run.exitCode, 0, run.all)
    let golden = try String(contentsOf: Self.golden, encoding: .utf8)
    XCTAssertEqual(try TestGit.run(["diff", "--no-color"], in: root) + "\n", golden)

    try TestGit.run(["checkout", "--quiet", "--", "."], in: root)
    try "# Changelog\n".write(
      to: root.appendingPathComponent("CHANGELOG.md"), atomically: true, encoding: .utf8)
    try TestGit.run(["commit", "--quiet", "--all", "-m", "Start the changelog again"], in: root)
    let withoutSection = bump(["patch"], in: root)
    XCTAssertEqual(withoutSection.exitCode, 0, withoutSection.all)
    XCTAssertEqual(
      try changelog(root),
      """
      # Changelog

      ## 2.4.1 - 2027-01-15

      - Start the changelog again
      - Fix the bundle identifier check for app extensions
      - Document the model resolver
      - Cache downloaded models for offline use

      """)
  }

  /// `--since <ref>` overrides the tag; a ref that is no commit is refused (exit 2), naming
  /// the argument, and nothing is written.
  func testSinceNamesTheStartAndAnUnknownRefIsRefused() throws {
    let repository = try fixtureRepository()
    let root = repository.url
    let unknown = bump(["minor", "--since", "no-such-release"], in: root)
    XCTAssertEqual(unknown.exitCode, 2, unknown.all)
    XCTAssertEqual(
      unknown.standardError,
      [
        "error: bump: --since \"no-such-release\" is not a commit of this repository; expected a commit, tag or branch (the last commit of the previous SDK version)"
      ])
    XCTAssertEqual(try TestGit.run(["status", "--porcelain"], in: root), "", "nothing written")

    let start = try TestGit.run(["log", "-1", "--format=%H", "--grep=Document the model resolver"], in: root)
    let run = bump(["minor", "--since", start], in: root)
    XCTAssertEqual(run.exitCode, 0, run.all)
    let section = try changelog(root).components(separatedBy: "## 2.4.0")[0]
    XCTAssertTrue(
      section.hasSuffix("## 2.5.0 - 2027-01-15\n\n- Fix the bundle identifier check for app extensions\n\n"),
      section)
  }

  private func changelog(_ root: URL) throws -> String {
    try String(contentsOf: root.appendingPathComponent("CHANGELOG.md"), encoding: .utf8)
  }
}

/// The real process runner, calling `hook` before each process it starts.
final class HookedProcessRunner: ProcessRunning {
  private let hook: @Sendable (ProcessInvocation) -> Void
  init(hook: @escaping @Sendable (ProcessInvocation) -> Void) { self.hook = hook }

  func run(_ invocation: ProcessInvocation) throws -> ProcessResult {
    hook(invocation)
    return try SystemProcessRunner().run(invocation)
  }
}
