import Foundation
import ReleaseJSON
import ReleaseManifest
import ReleaseSystem
import ReleaseTestSupport
import XCTest

@testable import ReleaseReporting

#if canImport(FoundationXML)
  import FoundationXML
#endif

final class ReportOutputTests: XCTestCase {
  let built = ReleaseEvent.CustomerOutcome(
    id: "acme", version: "2.4.0", status: .built, seconds: 12.5, artifact: "dist/acme/2.4.0/a.zip",
    sha256: String(repeating: "a", count: 64), testCount: 14, failedStep: nil, reason: nil, logFile: nil)
  let failed = ReleaseEvent.CustomerOutcome(
    id: "bluebird", version: "2.4.1", status: .failed, seconds: 3, artifact: nil, sha256: nil,
    testCount: nil,
    failedStep: "build and test", reason: "swift test: exited with status 1 <&>", logFile: nil)

  func testJSONEventsAreOneObjectPerLineWithStableNames() throws {
    let output = CapturedOutput()
    let reporter = JSONReporter(output: output, clock: ManualClock())
    reporter.report(.plan([.init(id: "acme", version: "2.4.0", action: .build, reason: "first release")]))
    reporter.report(.customerStarted(id: "acme", version: "2.4.0"))
    reporter.report(.customerFinished(built))
    reporter.report(.customerFinished(failed))
    reporter.report(.summary([built, failed], seconds: 20))

    let objects = try output.standardOutput.map {
      try XCTUnwrap(JSONSerialization.jsonObject(with: Data($0.utf8)) as? [String: Any])
    }
    XCTAssertEqual(
      objects.map { $0["event"] as? String },
      [
        "plan", "customer_started", "customer_finished", "customer_failed", "summary",
      ])
    XCTAssertEqual(objects[2]["sha256"] as? String, built.sha256)
    XCTAssertEqual(objects[2]["tests"] as? Int, 14)
    XCTAssertEqual(objects[3]["failed_step"] as? String, "build and test")
    XCTAssertEqual(objects[4]["built"] as? Int, 1)
    XCTAssertEqual(objects[4]["failed"] as? Int, 1)
    XCTAssertTrue(objects.allSatisfy { ($0["time"] as? String)?.hasSuffix("Z") == true })
  }

  func testJUnitReportIsWellFormedWithACasePerCustomer() throws {
    let xml = JUnitReport.xml([built, failed], logTails: ["bluebird": ["error: <boom>"]], seconds: 20)
    let document = try XMLDocument(data: Data(xml.utf8))
    let cases = try document.nodes(forXPath: "//testcase")
    XCTAssertEqual(cases.count, 2)
    let failures = try document.nodes(forXPath: "//testcase/failure")
    XCTAssertEqual(failures.count, 1)
    XCTAssertEqual(failures.first?.stringValue, "error: <boom>")
    let suite = try XCTUnwrap(try document.nodes(forXPath: "//testsuite").first as? XMLElement)
    XCTAssertEqual(suite.attribute(forName: "failures")?.stringValue, "1")
    let property = try document.nodes(forXPath: "//testcase[1]//property[@name='swift_test_count']").first
    XCTAssertEqual((property as? XMLElement)?.attribute(forName: "value")?.stringValue, "14")
  }

  /// How a customer was tested is in its `--json` event, its JUnit case and its plain line.
  func testHowACustomerWasTestedIsReported() throws {
    var further = built
    further.testedBy = .testBinary(compileKey: "0123456789ab")
    var first = built
    first.id = "cobalt"
    first.testedBy = .swiftTest

    let output = CapturedOutput()
    JSONReporter(output: output, clock: ManualClock()).report(.customerFinished(further))
    let object = try XCTUnwrap(
      JSONSerialization.jsonObject(with: Data(try XCTUnwrap(output.standardOutput.first).utf8))
        as? [String: Any])
    XCTAssertEqual(object["tested_by"] as? String, "test binary of compile key 0123456789ab")

    let document = try XMLDocument(
      data: Data(JUnitReport.xml([further, first], logTails: [:], seconds: 1).utf8))
    let methods = try document.nodes(forXPath: "//testcase//property[@name='tested_by']").map {
      ($0 as? XMLElement)?.attribute(forName: "value")?.stringValue
    }
    XCTAssertEqual(methods, ["test binary of compile key 0123456789ab", "swift test"])
    let counts = try document.nodes(forXPath: "//testcase//property[@name='swift_test_count']")
    XCTAssertEqual(counts.count, 2)

    let plain = CapturedOutput()
    PlainReporter(output: plain, clock: ManualClock()).report(.customerFinished(further))
    XCTAssertTrue(
      plain.standardOutput.contains { $0.hasSuffix("(tested by test binary of compile key 0123456789ab)") },
      "\(plain.standardOutput)")

    // The GitHub step summary: a column of its own, "-" for a customer not tested.
    var untested = built
    untested.id = "dune"
    let rows = GitHubActionsReporter.markdown([further, first, untested]).split(separator: "\n")
    XCTAssertTrue(rows.contains { $0.hasPrefix("| Customer |") && $0.contains("| Tested by |") }, "\(rows)")
    for (id, method) in [
      ("acme", "test binary of compile key 0123456789ab"), ("cobalt", "swift test"), ("dune", "-"),
    ] {
      XCTAssertTrue(
        rows.contains { $0.hasPrefix("| \(id) |") && $0.contains("| \(method) |") }, "\(id): \(rows)")
    }
  }

  func testGitHubAnnotationsCarryFileAndLineAndEscapeNewlines() {
    let output = CapturedOutput()
    let reporter = GitHubActionsReporter(output: output, stepSummary: nil, root: URL(fileURLWithPath: "/"))
    reporter.report(
      .diagnostics([
        Diagnostic(file: "customers.json", path: "customers[1].app_id", message: "bad\nuuid", line: 17)
      ]))
    XCTAssertEqual(
      output.standardOutput,
      ["::error file=customers.json,line=17::customers.json: customers[1].app_id: bad%0Auuid"])
  }

  func testGitHubStepSummaryIsAppended() throws {
    let directory = try TemporaryDirectory()
    let summary = directory.url.appendingPathComponent("summary.md")
    try "earlier step\n".write(to: summary, atomically: true, encoding: .utf8)
    let reporter = GitHubActionsReporter(output: CapturedOutput(), stepSummary: summary, root: directory.url)
    reporter.report(.summary([built, failed], seconds: 20))
    reporter.finish()
    let text = try String(contentsOf: summary, encoding: .utf8)
    XCTAssertTrue(text.hasPrefix("earlier step\n"))
    XCTAssertTrue(text.contains("| acme | 2.4.0 | built | - | - | 12.5s | dist/acme/2.4.0/a.zip |"), text)
    XCTAssertTrue(text.contains("| bluebird | 2.4.1 | ❌ failed \\(build and test\\): "), text)
  }

  func testSummaryTableAlignsColumns() {
    let rows = SummaryTable.rows([built, failed])
    XCTAssertEqual(rows.count, 3)
    // Every column starts at the same offset in every row.
    XCTAssertEqual(rows[0].range(of: "VERSION")?.lowerBound.utf16Offset(in: rows[0]), 10)
    XCTAssertTrue(rows[1].hasPrefix("acme      2.4.0    built "))
    XCTAssertTrue(rows[2].hasPrefix("bluebird  2.4.1    failed"))
  }
}
