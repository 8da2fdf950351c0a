import Foundation
import ReleaseSettings
import ReleaseTestSupport
import XCTest

@testable import ReleasePipeline
@testable import ReleaseVerification

/// The content checks of one release against its release.json and the manifest, before any
/// of its code runs; a failure there stops its later checks.
final class CompareReleaseStepTests: XCTestCase {
  func testARecordOfAnotherFileAndOfNoCustomerAndNoArchiveAreEachNamed() throws {
    let workspace = try Workspace()
    let release = workspace.file("dist/example/1.0.0")
    try FileManager.default.createDirectory(at: release, withIntermediateDirectories: true)
    let step = StepContext(root: workspace.root)
    let inputs = try step.pipeline.run(LoadVerifyInputsStep(settings: .unsigned), .repository)
    let read = ReleaseFindings(
      location: ReleaseLocation(directory: release, namedArchive: "Other-1.0.0.zip"), record: .example())

    let compared = try XCTUnwrap(try step.pipeline.run(CompareReleaseStep(inputs: inputs), read))

    XCTAssertEqual(
      Array(compared.problems.prefix(2)),
      [
        "Other-1.0.0.zip: release.json beside it describes Example-1.0.0.zip, not this file",
        "example: not a customer in customers.json",
      ])
    XCTAssertTrue(
      compared.problems.dropFirst(2).contains { $0.contains("Example-1.0.0.zip") }, "\(compared.problems)")
    XCTAssertEqual(
      ReproduceReleaseStep(inputs: inputs).skipReason(compared, step.context),
      ReleaseFindings.earlierCheckFailed)
    XCTAssertEqual(step.runner.invocations.count, 0)
  }
}
