import Foundation
import ReleaseCore
import ReleaseSettings
import ReleaseSystem
import ReleaseTestSupport
import XCTest

@testable import ReleaseFlow
@testable import ReleasePipeline

/// `release plan`'s own steps, on the plan of the repository's customers made in this
/// process: every customer in one shard, and the plan written as text or JSON.
final class ShardPlanStepsTests: XCTestCase {
  /// The plan of a dry run of every customer, with a scripted `swift --version`.
  func planned(shards: Int, _ workspace: Workspace, output: CapturedOutput) throws -> (
    Pipeline, PlanShardsStep.Planned
  ) {
    let runner = ScriptedProcessRunner()
    runner.answerToolchainVersion()
    var settings = RunSettings()
    settings.dryRun = true
    settings.inputs.cachePath = workspace.file(".release-cache").path
    let context = ReleaseContext(
      services: Services(
        processRunner: runner, clock: ManualClock(), root: workspace.root, environment: [:], output: output,
        http: TestHTTP.Unreachable()),
      settings: settings, reporter: RecordingReporter())
    let pipeline = Pipeline(context)
    let inputs = try pipeline.run(AlignModelsStep(), try pipeline.run(LoadInputsStep(), ()))
    let release = try pipeline.run(PlanStep(), .init(inputs: inputs))
    return (pipeline, try pipeline.run(PlanShardsStep(count: shards), release))
  }

  func testEveryCustomerIsInExactlyOneShardAndTheTextNamesEach() throws {
    let workspace = try Workspace()
    let output = CapturedOutput()
    let (pipeline, planned) = try planned(shards: 3, workspace, output: output)

    let ids = planned.release.customers.map(\.id)
    XCTAssertEqual(planned.shards.shards.count, 3)
    XCTAssertEqual(planned.shards.shards.flatMap(\.customers).sorted(), ids.sorted())

    try pipeline.run(ReportShardPlanStep(json: false), planned)
    XCTAssertEqual(output.standardOutput.count, 4, "\(output.standardOutput)")
    XCTAssertEqual(
      output.standardOutput[0],
      "plan \(planned.shards.planDigest.prefix(12)): \(ids.count) customers, \(ids.count) to build, over 3 shards"
    )
    for id in ids {
      XCTAssertEqual(
        output.standardOutput.filter { $0.contains(" \(id) (build)") || $0.contains(": \(id) (build)") }
          .count, 1, id)
    }
  }

  func testTheJSONIsOneDocumentWithTheDigestAndEachCustomersFeatures() throws {
    let workspace = try Workspace()
    let output = CapturedOutput()
    let (pipeline, planned) = try planned(shards: 2, workspace, output: output)

    try pipeline.run(ReportShardPlanStep(json: true), planned)

    XCTAssertEqual(output.standardOutput.count, 1)
    let document = try XCTUnwrap(
      try JSONSerialization.jsonObject(with: Data(output.standardOutput[0].utf8)) as? [String: Any])
    XCTAssertEqual(document["planDigest"] as? String, planned.shards.planDigest)
    let features = try XCTUnwrap(document["features"] as? [String: [String]])
    XCTAssertEqual(Set(features.keys), Set(planned.release.customers.map(\.id)))
  }
}
