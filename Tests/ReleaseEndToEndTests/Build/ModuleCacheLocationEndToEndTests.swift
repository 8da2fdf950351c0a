import Foundation
import ReleaseCLITestSupport
import ReleaseSystem
import ReleaseTestSupport
import XCTest

/// Where the slots' builds keep the compilers' module cache: the cache directory's own, unless
/// `CLANG_MODULE_CACHE_PATH` (the variable clang and swiftc read for it) names another.
final class ModuleCacheLocationEndToEndTests: XCTestCase {
  /// The `-module-cache-path` of the run's `swift build`, in process with a scripted `swift`.
  private func moduleCachePath(environment: [String: String]) throws -> (path: String?, workspace: Workspace)
  {
    let workspace = try Workspace(manifest: EndToEndManifests.acme)
    let runner = ScriptedProcessRunner()
    runner.answerToolchainVersion()
    runner.on("swift", "build") { _ in ProcessResult(exitCode: 0) }
    let run = InProcessCLI.run(
      ["all", "--skip-tests", "--cache", workspace.file("cache").path], root: workspace.root,
      environment: environment, processRunner: runner)
    XCTAssertEqual(run.code, 0, run.allOutput)
    let build = try XCTUnwrap(
      runner.invocations.first { $0.program == "swift" && $0.arguments.first == "build" }, "no swift build")
    let arguments = build.arguments
    let index = arguments.firstIndex(of: "-module-cache-path")
    return (index.map { arguments[$0 + 2] }, workspace)
  }

  func testTheCacheDirectoryKeepsItsOwnByDefault() throws {
    let (path, workspace) = try moduleCachePath(environment: [:])
    XCTAssertEqual(path, workspace.file("cache/slots/module-cache").path)
  }

  func testCLANGModuleCachePathNamesAnotherSharedWithOtherCaches() throws {
    let shared = "/var/tmp/module-cache-\(UUID().uuidString)"
    XCTAssertEqual(try moduleCachePath(environment: ["CLANG_MODULE_CACHE_PATH": shared]).path, shared)
  }

  func testARelativeCLANGModuleCachePathIsTheProjectsNotTheSlots() throws {
    let (path, workspace) = try moduleCachePath(environment: ["CLANG_MODULE_CACHE_PATH": "shared/modules"])
    XCTAssertEqual(path, workspace.file("shared/modules").path)
  }

  func testAnEmptyCLANGModuleCachePathIsUnset() throws {
    let (path, workspace) = try moduleCachePath(environment: ["CLANG_MODULE_CACHE_PATH": ""])
    XCTAssertEqual(path, workspace.file("cache/slots/module-cache").path)
  }
}
