import Foundation
import ReleaseCLITestSupport
import ReleaseSystem
import ReleaseTestSupport
import XCTest

@testable import ReleaseBuild
@testable import ReleasePipeline

/// A slot stays warm when its package built and only its tests failed (they ran to XCTest's
/// total): the next customer in the slot builds incrementally.
/// A build that failed to compile leaves the slot to be built from scratch.
final class SlotAfterTestFailureEndToEndTests: XCTestCase {
  /// `release customer acme` with a scripted `swift test` that writes `log` and exits 1;
  /// whether the slot it used is marked as having finished its build.
  private func slotFinished(afterSwiftTestPrinting log: String) throws -> Bool {
    let workspace = try Workspace(manifest: EndToEndManifests.acme)
    let runner = ScriptedProcessRunner()
    runner.answerToolchainVersion()
    runner.on("swift", "test") { invocation in
      if let file = invocation.logFile {
        try FileManager.default.createDirectory(
          at: file.deletingLastPathComponent(), withIntermediateDirectories: true)
        try Data(log.utf8).write(to: file)
      }
      return ProcessResult(exitCode: 1)
    }
    let cache = workspace.file("cache")
    let run = InProcessCLI.run(
      ["customer", "acme", "--jobs", "1", "--cache", cache.path], root: workspace.root, processRunner: runner)
    XCTAssertEqual(run.code, 1, run.allOutput)
    XCTAssertEqual(runner.invocations.filter { $0.arguments.first == "test" }.count, 1)
    let slot = cache.appendingPathComponent("slots/0/ContextSDK")
    XCTAssertTrue(FileManager.default.fileExists(atPath: slot.appendingPathComponent(".build").path))
    return FileManager.default.fileExists(atPath: BuildSlots.finishedMarker(in: slot).path)
  }

  func testFailingTestsAfterACompleteBuildKeepTheSlotWarm() throws {
    XCTAssertTrue(
      try slotFinished(
        afterSwiftTestPrinting: """
          Building for debugging...
          Build complete! (2.41s)
          Test Case 'CustomerBuildTests.testTheBundledModelsAreTheCustomers' failed (0.002 seconds)
          Executed 24 tests, with 1 failure (0 unexpected) in 0.310 (0.310) seconds

          """))
  }

  func testABuildThatDidNotCompileLeavesTheSlotToBeBuiltAgain() throws {
    XCTAssertFalse(
      try slotFinished(
        afterSwiftTestPrinting: """
          Building for debugging...
          FlowModel.swift:40:1: error: expected declaration
          error: fatalError

          """))
  }
}
