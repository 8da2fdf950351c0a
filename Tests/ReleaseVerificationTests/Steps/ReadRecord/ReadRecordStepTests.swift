import Foundation
import ReleaseTestSupport
import XCTest

@testable import ReleaseVerification

/// A release whose release.json cannot be read fails with that one problem, and no check
/// after it runs; the release is still named.
final class ReadRecordStepTests: XCTestCase {
  func testAnUnreadableRecordFailsThatReleaseAndSkipsItsChecks() throws {
    let directory = try TemporaryDirectory()
    try Data("{not json".utf8).write(to: directory.url.appendingPathComponent("release.json"))
    let workspace = try Workspace()
    let step = StepContext(root: workspace.root)
    let inputs = try step.pipeline.run(LoadVerifyInputsStep(settings: .unsigned), .repository)

    let release = try step.pipeline.run(
      ReadRecordStep(inputs: inputs), ReleaseLocation(directory: directory.url))

    XCTAssertNil(release.record)
    XCTAssertEqual(release.problems.count, 1)
    XCTAssertFalse(release.passed)
    XCTAssertEqual(step.output.standardOutput, ["verify \(directory.url.path)"])
    for skipped in [
      CompareReleaseStep(inputs: inputs).skipReason(release, step.context),
      ReproduceReleaseStep(inputs: inputs).skipReason(release, step.context),
      BuildAndConsumeStep(build: true, timeLimit: 60).skipReason(release, step.context),
    ] {
      XCTAssertEqual(skipped, ReleaseFindings.earlierCheckFailed)
    }
  }
}
