import Foundation
import ReleaseGeneration
import ReleaseSystem
import ReleaseTestSupport
import XCTest

@testable import ReleaseReporting

/// Issue 12, "output that something else interprets": text from outside (an S3 error message,
/// git's stderr, a log tail, a store name, a release.json field) reaches a terminal escaped, a
/// JSON consumer as valid JSON with the same value, report.xml as well-formed XML, and Markdown
/// without reordering characters or links.
final class OutputEscapingTests: XCTestCase {
  /// ESC sequences that clear the screen and set the window title, a bidi override, a bare CR
  /// that would overwrite the line, a zero-width space, a C1 control and a tag character.
  private let hostile = "bad\u{1B}[2J\u{1B}]0;pwned\u{7}\u{202E}txt.exe\rOVERWRITE\u{200B}\u{85}\u{E0001}"

  private func hasRawControl(_ text: String) -> Bool {
    text.unicodeScalars.contains {
      ($0.value < 0x20 && $0 != "\n" && $0 != "\t") || (0x7F...0x9F).contains($0.value)
        || $0.properties.generalCategory == .format
    }
  }

  func testPlainOutputShowsControlAndFormatCharactersEscaped() {
    let output = CapturedOutput()
    let reporter = PlainReporter(output: output, clock: ManualClock())
    reporter.report(.failure([hostile]))
    reporter.report(.info(hostile))
    reporter.report(.customerLogTail(id: "acme", lines: [hostile]))
    let lines = output.standardOutput + output.standardError
    XCTAssertEqual(lines.count, 3)
    for line in lines {
      XCTAssertFalse(hasRawControl(line), line.debugDescription)
      XCTAssertTrue(
        line.contains(
          "bad\\u{1B}[2J\\u{1B}]0;pwned\\u{7}\\u{202E}txt.exe\\u{D}OVERWRITE\\u{200B}\\u{85}\\u{E0001}"), line
      )
    }
  }

  /// A line break from outside must not start a line of its own: a CI runner reads each line
  /// for commands (issue 12's audit: `acme\n::warning::…` in release.json ran one).
  func testLineBreaksAreEscapedAndUnderGitHubActionsNoLineStartsACommand() {
    XCTAssertEqual(TerminalText.escaped("acme\n::warning::x\r"), "acme\\u{A}::warning::x\\u{D}")
    let output = CapturedOutput(workflowCommands: true)
    output.write(line: "  ::add-mask::x", to: .standardOutput)
    output.write(line: "\t::warning::x", to: .standardOutput)
    output.write(line: "not::a command", to: .standardOutput)
    output.writeWorkflowCommand(line: "::group::acme", to: .standardOutput)
    XCTAssertEqual(
      output.standardOutput,
      ["  \\u{3A}:add-mask::x", "\t\\u{3A}:warning::x", "not::a command", "::group::acme"])
    let plain = CapturedOutput()
    plain.write(line: "::notice::x", to: .standardOutput)
    XCTAssertEqual(plain.standardOutput, ["::notice::x"], "only a runner that reads commands needs this")
  }

  func testJSONEventsStayValidJSONWithTheSameValue() throws {
    let output = CapturedOutput()
    JSONReporter(output: output, clock: ManualClock()).report(.failure([hostile]))
    let line = try XCTUnwrap(output.standardOutput.first)
    XCTAssertFalse(hasRawControl(line), line.debugDescription)
    let event = try XCTUnwrap(JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any])
    XCTAssertEqual(event["message"] as? String, hostile)
  }

  func testReportXMLIsWellFormedForAnyInput() throws {
    let nasty = hostile + "\u{FFFE}\u{FFFF}\u{1}]]><![CDATA[&<>\"'"
    let outcome = ReleaseEvent.CustomerOutcome(
      id: "acme", version: "2.4.0", status: .failed, seconds: 1, artifact: nasty, sha256: nil,
      testCount: nil,
      failedStep: nasty, reason: nasty, logFile: nil)
    let directory = try TemporaryDirectory()
    let report = directory.url.appendingPathComponent("report.xml")
    try JUnitReport.xml([outcome], logTails: ["acme": [nasty, nasty]], seconds: 1).write(
      to: report, atomically: true, encoding: .utf8)
    // Parsed by an XML parser that is not ours.
    let parsed = try SystemProcessRunner().run(
      ProcessInvocation(
        "python3",
        [
          "-c",
          "import sys, xml.dom.minidom; d = xml.dom.minidom.parse(sys.argv[1]); print(len(d.getElementsByTagName('testcase')))",
          report.path,
        ]))
    XCTAssertEqual(parsed.exitCode, 0, parsed.standardError)
    XCTAssertEqual(parsed.standardOutput, "1\n")
  }

  func testGeneratedMarkdownHasNoFormatCharactersOrLinks() {
    XCTAssertEqual(MarkdownText.escaping("Acme\u{202E}gnp.exe").markdown, "AcmeU+202Egnp.exe")
    XCTAssertEqual(
      MarkdownText.escaping("Acme https://evil.example/x").markdown, "`Acme https://evil.example/x`")
    XCTAssertEqual(MarkdownText.escaping("see www.evil.example").markdown, "`see www.evil.example`")
    XCTAssertEqual(MarkdownText.escaping("mail admin@evil.example").markdown, "`mail admin@evil.example`")
    XCTAssertEqual(MarkdownText.escaping("<https://evil.example>").markdown, "`<https://evil.example>`")
    XCTAssertEqual(MarkdownText.codeSpan("a\u{202E}b").markdown, "`aU+202Eb`")
    // The step summary's cells go through the same escaping.
    let outcome = ReleaseEvent.CustomerOutcome(
      id: "acme", version: "2.4.0", status: .failed, seconds: 1, artifact: nil, sha256: nil, testCount: nil,
      failedStep: "build and test", reason: "see https://evil.example [x](y) \u{202E}", logFile: nil)
    let markdown = GitHubActionsReporter.markdown([outcome])
    XCTAssertFalse(hasRawControl(markdown.replacingOccurrences(of: "\n", with: "")))
    XCTAssertTrue(markdown.contains("`"), markdown)
  }
}
