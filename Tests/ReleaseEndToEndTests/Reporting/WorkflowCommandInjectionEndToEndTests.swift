import Foundation
import ReleaseCLITestSupport
import ReleaseSystem
import ReleaseTestSupport
import XCTest

@testable import ReleasePipeline
@testable import ReleaseReporting

/// Issue 12, "GitHub Actions commands from build logs": the runner trims leading whitespace
/// before looking for `::` and splits lines on a bare `\r`, so `  ::add-mask::x`,
/// `\t::warning::x` and `prefix\r::notice::x` in a build log are executed (measured). Each log
/// group is fenced with `::stop-commands::<token>` … `::<token>::`, with a fresh random token
/// that is not in the log.
final class WorkflowCommandInjectionEndToEndTests: XCTestCase {
  func testALogCannotRunWorkflowCommands() throws {
    let directory = try TemporaryDirectory()
    let log = directory.url.appendingPathComponent("acme.log")
    let planted = [
      "  ::add-mask::acme", "\t::warning::x", "prefix\r::notice::x", "::error::y", "::endgroup::",
    ]
    try (["Compiling…"] + planted + ["Build complete!"]).joined(separator: "\n").write(
      to: log, atomically: true, encoding: .utf8)
    let output = CapturedOutput()
    let reporter = GitHubActionsReporter(output: output, stepSummary: nil, root: directory.url)
    let outcome = ReleaseEvent.CustomerOutcome(
      id: "acme", version: "2.4.0", status: .failed, seconds: 1, artifact: nil, sha256: nil, testCount: nil,
      failedStep: "build and test", reason: "boom\r\n::warning::z", logFile: log.path)
    reporter.report(.customerFinished(outcome))
    reporter.report(.customerFinished(outcome))

    // What the runner sees: every line of every write, split as it splits (on \n and bare \r).
    let lines = output.standardOutput.joined(separator: "\n").split(omittingEmptySubsequences: false) {
      $0 == "\n" || $0 == "\r" || $0 == "\r\n"
    }.map(String.init)
    var tokens: [String] = []
    var fenced: String?
    for line in lines {
      let trimmed = line.trimmingCharacters(in: .whitespaces)
      if let token = fenced {
        if trimmed == "::\(token)::" { fenced = nil }
        continue
      }
      guard trimmed.hasPrefix("::") else { continue }
      if trimmed.hasPrefix("::stop-commands::") {
        let token = String(trimmed.dropFirst("::stop-commands::".count))
        tokens.append(token)
        fenced = token
        continue
      }
      // Outside a fence, only the reporter's own commands.
      XCTAssertTrue(
        trimmed.hasPrefix("::group::") || trimmed == "::endgroup::"
          || trimmed.hasPrefix("::error title=release acme::"),
        "executable outside a fence: \(line.debugDescription)")
    }
    XCTAssertNil(fenced, "a fence was left open")
    XCTAssertEqual(tokens.count, 2, "one fence per log group")
    XCTAssertNotEqual(tokens[0], tokens[1], "a fresh token per group")
    let logText = try String(contentsOf: log, encoding: .utf8)
    for token in tokens {
      XCTAssertGreaterThanOrEqual(token.count, 32)
      XCTAssertFalse(logText.contains(token))
    }
    // The failure annotation's message is escaped: its \r\n cannot start a new command.
    XCTAssertTrue(
      output.standardOutput.contains { $0.contains("boom%0D%0A::warning::z") },
      output.standardOutput.joined(separator: "\n"))
  }
}

