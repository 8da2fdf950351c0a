import Foundation
import ReleaseSystem
import ReleaseTestSupport
import XCTest

@testable import ReleaseCore

/// The SDK version a customer's first release takes (the repository's).
private let firstVersion = Workspace.sdkVersion()

/// Issue 12, "release-state.json": two runs with different --dist and --cache (so different
/// run locks) releasing different customers of one checkout, at once. Each read the state when
/// it started; without a lock of the state file's own and a re-read under it, the later write
/// drops the earlier run's record. Each run is held in its build (a stand-in `swift` at a gate)
/// until both are there, so both have read the state before either writes it: the overlap is
/// certain rather than a matter of timing. The stand-in compiles nothing: the race is in the
/// state file, not in the build.
final class StateFileRaceEndToEndTests: XCTestCase {
  func testTwoRunsWithDifferentDistsNeverLoseARecord() throws {
    let workspace = try Workspace(manifest: PublishFixtures.manifest)
    for round in 1...3 {
      try #"{"sdkVersion": "\#(firstVersion)", "customers": {}}"#.write(
        to: workspace.file("release-state.json"), atomically: true, encoding: .utf8)
      let customers = ["acme", "bluebird"]
      let shims = try customers.map { _ in try ProgramShims(["swift"], compiles: false) }
      let runs = try zip(customers, shims).map { customer, shim in
        try RunningBinary(
          [
            "customer", customer, "--skip-tests", "--force", "--dist", "dist-\(customer)", "--cache",
            workspace.file("cache-\(customer)").path,
          ], in: workspace.root,
          environment: ReleaseBinary.environment(["PATH": shim.path, "RELEASE_TEST_GATE": shim.gate.path]))
      }
      XCTAssertEqual(
        zip(runs, shims).map { $0.reachedGate(of: $1) }, [true, true],
        "round \(round): both runs reached their build")
      shims.forEach { $0.open() }
      for run in runs.map({ $0.wait(timeout: 300) }) { XCTAssertEqual(run.exitCode, 0, run.allOutput) }
      let state = try ReleaseState.load(
        from: workspace.file("release-state.json"), displayPath: "release-state.json")
      XCTAssertEqual(Set(state.customers.keys), ["acme", "bluebird"], "round \(round): both records survive")
    }
  }
}
