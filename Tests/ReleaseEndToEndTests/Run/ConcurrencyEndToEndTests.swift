import Foundation
import ReleaseCLITestSupport
import ReleaseSystem
import ReleaseTestSupport
import XCTest

@testable import ReleaseCore

/// The SDK version a customer's first release takes (the repository's).
private let firstVersion = Workspace.sdkVersion()

/// Two `release` processes on the same `dist/` at once. The first is held at the start of its
/// `swift build` (a stand-in `swift` waits at a gate the test opens), so the overlap is
/// certain rather than a matter of timing. A second run on the same cache, and one on the same
/// `dist/` with another cache, must each fail at once with one line naming the lock and the
/// holder's pid, changing nothing; the first then finishes with intact output. It skips the
/// package's tests, and the stand-in compiles nothing once opened: the locks are held for the
/// whole run, whatever the build does.
final class ConcurrencyEndToEndTests: XCTestCase {
  func testASecondRunOnTheSameDistFailsClearlyWhileTheFirstFinishesIntact() throws {
    let workspace = try Workspace()
    let shims = try ProgramShims(compiles: false)
    let cache = try TemporaryDirectory()
    let cacheArguments = ["--cache", cache.url.path]
    let first = try RunningBinary(
      ["customer", "acme", "--skip-tests"] + cacheArguments, in: workspace.root,
      environment: ReleaseBinary.environment(["PATH": shims.path, "RELEASE_TEST_GATE": shims.gate.path]))
    defer {
      shims.open()
      if first.isRunning { _ = first.wait(timeout: 120) }
    }

    // Wait until the first run is inside `swift build`, holding both locks.
    guard first.reachedGate(of: shims) else {
      let run = first.wait(timeout: 1)
      return XCTFail("the first run never reached swift build: \(run.allOutput)")
    }
    let distBefore = Workspace.snapshot(workspace.dist)
    let holder = "pid \(first.pid)"

    // Same cache and dist: the cache lock is taken first.
    let second = try ReleaseBinary.run(
      ["customer", "acme"] + cacheArguments, in: workspace.root, timeout: 60)
    XCTAssertNil(second.signal, second.allOutput)
    XCTAssertNotEqual(second.exitCode, 0, second.allOutput)
    XCTAssertLessThan(second.seconds, 15, "the second run must not wait for the first: \(second.allOutput)")
    XCTAssertEqual(second.standardErrorLines.count, 1, second.allOutput)
    let cacheLock = cache.url.appendingPathComponent("release.lock").path
    XCTAssertTrue(second.standardError.contains(cacheLock), second.allOutput)
    XCTAssertTrue(second.standardError.contains(holder), "names the holder \(holder): \(second.allOutput)")

    // Another cache, same dist: the dist lock.
    let otherCache = FileManager.default.temporaryDirectory.appendingPathComponent(
      "release-faults-cache-\(UUID().uuidString)")
    defer { try? FileManager.default.removeItem(at: otherCache) }
    let third = try ReleaseBinary.run(
      ["customer", "acme", "--cache", otherCache.path], in: workspace.root, timeout: 60)
    XCTAssertNil(third.signal, third.allOutput)
    XCTAssertNotEqual(third.exitCode, 0, third.allOutput)
    XCTAssertLessThan(third.seconds, 15, third.allOutput)
    XCTAssertEqual(third.standardErrorLines.count, 1, third.allOutput)
    XCTAssertTrue(
      third.standardError.contains(workspace.dist.appendingPathComponent(".release.lock").path),
      third.allOutput)
    XCTAssertTrue(third.standardError.contains(holder), "names the holder \(holder): \(third.allOutput)")
    // The refused runs changed nothing, and the first run is still in its build.
    XCTAssertEqual(Workspace.snapshot(workspace.dist), distBefore)
    XCTAssertTrue(first.isRunning)

    // Let the first run go on: it finishes with intact output.
    shims.open()
    let finished = first.wait(timeout: 300)
    XCTAssertEqual(finished.exitCode, 0, finished.allOutput)
    XCTAssertEqual(DistInspection.problems(in: workspace.dist), [])
    XCTAssertEqual(DistInspection.temporaries(in: workspace.dist), [])
    XCTAssertTrue(
      FileManager.default.fileExists(
        atPath: workspace.file("dist/acme/\(firstVersion)/ContextSDK_Acme-\(firstVersion).zip").path),
      finished.allOutput)
    let verify = workspace.run(["verify", "dist/acme/\(firstVersion)", "--no-build"])
    XCTAssertEqual(verify.exitCode, 0, verify.allOutput)
    let state = try ReleaseState.load(from: workspace.file("release-state.json"), displayPath: "state")
    XCTAssertEqual(state.customers["acme"]?.version, Workspace.sdk)
  }
}
