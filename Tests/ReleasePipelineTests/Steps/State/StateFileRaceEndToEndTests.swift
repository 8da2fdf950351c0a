import Foundation
import ReleaseSystem
import ReleaseTestSupport
import XCTest

@testable import ReleaseCore

/// Issue 12, "release-state.json": two runs with different --dist and --cache (so different
/// run locks) releasing different customers of one checkout, at once. Each read the state when
/// it started; without a lock of the state file's own and a re-read under it, the later write
/// drops the earlier run's record.
final class StateFileRaceEndToEndTests: XCTestCase {
  func testTwoRunsWithDifferentDistsNeverLoseARecord() throws {
    let workspace = try Workspace(manifest: PublishFixtures.manifest)
    for round in 1...3 {
      try #"{"sdkVersion": "2.4.0", "customers": {}}"#.write(
        to: workspace.file("release-state.json"), atomically: true, encoding: .utf8)
      let runs = try ["acme", "bluebird"].map { customer in
        try RunningBinary(
          [
            "customer", customer, "--skip-tests", "--force", "--dist", "dist-\(customer)", "--cache",
            workspace.file("cache-\(customer)").path,
          ], in: workspace.root, environment: ReleaseBinary.environment())
      }
      for run in runs.map({ $0.wait(timeout: 300) }) { XCTAssertEqual(run.exitCode, 0, run.allOutput) }
      let state = try ReleaseState.load(
        from: workspace.file("release-state.json"), displayPath: "release-state.json")
      XCTAssertEqual(Set(state.customers.keys), ["acme", "bluebird"], "round \(round): both records survive")
    }
  }
}
