import Foundation
import ReleaseArchive
import ReleaseSystem
import XCTest

@testable import ReleaseKit

/// `release customer acme` killed by a real SIGKILL at every fault point (during generation,
/// before the tests, half-way through the zip, with the release assembled but not renamed into
/// place, with the new state file written but not renamed): afterwards no final name holds an
/// incomplete file, the state file still parses, and a rerun converges to an archive
/// byte-identical to an uninterrupted run's, leaving no temporary behind.
final class KillTests: XCTestCase {
  func testKilledAtEveryFaultPointLeavesNothingPartialAndARerunConverges() throws {
    XCTAssertEqual(FaultPoint.all.count, 5, "a new fault point needs its expectations here")
    let arguments = ["customer", "acme", "--cache", Workspace.sharedCache.path]
    let zipPath = "dist/acme/2.4.0/ContextSDK_Acme-2.4.0.zip"

    // The uninterrupted reference.
    let reference = try Workspace()
    let referenceRun = try ReleaseBinary.run(arguments, in: reference.root)
    XCTAssertEqual(referenceRun.exitCode, 0, referenceRun.allOutput)
    let referenceZip = try Data(contentsOf: reference.file(zipPath))
    XCTAssertEqual(DistInspection.problems(in: reference.dist), [])
    let fresh = try Workspace()
    let pristineState = try Data(contentsOf: fresh.file("release-state.json"))

    var tried: [String] = []
    for point in FaultPoint.all {
      let workspace = try Workspace()
      let killed = try ReleaseBinary.run(
        arguments, in: workspace.root, environment: ["RELEASE_KILL_AT": point])
      tried.append(point)
      XCTAssertEqual(killed.signal, SIGKILL, "\(point): expected death by SIGKILL: \(killed.allOutput)")

      // Right after the kill: only complete releases under final names.
      XCTAssertEqual(DistInspection.problems(in: workspace.dist), [], point)
      let state = try Data(contentsOf: workspace.file("release-state.json"))
      XCTAssertNoThrow(
        try ReleaseState.load(from: workspace.file("release-state.json"), displayPath: "release-state.json"),
        point)
      // The state file is the old one: a version is recorded only after everything succeeded.
      XCTAssertEqual(state, pristineState, "\(point): state changed by a killed run")
      let released = FileManager.default.fileExists(atPath: workspace.file(zipPath).path)
      // Where the kill fell decides whether dist/ holds the release yet: only after it was
      // renamed into place (the state file comes last).
      XCTAssertEqual(released, point == "state.partial", "\(point): release in dist/")
      if released {
        XCTAssertEqual(try Data(contentsOf: workspace.file(zipPath)), referenceZip, point)
      }

      // The rerun, without the fault: succeeds, same bytes as the uninterrupted run.
      let rerun = try ReleaseBinary.run(arguments, in: workspace.root)
      XCTAssertEqual(rerun.exitCode, 0, "\(point): rerun: \(rerun.allOutput)")
      XCTAssertEqual(
        try? Data(contentsOf: workspace.file(zipPath)), referenceZip, "\(point): rerun zip differs")
      XCTAssertEqual(DistInspection.problems(in: workspace.dist), [], point)
      XCTAssertEqual(
        DistInspection.temporaries(in: workspace.dist), [], "\(point): temporaries left in dist/")
      XCTAssertEqual(
        DistInspection.temporaries(in: workspace.root).filter { !$0.hasPrefix("dist/") }, [],
        "\(point): temporaries left")
      let recorded = try ReleaseState.load(from: workspace.file("release-state.json"), displayPath: "state")
      XCTAssertEqual(recorded.customers["acme"]?.version, SemanticVersion(2, 4, 0), point)
      XCTAssertEqual(
        try Data(contentsOf: workspace.file("release-state.json")),
        try Data(contentsOf: reference.file("release-state.json")), point)
    }
    print("KillTests: \(tried.count) kill points tried: \(tried.joined(separator: ", "))")
  }
}
