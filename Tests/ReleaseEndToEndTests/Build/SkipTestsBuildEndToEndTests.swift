import Foundation
import ReleaseCLITestSupport
import ReleaseSystem
import ReleaseTestSupport
import XCTest

/// `release all --skip-tests` in process with a scripted `swift`: one `swift build` per compile
/// key, not per customer; a failed build leaves the key to the next customer.
final class SkipTestsBuildEndToEndTests: XCTestCase {
  private struct Run {
    var builds: Int
    var output: InProcessCLI.Run
    var workspace: Workspace
  }

  /// `buildExits` answers the run's `swift build`s in order (then 0).
  private func releaseAll(_ manifest: String, buildExits: [Int32] = []) throws -> Run {
    let workspace = try Workspace(manifest: manifest)
    let runner = ScriptedProcessRunner()
    runner.answerToolchainVersion()
    let answers = Locked(buildExits)
    runner.on("swift", "build") { _ in
      ProcessResult(exitCode: answers.withLock { $0.isEmpty ? 0 : $0.removeFirst() })
    }
    let cache = workspace.file("cache").path
    let output = InProcessCLI.run(
      ["all", "--skip-tests", "--jobs", "2", "--cache", cache], root: workspace.root, processRunner: runner)
    let builds = runner.invocations.filter { $0.program == "swift" && $0.arguments.first == "build" }.count
    return Run(builds: builds, output: output, workspace: workspace)
  }

  private func released(_ run: Run) -> [String] {
    ((try? FileManager.default.contentsOfDirectory(atPath: run.workspace.dist.path)) ?? [])
      .filter { ["acme", "bluebird"].contains($0) }.sorted()
  }

  func testCustomersOfOneKeyAreBuiltOnce() throws {
    // acme and bluebird: the same features, so the same compiled code; only their models and
    // customer.json differ.
    let run = try releaseAll(PublishFixtures.manifest)
    XCTAssertEqual(run.output.code, 0, run.output.allOutput)
    XCTAssertEqual(run.builds, 1)
    XCTAssertEqual(released(run), ["acme", "bluebird"])
  }

  func testADifferentFeatureSetIsAKeyOfItsOwn() throws {
    var customers = try XCTUnwrap(
      try JSONSerialization.jsonObject(with: Data(PublishFixtures.manifest.utf8)) as? [[String: Any]])
    customers[1]["features"] = ["att"]
    customers[1]["customModels"] = [["flowId": 8364, "flowName": "tracking_permission", "modelVersion": 5]]
    let manifest = String(decoding: try JSONSerialization.data(withJSONObject: customers), as: UTF8.self)
    let run = try releaseAll(manifest)
    XCTAssertEqual(run.output.code, 0, run.output.allOutput)
    XCTAssertEqual(run.builds, 2, "an ATT-only package compiles other code than the full one")
    XCTAssertEqual(released(run), ["acme", "bluebird"])
  }

  func testAFailedBuildLeavesTheKeyToTheNextCustomer() throws {
    let run = try releaseAll(PublishFixtures.manifest, buildExits: [1])
    XCTAssertEqual(run.builds, 2, "the second customer of the key built for itself")
    XCTAssertEqual(run.output.code, 1)
    XCTAssertEqual(released(run).count, 1, "the customer whose build passed is released: \(released(run))")
  }
}