/// Every property of a workflow command is escaped (`%`, CR, LF, `:` and `,`): a title that
/// held `::` or `,` would end the properties early or add one.
final class WorkflowCommandPropertyTests: XCTestCase {
  func testTheFailureAnnotationsTitleIsEscapedAsAProperty() {
    let output = CapturedOutput(workflowCommands: true)
    let reporter = GitHubActionsReporter(output: output, stepSummary: nil, root: URL(fileURLWithPath: "/"))
    let outcome = ReleaseEvent.CustomerOutcome(
      id: "a:b,c%d\n::warning::x", version: "2.4.0", status: .failed, seconds: 1, artifact: nil, sha256: nil,
      testCount: nil, failedStep: "build and test", reason: "boom", logFile: nil)
    reporter.report(.customerFinished(outcome))
    XCTAssertEqual(
      output.standardOutput.first?.hasPrefix("::error title=release a%3Ab%2Cc%25d%0A%3A%3Awarning%3A%3Ax::"),
      true,
      output.standardOutput.joined(separator: "\n"))
  }
}

/// Issue 12, workflow commands from values that are not logs: a line break in a release.json
/// field or a zip entry name, or a log tail `release verify` prints, must not put a command on a
/// line of its own outside a `::stop-commands::` fence. Driven through the real executable under
/// `GITHUB_ACTIONS=true`, as the runner would see it.
final class WorkflowCommandsFromOutsideEndToEndTests: XCTestCase {
  private static let injected = "::warning title=x::INJECTED"

  /// A workspace with acme (and bluebird) built (no tests) and committed: a copy of the test
  /// process's one fixture build, which is all these tests plant in.
  private func built() throws -> (Workspace, release: URL) {
    let workspace = try BuiltFixture.shared.get().copy()
    return (workspace, workspace.dist.appendingPathComponent("acme/\(Workspace.sdk)"))
  }

  private func run(_ arguments: [String], in workspace: Workspace, path: String? = nil) throws -> BinaryRun {
    var environment = ["GITHUB_ACTIONS": "true"]
    if let path { environment["PATH"] = path }
    return try ReleaseBinary.run(
      arguments
        + (["all", "customer"].contains(arguments[0]) ? ["--cache", Workspace.sharedCache.path] : []),
      in: workspace.root, environment: environment, timeout: 300)
  }

  /// The lines the runner would execute as commands: split as it splits (LF, CRLF, a bare CR),
  /// trimmed, starting with `::`, outside every `::stop-commands::` fence. Also the fenced lines.
  private func commands(in text: String) -> (unfenced: [String], fenced: [String]) {
    var unfenced: [String] = []
    var fenced: [String] = []
    var token: String?
    let lines = text.split(omittingEmptySubsequences: false) { $0 == "\n" || $0 == "\r" || $0 == "\r\n" }
    for line in lines.map(String.init) {
      let trimmed = line.trimmingCharacters(in: .whitespaces)
      if let open = token {
        if trimmed == "::\(open)::" { token = nil } else { fenced.append(line) }
        continue
      }
      guard trimmed.hasPrefix("::") else { continue }
      if trimmed.hasPrefix("::stop-commands::") {
        token = String(trimmed.dropFirst("::stop-commands::".count))
        continue
      }
      unfenced.append(trimmed)
    }
    XCTAssertNil(token, "a fence was left open")
    return (unfenced, fenced)
  }

  /// Every unfenced command is one the tool emits itself (an annotation or a group), never the
  /// planted one.
  /// Runs `release <arguments>`, which must fail (exit 1) without a command of the planted
  /// text in what it printed.
  @discardableResult
  private func assertFailsWithoutInjectedCommand(
    _ arguments: [String], in workspace: Workspace, file: StaticString = #filePath, line: UInt = #line
  ) throws -> BinaryRun {
    let run = try run(arguments, in: workspace)
    XCTAssertEqual(run.exitCode, 1, run.allOutput, file: file, line: line)
    _ = assertNoInjectedCommand(run, "release " + arguments.joined(separator: " "), file: file, line: line)
    return run
  }

