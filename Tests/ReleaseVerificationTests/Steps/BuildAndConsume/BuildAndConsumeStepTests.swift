import Foundation
import ReleaseTestSupport
import XCTest

@testable import ReleasePipeline
@testable import ReleaseVerification

/// Building a release is the last check: skipped under `--no-build` and after any problem;
/// an archive it cannot extract is that release's problem, and no process starts.
final class BuildAndConsumeStepTests: XCTestCase {
  let location = ReleaseLocation(directory: URL(fileURLWithPath: "/nonexistent/acme/1.0.0"))

  func testSkippedUnderNoBuildAndAfterAProblem() throws {
    let step = StepContext(root: URL(fileURLWithPath: "/"))
    let failed = ReleaseFindings(location: location, problems: ["sha256 differs"])
    XCTAssertEqual(
      BuildAndConsumeStep(build: true, timeLimit: 60).skipReason(failed, step.context),
      ReleaseFindings.earlierCheckFailed)
    XCTAssertNil(try step.pipeline.run(BuildAndConsumeStep(build: true, timeLimit: 60), failed))
    guard case .stepSkipped("build and consume", let reason)? = step.reporter.events.first else {
      return XCTFail("\(step.reporter.events)")
    }
    XCTAssertEqual(reason, ReleaseFindings.earlierCheckFailed)
    XCTAssertEqual(
      BuildAndConsumeStep(build: false, timeLimit: 60).skipReason(
        ReleaseFindings(location: location, record: .example()), step.context), "--no-build")
  }

  func testAnArchiveThatCannotBeExtractedIsTheReleasesProblem() throws {
    let directory = try TemporaryDirectory()
    let record = ReleaseRecord.example()
    let step = StepContext(root: directory.url)
    let release = ReleaseFindings(location: ReleaseLocation(directory: directory.url), record: record)

    let built = try XCTUnwrap(try step.pipeline.run(BuildAndConsumeStep(build: true, timeLimit: 60), release))

    XCTAssertEqual(built.problems.count, 1)
    XCTAssertTrue(built.problems[0].contains(record.artifact.file), built.problems[0])
    XCTAssertEqual(step.runner.invocations.count, 0)
    XCTAssertEqual(step.output.standardOutput, [])
  }
}
