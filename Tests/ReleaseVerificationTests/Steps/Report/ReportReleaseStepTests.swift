import Foundation
import ReleaseCore
import ReleaseTestSupport
import XCTest

@testable import ReleaseVerification

/// What verify writes about each release, and the count at the end.
final class ReportReleaseStepTests: XCTestCase {
  let location = ReleaseLocation(directory: URL(fileURLWithPath: "/dist/acme/1.0.0"))

  func testProblemsThenWhatTheCodeUnderCheckPrintedGoToStandardError() throws {
    let step = StepContext(root: URL(fileURLWithPath: "/"))
    let release = ReleaseFindings(
      location: location, problems: ["swift test failed", "second"], printed: ["error: boom"])

    XCTAssertFalse(try step.pipeline.run(ReportReleaseStep(), release))
    XCTAssertEqual(
      step.output.standardError, ["  FAIL swift test failed", "  FAIL second", "    error: boom"])
    XCTAssertEqual(step.output.standardOutput, [])
  }

  func testUnderGitHubActionsTheCodesOutputIsFencedSoItRunsNoWorkflowCommand() throws {
    let step = StepContext(root: URL(fileURLWithPath: "/"), environment: ["GITHUB_ACTIONS": "true"])
    let release = ReleaseFindings(location: location, problems: ["failed"], printed: ["::error::planted"])

    XCTAssertFalse(try step.pipeline.run(ReportReleaseStep(), release))
    XCTAssertEqual(step.output.standardError.first, "  FAIL failed")
    XCTAssertEqual(step.output.standardError.filter { $0 == "    ::error::planted" }.count, 1)
    XCTAssertTrue(step.output.standardError[1].hasPrefix("::stop-commands::"), "\(step.output.standardError)")
  }

  func testTheCountSaysHowManyPassedAndFailsWhenAnyDidNot() throws {
    let passing = StepContext(root: URL(fileURLWithPath: "/"))
    try passing.pipeline.run(SummarizeVerificationStep(), [true])
    XCTAssertEqual(passing.output.standardOutput, ["1 of 1 release verified"])

    let failing = StepContext(root: URL(fileURLWithPath: "/"))
    XCTAssertThrowsError(try failing.pipeline.run(SummarizeVerificationStep(), [true, false, false])) {
      error in
      XCTAssertEqual((error as? ReleaseError)?.lines, ["verify: 2 releases failed verification"])
      XCTAssertEqual((error as? ReleaseError)?.exitCode, 1)
    }
    XCTAssertEqual(failing.output.standardOutput, ["1 of 3 releases verified"])
  }
}
