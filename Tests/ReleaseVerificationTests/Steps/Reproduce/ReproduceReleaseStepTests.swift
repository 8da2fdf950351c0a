import Foundation
import ReleaseSettings
import ReleaseTestSupport
import XCTest

@testable import ReleasePipeline
@testable import ReleaseVerification

/// Reproducing a release regenerates its package from the inputs; a release.json whose
/// version this tool cannot have released fails it, and nothing passes silently.
final class ReproduceReleaseStepTests: XCTestCase {
  func testAVersionThisToolDoesNotReleaseIsTheProblemAndNothingIsSaidPassed() throws {
    let workspace = try Workspace()
    let step = StepContext(root: workspace.root)
    let inputs = try step.pipeline.run(LoadVerifyInputsStep(settings: .unsigned), .repository)
    let customer = try XCTUnwrap(inputs.manifest.customers.first)
    var record = ReleaseRecord.example()
    record.customer = .init(
      id: customer.id, name: customer.name, appID: customer.appID,
      bundleIdentifiers: customer.bundleIdentifiers)
    record.version = "not-a-version"
    record.packageName = customer.packageName
    record.artifact.topLevelDirectory = customer.packageName
    let release = ReleaseFindings(
      location: ReleaseLocation(directory: workspace.file("dist/\(customer.id)/x")), record: record,
      customer: customer)

    let reproduced = try XCTUnwrap(try step.pipeline.run(ReproduceReleaseStep(inputs: inputs), release))

    XCTAssertEqual(
      reproduced.problems, ["release.json: version not-a-version is not a version this tool releases"])
    XCTAssertEqual(step.output.standardOutput, [])
    XCTAssertEqual(step.runner.invocations.count, 0)
  }
}
