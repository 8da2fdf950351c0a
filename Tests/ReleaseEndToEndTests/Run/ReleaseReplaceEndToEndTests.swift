import Foundation
import ReleaseCLITestSupport
import ReleaseSystem
import ReleaseTestSupport
import XCTest

/// The SDK version a customer's first release takes (the repository's).
private let firstVersion = Workspace.sdkVersion()

/// Issue 12, "replacing an existing release directory is atomic": a forced rebuild of a version
/// already in dist/ swaps the new release directory in (the stage step), so a reader polling
/// it — a CI step uploading dist/, `release verify` — finds the old or the new release at every
/// moment, never none and never half of one. The runs build with a stand-in `swift`
/// (`StandInSwift`): the swap is the stage step's, after the build.
final class ReleaseReplaceEndToEndTests: XCTestCase {
  func testAForcedRebuildNeverLeavesAMomentWithoutTheRelease() throws {
    let workspace = try Workspace(manifest: PublishFixtures.manifest)
    let swift = try StandInSwift()
    let first = workspace.run(
      ["customer", "acme", "--skip-tests"] + swift.cacheArguments, environment: swift.environment)
    XCTAssertEqual(first.exitCode, 0, first.allOutput)
    let release = workspace.dist.appendingPathComponent("acme/\(firstVersion)")
    let files = [
      "release.json", "ContextSDK_Acme-\(firstVersion).zip", "ContextSDK_Acme-\(firstVersion).zip.sha256",
    ].map {
      release.appendingPathComponent($0).path
    }
    let stop = Locked(false)
    let counts = Locked((checks: 0, misses: 0))
    let finished = DispatchSemaphore(value: 0)
    Thread.detachNewThread {
      var status = stat()
      while !stop.value {
        let complete = files.allSatisfy { lstat($0, &status) == 0 }
        counts.withLock {
          $0.checks += 1
          if !complete { $0.misses += 1 }
        }
      }
      finished.signal()
    }
    for round in 1...3 {
      let forced = workspace.run(
        ["customer", "acme", "--skip-tests", "--force"] + swift.cacheArguments, environment: swift.environment
      )
      XCTAssertEqual(forced.exitCode, 0, "round \(round): \(forced.allOutput)")
    }
    stop.set(true)
    XCTAssertEqual(finished.wait(timeout: .now() + 10), .success)
    let (checks, misses) = counts.value
    XCTAssertGreaterThan(checks, 1000, "the reader polled throughout")
    XCTAssertEqual(misses, 0, "\(misses) of \(checks) looks found the release missing or incomplete")
    XCTAssertEqual(DistInspection.problems(in: workspace.dist), [])
    print(
      "ReleaseReplaceEndToEndTests: \(checks) looks during 3 forced rebuilds, \(misses) without the release")
  }
}
