import Foundation
import ReleaseArchive
import ReleaseSystem
import ReleaseTestSupport
import XCTest

@testable import ReleaseCore

/// The SDK version a customer's first release takes (the repository's).
private let firstVersion = Workspace.sdkVersion()

#if canImport(Glibc)
  import Glibc
#endif

/// `release customer acme` killed by a real SIGKILL at every fault point (half-way through
/// writing the generated package, half-way through the zip, with the release assembled but not
/// renamed into place, with the new state file written but not renamed), and by the test
/// itself while `swift build` runs as its child: afterwards no final name holds an incomplete
/// file, the state file still parses, and a rerun converges to an archive byte-identical to an
/// uninterrupted run's, leaving no temporary behind. The runs skip the package's tests: what is
/// checked is the files a kill leaves, which the tests do not change. Only the reference run
/// compiles (in the shared warm slot); the killed runs and their reruns get a stand-in `swift`
/// that compiles nothing, each in a cache of its own: the archive is the generated package,
/// which the build does not change, so the rerun's bytes are still held to a real build's, and
/// a kill in the build cannot leave the shared slot to be rebuilt cold (that a slot whose build
/// did not end well starts cold is BuildSlotsEndToEndTests').
final class KillEndToEndTests: XCTestCase {
  func testKilledAtEveryFaultPointLeavesNothingPartialAndARerunConverges() throws {
    XCTAssertEqual(FaultPoint.all.count, 4, "a new fault point needs its expectations here")
    let zipPath = "dist/acme/\(firstVersion)/ContextSDK_Acme-\(firstVersion).zip"
    let standInSwift = try ProgramShims(["swift"], compiles: false)
    let standIn = ["PATH": standInSwift.path]

    // The uninterrupted reference, really built.
    let reference = try Workspace()
    let referenceRun = try ReleaseBinary.run(
      ["customer", "acme", "--skip-tests", "--cache", Workspace.sharedCache.path], in: reference.root)
    XCTAssertEqual(referenceRun.exitCode, 0, referenceRun.allOutput)
    let referenceZip = try Data(contentsOf: reference.file(zipPath))
    XCTAssertEqual(DistInspection.problems(in: reference.dist), [])
    let fresh = try Workspace()
    let pristineState = try Data(contentsOf: fresh.file("release-state.json"))

    var tried: [String] = []
    for point in FaultPoint.all + [Self.duringSwiftBuild] {
      let workspace = try Workspace()
      let cache = try TemporaryDirectory()
      let arguments = ["customer", "acme", "--skip-tests", "--cache", cache.url.path]
      let killed =
        point == Self.duringSwiftBuild
        ? try killDuringSwiftBuild(arguments, in: workspace)
        : try ReleaseBinary.run(
          arguments, in: workspace.root, environment: standIn.merging(["RELEASE_KILL_AT": point]) { $1 })
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
      let rerun = try ReleaseBinary.run(arguments, in: workspace.root, environment: standIn)
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
      XCTAssertEqual(recorded.customers["acme"]?.version, Workspace.sdk, point)
      XCTAssertEqual(
        try Data(contentsOf: workspace.file("release-state.json")),
        try Data(contentsOf: reference.file("release-state.json")), point)
    }
    print("KillEndToEndTests: \(tried.count) kill points tried: \(tried.joined(separator: ", "))")
  }

  static let duringSwiftBuild = "swift build running (killed by the test)"

  /// Starts the release with a stand-in `swift` that waits at a gate, and once `swift build` is
  /// running as the release's child, sends the release SIGKILL from here; the orphaned stand-in
  /// is then told to give up.
  private func killDuringSwiftBuild(_ arguments: [String], in workspace: Workspace) throws -> BinaryRun {
    let shims = try ProgramShims(["swift"])
    let running = try RunningBinary(
      arguments, in: workspace.root,
      environment: ReleaseBinary.environment(["PATH": shims.path, "RELEASE_TEST_GATE": shims.gate.path]))
    XCTAssertTrue(running.reachedGate(of: shims), "the release never started swift build")
    XCTAssertTrue(running.isRunning, "the release ended before swift build")
    kill(running.pid, SIGKILL)
    let run = running.wait(timeout: 60)
    shims.abort()
    return run
  }
}