  private func assertNoInjectedCommand(
    _ run: BinaryRun, _ label: String, file: StaticString = #filePath,
    line: UInt = #line
  ) -> [String] {
    let (unfenced, fenced) = commands(in: run.standardOutput + "\n" + run.standardError)
    for command in unfenced {
      let name = command.dropFirst(2).prefix { $0 != " " && $0 != ":" }
      XCTAssertTrue(
        ["error", "group", "endgroup"].contains(String(name)),
        "\(label): a command the tool did not emit, outside a fence: \(command)\n\(run.allOutput)",
        file: file,
        line: line)
    }
    XCTAssertTrue(
      run.allOutput.contains("INJECTED"), "\(label): the planted text is shown: \(run.allOutput)",
      file: file, line: line)
    return fenced
  }

  func testALineBreakInReleaseJSONRunsNoCommand() throws {
    let (workspace, release) = try built()
    let recordFile = release.appendingPathComponent(ReleaseRecord.fileName)
    var record = try ReleaseRecord.load(from: recordFile)
    record.customer.id = "acme\n" + Self.injected
    record.packageName = "ContextSDK_Acme\r" + Self.injected
    try record.encoded().write(to: recordFile)

    try assertFailsWithoutInjectedCommand(["all", "--skip-tests"], in: workspace)
    try assertFailsWithoutInjectedCommand(["all", "--skip-tests", "--json"], in: workspace)
    try assertFailsWithoutInjectedCommand(["verify", "dist", "--no-build"], in: workspace)
  }

  func testALineBreakInAZipEntryNameRunsNoCommand() throws {
    let (workspace, release) = try built()
    let zip = release.appendingPathComponent("ContextSDK_Acme-\(Workspace.sdk).zip")
    let entries = try CraftedZip.entries(of: zip)
    try FileManager.default.removeItem(at: zip)
    try CraftedZip.write(
      entries + [.init(name: "ContextSDK_Acme/x\n" + Self.injected, data: Data("evil".utf8))], to: zip)
    let (sha256, size) = try SHA256Digest.hexAndSize(ofFileAt: zip)
    try "\(sha256)  \(zip.lastPathComponent)\n".write(
      to: release.appendingPathComponent(zip.lastPathComponent + ".sha256"), atomically: true, encoding: .utf8
    )
    let recordFile = release.appendingPathComponent(ReleaseRecord.fileName)
    var record = try ReleaseRecord.load(from: recordFile)
    record.artifact.sha256 = sha256
    record.artifact.size = size
    try record.encoded().write(to: recordFile)

    let all = try assertFailsWithoutInjectedCommand(["all", "--skip-tests"], in: workspace)
    XCTAssertTrue(all.allOutput.contains("has a control character in its name"), all.allOutput)
    try assertFailsWithoutInjectedCommand(["verify", "dist", "--no-build"], in: workspace)
  }

  func testVerifysLogTailIsFenced() throws {
    let (workspace, _) = try built()
    // A `swift` that prints commands into the build log and fails, as a planted package could.
    let shims = try TemporaryDirectory()
    let swift = shims.url.appendingPathComponent("swift")
    try """
    #!/bin/sh
    echo "  ::add-mask::INJECTED"
    echo "\(Self.injected)"
    exit 1

    """.write(to: swift, atomically: true, encoding: .utf8)
    try FileManager.default.setAttributes([.posixPermissions: 0o755], ofItemAtPath: swift.path)
    let verify = try run(
      ["verify", "dist"], in: workspace,
      path: shims.url.path + ":" + (ProcessInfo.processInfo.environment["PATH"] ?? "/usr/bin:/bin"))
    XCTAssertEqual(verify.exitCode, 1, verify.allOutput)
    let fenced = assertNoInjectedCommand(verify, "release verify (build)")
    // Inside the fence, and even there a leading `::` is shown as `\u{3A}:`.
    XCTAssertTrue(
      fenced.contains { $0.trimmingCharacters(in: .whitespaces) == "\\u{3A}" + Self.injected.dropFirst() },
      "the tail is fenced: \(verify.allOutput)")
  }
}
