import Foundation
import ReleaseCore
import ReleaseSettings
import ReleaseSystem
import ReleaseTestSupport
import XCTest

@testable import ReleaseFlow
@testable import ReleasePipeline

/// The run's locks, which the build requires (`BuildCustomersStep.Input`).
final class LockStepTests: XCTestCase {
  func testADryRunTakesNoLockAndARunTakesBoth() throws {
    let directory = try TemporaryDirectory()
    for dryRun in [true, false] {
      var settings = RunSettings()
      settings.dryRun = dryRun
      let services = Services(
        processRunner: ScriptedProcessRunner(), clock: ManualClock(), root: directory.url, environment: [:],
        output: CapturedOutput(), http: TestHTTP.Unreachable())
      let context = ReleaseContext(services: services, settings: settings, reporter: RecordingReporter())
      let lock = try Pipeline(context).run(LockStep(), ())
      XCTAssertEqual(lock.locks.count, dryRun ? 0 : 2, "dry run: \(dryRun)")
      XCTAssertEqual(
        FileManager.default.fileExists(
          atPath: context.distDirectory.appendingPathComponent(".release.lock").path),
        !dryRun, "dry run: \(dryRun)")
    }
  }
}
