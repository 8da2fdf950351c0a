import Foundation
import ReleaseSystem
import XCTest

@testable import ReleaseKit

/// Issue 12, "GitHub Actions commands from build logs": the runner trims leading whitespace
/// before looking for `::` and splits lines on a bare `\r`, so `  ::add-mask::x`,
/// `\t::warning::x` and `prefix\r::notice::x` in a build log are executed (measured). Each log
/// group is fenced with `::stop-commands::<token>` … `::<token>::`, with a fresh random token
/// that is not in the log.
final class WorkflowCommandInjectionTests: XCTestCase {
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
      id: "acme", version: "2.4.0", status: "failed", seconds: 1, artifact: nil, sha256: nil, testCount: nil,
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
