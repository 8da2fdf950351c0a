import Foundation
import ReleaseSystem
import ReleaseTestSupport
import XCTest

@testable import ReleaseCLI
@testable import ReleaseCore

/// `release all --skip-tests` in process with a scripted `swift`: one `swift build` per compile
/// key, not per customer; a failed build leaves the key to the next customer.
final class SkipTestsBuildTests: XCTestCase {
  private struct Run {
    var exitCode: Int32
    var builds: Int
    var output: CapturedOutput
    var workspace: Workspace
  }

  /// `buildExits` answers the run's `swift build`s in order (then 0).
  private func releaseAll(_ manifest: String, buildExits: [Int32] = []) throws -> Run {
    let workspace = try Workspace(manifest: manifest)
    let runner = ScriptedProcessRunner()
    runner.on("swift", "--version") { _ in ProcessResult(exitCode: 0, standardOutput: "Swift version 6.3.1\n")
    }
    let answers = Locked(buildExits)
    runner.on("swift", "build") { _ in
      ProcessResult(exitCode: answers.withLock { $0.isEmpty ? 0 : $0.removeFirst() })
    }
    let output = CapturedOutput()
    let services = Services(
      processRunner: runner, clock: ManualClock(), root: workspace.root, environment: ["CI": "true"],
      output: output)
    let cache = workspace.file("cache").path
    let code = CommandLineInterface.main(
      arguments: ["all", "--skip-tests", "--jobs", "2", "--cache", cache], services: services)
    let builds = runner.invocations.filter { $0.program == "swift" && $0.arguments.first == "build" }.count
    return Run(exitCode: code, builds: builds, output: output, workspace: workspace)
  }

  private func released(_ run: Run) -> [String] {
    ((try? FileManager.default.contentsOfDirectory(atPath: run.workspace.dist.path)) ?? [])
      .filter { ["acme", "bluebird"].contains($0) }.sorted()
  }

  func testCustomersOfOneKeyAreBuiltOnce() throws {
    // acme and bluebird: the same features, so the same compiled code; only their models and
    // customer.json differ.
    let run = try releaseAll(PublishFixtures.manifest)
    XCTAssertEqual(
      run.exitCode, 0, (run.output.standardOutput + run.output.standardError).joined(separator: "\n"))
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
    XCTAssertEqual(
      run.exitCode, 0, (run.output.standardOutput + run.output.standardError).joined(separator: "\n"))
    XCTAssertEqual(run.builds, 2, "an ATT-only package compiles other code than the full one")
    XCTAssertEqual(released(run), ["acme", "bluebird"])
  }

  func testAFailedBuildLeavesTheKeyToTheNextCustomer() throws {
    let run = try releaseAll(PublishFixtures.manifest, buildExits: [1])
    XCTAssertEqual(run.builds, 2, "the second customer of the key built for itself")
    XCTAssertEqual(run.exitCode, 1)
    XCTAssertEqual(released(run).count, 1, "the customer whose build passed is released: \(released(run))")
  }
}
