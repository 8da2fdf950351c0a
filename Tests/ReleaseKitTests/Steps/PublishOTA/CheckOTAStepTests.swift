import Foundation
import ReleaseSystem
import XCTest

@testable import ReleaseKit

/// What `release ota publish` (and `release all --publish`) refuses before anything is
/// published: one line each, exit 2, the destination untouched.
final class CheckOTAStepTests: XCTestCase {
  /// Offers `versions` of acme's onboarding_upsell by writing rollouts.json directly, as a
  /// hand edit or a merge would.
  func offer(_ versions: [Int], in workspace: Workspace) throws {
    let models = versions.map {
      #"{"modelVersion": \#($0), "rolloutPercent": 10, "status": "active", "salt": "00000000000000000000000000000001"}"#
    }
    try
      #"{"customers": {"acme": {"onboarding_upsell": {"paused": false, "models": [\#(models.joined(separator: ", "))]}}}}"#
      .write(to: workspace.file("rollouts.json"), atomically: true, encoding: .utf8)
  }

  /// Runs `arguments`, expects exit 2 with exactly `expected` on stderr and the workspace
  /// (the destination included) unchanged.
  func assertRefused(
    _ workspace: Workspace, _ arguments: [String], _ expected: [String], environment: [String: String] = [:],
    file: StaticString = #filePath, line: UInt = #line
  ) {
    let before = Workspace.snapshot(workspace.root)
    let result = workspace.run(arguments, environment: environment)
    XCTAssertEqual(result.exitCode, 2, result.allOutput, file: file, line: line)
    XCTAssertEqual(result.standardError, expected.map { "error: " + $0 }, file: file, line: line)
    XCTAssertEqual(
      Workspace.snapshot(workspace.root), before, "nothing written or published", file: file, line: line)
  }

  func testAnOfferedModelWhoseMetadataDisagreesWithItsPlaceIsRefused() throws {
    let workspace = try Workspace()
    // v74's file copied to v75: its metadata still says modelVersion 74.
    try FileManager.default.copyItem(
      at: workspace.file("models/onboarding_upsell/74.mlmodel"),
      to: workspace.file("models/onboarding_upsell/75.mlmodel"))
    try offer([75], in: workspace)
    assertRefused(
      workspace, ["ota", "publish", "--publish", "dir:published"],
      [
        #"rollouts.json: customers.acme.onboarding_upsell: offers onboarding_upsell v75, which has modelVersion "74" in its metadata; its place in the model store says 75"#
      ])
    XCTAssertFalse(FileManager.default.fileExists(atPath: workspace.file("published").path))
  }
}
