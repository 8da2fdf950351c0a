import Foundation
import ReleaseSystem
import ReleaseTestSupport
import XCTest

/// SwiftPM and the Swift driver leave `TemporaryDirectory.*` folders in their temp dir on every
/// call and never remove them (six for a warm `swift build`); on a CI machine that runs `release
/// all` on every merge they pile up in /tmp by the thousand. A run leaves the temp dir it was
/// given as it found it.
final class ChildTemporaryFilesEndToEndTests: XCTestCase {
  func testARunLeavesNothingInItsTemporaryDirectory() throws {
    let workspace = try Workspace()
    let temporary = workspace.file("tmp")
    try FileManager.default.createDirectory(at: temporary, withIntermediateDirectories: true)
    let run = try ReleaseBinary.run(
      ["customer", "acme", "--skip-tests", "--cache", Workspace.sharedCache.path],
      in: workspace.root, environment: ["TMPDIR": temporary.path])
    XCTAssertEqual(run.exitCode, 0, run.allOutput)
    XCTAssertEqual(
      try FileManager.default.contentsOfDirectory(atPath: temporary.path).sorted(), [],
      "left in the run's TMPDIR")
  }
}
