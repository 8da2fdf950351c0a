import Foundation
import ReleaseCLITestSupport
import ReleaseSystem
import ReleaseTestSupport
import XCTest

@testable import ReleaseCore

/// The SDK version a customer's first release takes (the repository's).
private let firstVersion = Workspace.sdkVersion()

/// Failures while doing valid work: a generated package that does not compile or whose tests
/// fail, a missing `swift` or `git`, an output directory that is a file, read-only or full.
/// Each gives a clear error and leaves nothing partial under a final name.
final class FailureEndToEndTests: XCTestCase {
  private let release = "dist/acme/\(firstVersion)/ContextSDK_Acme-\(firstVersion).zip"

  /// The checks shared by the build and test failures.
  private func assertCustomerFailed(
    _ run: Workspace.Run, _ workspace: Workspace, step: String, command: String, tailNeedle: String,
    logNeedle: String, file: StaticString = #filePath, line: UInt = #line
  ) throws {
    XCTAssertEqual(run.exitCode, 1, run.allOutput, file: file, line: line)
    // The failing step and command, the log's path, and the log's tail, on stderr.
    XCTAssertTrue(
      run.standardError.contains {
        $0.contains("FAIL acme \(firstVersion) in \(step)") && $0.contains(command)
      },
      run.allOutput, file: file, line: line)
    XCTAssertTrue(
      run.standardError.contains { $0.hasSuffix("  log: dist/logs/acme.log") }, run.allOutput, file: file,
      line: line)
    let tail = run.standardError.filter { $0.hasPrefix("  acme | ") }
    XCTAssertFalse(tail.isEmpty, "log tail: \(run.allOutput)", file: file, line: line)
    XCTAssertTrue(
      tail.contains { $0.contains(tailNeedle) }, "log tail shows \(tailNeedle): \(tail)", file: file,
      line: line)
    XCTAssertEqual(run.standardError.last, "error: 1 customer failed: acme", file: file, line: line)

    // Nothing of acme's release, the log in place, the failure in report.xml, no version recorded.
    XCTAssertEqual(
      Workspace.snapshot(workspace.dist.appendingPathComponent("acme")), [:], file: file, line: line)
    XCTAssertEqual(DistInspection.problems(in: workspace.dist), [], file: file, line: line)
    let log = try String(contentsOf: workspace.file("dist/logs/acme.log"), encoding: .utf8)
    XCTAssertTrue(log.contains(logNeedle), file: file, line: line)
    let report = try String(contentsOf: workspace.file("dist/report.xml"), encoding: .utf8)
    XCTAssertTrue(report.contains(#"failures="1""#), report, file: file, line: line)
    XCTAssertTrue(
      report.contains(#"<failure message="\#(step): \#(command)"#), report, file: file, line: line)
    let state = try ReleaseState.load(from: workspace.file("release-state.json"), displayPath: "state")
    XCTAssertNil(state.customers["acme"], file: file, line: line)
  }

  func testASyntaxErrorInTheTemplateFailsTheBuildWithItsLogTail() throws {
    let workspace = try Workspace()
    let core = workspace.file("templates/ContextSDK/Sources/ContextSDKCore/FlowModel.swift")
    let original = try String(contentsOf: core, encoding: .utf8)
    try (original + "\nfunc plantedSyntaxError( {\n").write(to: core, atomically: true, encoding: .utf8)
    // A cache of its own: the failed build is stopped at the first module, and a slot whose
    // build failed is built from scratch next time, which in the process's warm cache would be
    // the next test's cost.
    let run = workspace.run(["customer", "acme", "--cache", workspace.file("cache").path])
    try assertCustomerFailed(
      run, workspace, step: "build and test", command: "swift test",
      tailNeedle:
        "FlowModel.swift:\(original.split(separator: "\n", omittingEmptySubsequences: false).count + 1)",
      logNeedle: "plantedSyntaxError")
  }

  func testAFailingTemplateTestFailsTheRun() throws {
    let workspace = try Workspace()
    // In the top module's tests, the smallest test target every customer has: the process's
    // warm slot recompiles only that target, now and when the next customer removes the file.
    try """
    import XCTest

    final class PlantedFailureTests: XCTestCase {
      func testPlantedFailure() { XCTFail("planted-test-failure") }
    }

    """.write(
      to: workspace.file("templates/ContextSDK/Tests/ContextSDKTests/PlantedFailureTests.swift"),
      atomically: true,
      encoding: .utf8)
    let run = workspace.run(["customer", "acme"])
    // The failing assertion is shown, not only the end of the log (Swift Testing's empty run).
    try assertCustomerFailed(
      run, workspace, step: "build and test", command: "swift test", tailNeedle: "planted-test-failure",
      logNeedle: "planted-test-failure")
  }

  func testMissingSwiftIsNamedAndNothingIsWritten() throws {
    let workspace = try Workspace()
    // A PATH with everything the machine has except a directory holding swift.
    let path = (ProcessInfo.processInfo.environment["PATH"] ?? "").split(separator: ":").map(String.init)
      .filter { !FileManager.default.isExecutableFile(atPath: $0 + "/swift") }.joined(separator: ":")
    XCTAssertNil(SystemProcessRunner.find("swift", environment: ["PATH": path]))
    let cache = workspace.file("cache")
    let before = Workspace.snapshot(workspace.root)
    let run = try ReleaseBinary.run(
      ["customer", "acme", "--cache", cache.path], in: workspace.root, environment: ["PATH": path],
      timeout: 60)
    XCTAssertNil(run.signal, run.allOutput)
    XCTAssertNotEqual(run.exitCode, 0, run.allOutput)
    XCTAssertEqual(run.standardErrorLines.count, 1, run.allOutput)
    XCTAssertTrue(run.standardError.contains("swift: program not found on PATH"), run.allOutput)
    XCTAssertEqual(Workspace.snapshot(workspace.root), before)
    XCTAssertFalse(FileManager.default.fileExists(atPath: workspace.dist.path))
    XCTAssertFalse(FileManager.default.fileExists(atPath: cache.path))
  }

  func testMissingGitStopsTaggingWithoutRecordingOrPartialFiles() throws {
    let workspace = try Workspace()
    // A bin directory with every program of the PATH except git, then the toolchain.
    let bin = workspace.file("bin-without-git")
    try FileManager.default.createDirectory(at: bin, withIntermediateDirectories: true)
    for directory in (ProcessInfo.processInfo.environment["PATH"] ?? "").split(separator: ":").map(
      String.init)
    {
      for name in (try? FileManager.default.contentsOfDirectory(atPath: directory)) ?? [] where name != "git"
      {
        let target = bin.appendingPathComponent(name)
        if !FileManager.default.fileExists(atPath: target.path) {
          try? FileManager.default.createSymbolicLink(
            atPath: target.path, withDestinationPath: directory + "/" + name)
        }
      }
    }
    XCTAssertNil(SystemProcessRunner.find("git", environment: ["PATH": bin.path]))
    XCTAssertNotNil(SystemProcessRunner.find("swift", environment: ["PATH": bin.path]))
    let stateBefore = try Data(contentsOf: workspace.file("release-state.json"))
    // What fails is tagging, after the build: a `swift` that compiles nothing stands first on
    // the PATH, with a cache of the test's own.
    let shims = try ProgramShims(["swift"], compiles: false)
    let run = try ReleaseBinary.run(
      [
        "customer", "acme", "--tag", "--allow-dirty", "--skip-tests", "--cache", workspace.file("cache").path,
      ],
      in: workspace.root, environment: ["PATH": shims.directory.path + ":" + bin.path])
    XCTAssertNil(run.signal, run.allOutput)
    XCTAssertNotEqual(run.exitCode, 0, run.allOutput)
    XCTAssertTrue(
      run.standardErrorLines.contains { $0.hasPrefix("error: ") && $0.contains("git") }, run.allOutput)
    // Whatever was built is complete; no version is recorded for an untagged release.
    XCTAssertEqual(DistInspection.problems(in: workspace.dist), [])
    XCTAssertEqual(DistInspection.temporaries(in: workspace.root), [])
    XCTAssertEqual(try Data(contentsOf: workspace.file("release-state.json")), stateBefore)
  }

  func testDistThatIsAFileIsNamedAndNothingIsWritten() throws {
    let workspace = try Workspace()
    let file = workspace.file("not-a-directory")
    try Data("keep me\n".utf8).write(to: file)
    let before = Workspace.snapshot(workspace.root)
    let run = workspace.run(["customer", "acme", "--dist", "not-a-directory"])
    XCTAssertNotEqual(run.exitCode, 0, run.allOutput)
    XCTAssertEqual(run.standardError.count, 1, run.allOutput)
    XCTAssertTrue(
      run.standardError[0].hasPrefix("error: ") && run.standardError[0].contains(file.path)
        && run.standardError[0].contains("expected a directory"), run.allOutput)
    XCTAssertEqual(Workspace.snapshot(workspace.root), before)
  }

  func testReadOnlyDistIsNamedAndNothingIsWritten() throws {
    let workspace = try Workspace()
    try FileManager.default.createDirectory(at: workspace.dist, withIntermediateDirectories: true)
    let mount = try TemporaryMount(at: workspace.dist, options: "ro,size=1m")
    defer { mount.unmount() }
    let run = workspace.run(["customer", "acme", "--skip-tests"])
    XCTAssertEqual(run.exitCode, 1, run.allOutput)
    XCTAssertEqual(run.standardError.count, 1, run.allOutput)
    XCTAssertTrue(run.standardError[0].contains(workspace.dist.path), run.allOutput)
    XCTAssertTrue(run.standardError[0].contains(String(cString: strerror(EROFS))), run.allOutput)
    XCTAssertEqual(try FileManager.default.contentsOfDirectory(atPath: workspace.dist.path), [])
  }

  func testReadOnlyCustomerDirectoryFailsTheStageLeavingNothingPartial() throws {
    let workspace = try Workspace()
    let acme = workspace.dist.appendingPathComponent("acme")
    try FileManager.default.createDirectory(at: acme, withIntermediateDirectories: true)
    let mount = try TemporaryMount(at: acme, options: "ro,size=1m")
    defer { mount.unmount() }
    let run = try workspace.runWithoutCompiling(["customer", "acme", "--skip-tests"])
    XCTAssertEqual(run.exitCode, 1, run.allOutput)
    XCTAssertTrue(
      run.standardError.contains {
        $0.contains("FAIL acme \(firstVersion) in stage") && $0.contains(acme.path)
          && ($0.contains(String(cString: strerror(EROFS))) || $0.lowercased().contains("read only"))
      }, run.allOutput)
    XCTAssertEqual(try FileManager.default.contentsOfDirectory(atPath: acme.path), [])
    XCTAssertEqual(DistInspection.problems(in: workspace.dist), [])
    let report = try String(contentsOf: workspace.file("dist/report.xml"), encoding: .utf8)
    XCTAssertTrue(report.contains(#"failures="1""#), report)
    // A failed customer has no artifact: the summary and report name no scratch zip.
    XCTAssertFalse(
      run.allOutput.contains("/staging/") || report.contains("/staging/"), run.allOutput + report)
  }

  func testDistOnAnotherFileSystemThanTheCacheGetsTheWholeRelease() throws {
    let workspace = try Workspace()
    try FileManager.default.createDirectory(at: workspace.dist, withIntermediateDirectories: true)
    let mount = try TemporaryMount(at: workspace.dist, options: "size=8m")
    defer { mount.unmount() }
    let run = try workspace.runWithoutCompiling(["customer", "acme", "--skip-tests"])
    XCTAssertEqual(run.exitCode, 0, run.allOutput)
    XCTAssertEqual(DistInspection.problems(in: workspace.dist), [])
    // The log is streamed in the cache and moved into dist/ at the end, across file systems.
    XCTAssertTrue(
      FileManager.default.fileExists(atPath: workspace.file("dist/logs/acme.log").path), run.allOutput)
    XCTAssertTrue(FileManager.default.fileExists(atPath: workspace.file(release).path))
    XCTAssertEqual(DistInspection.temporaries(in: workspace.dist), [])
  }

  func testFullDiskFailsTheStageLeavingNothingPartial() throws {
    let workspace = try Workspace()
    let acme = workspace.dist.appendingPathComponent("acme")
    try FileManager.default.createDirectory(at: acme, withIntermediateDirectories: true)
    // 16 KiB: room for the release's directory, not for its 20 KB zip.
    let mount = try TemporaryMount(at: acme, options: "size=16k")
    defer { mount.unmount() }
    let run = try workspace.runWithoutCompiling(["customer", "acme", "--skip-tests"])
    XCTAssertEqual(run.exitCode, 1, run.allOutput)
    XCTAssertTrue(
      run.standardError.contains {
        $0.contains("FAIL acme \(firstVersion) in stage") && $0.contains(String(cString: strerror(ENOSPC)))
      },
      run.allOutput)
    XCTAssertFalse(run.allOutput.contains("/staging/"), run.allOutput)
    print("FailureEndToEndTests: full disk: \(run.standardError.filter { $0.contains("FAIL") })")
    // The temporary release directory was removed: the file system is empty again.
    XCTAssertEqual(try FileManager.default.contentsOfDirectory(atPath: acme.path), [])
    XCTAssertEqual(DistInspection.problems(in: workspace.dist), [])
    let state = try ReleaseState.load(from: workspace.file("release-state.json"), displayPath: "state")
    XCTAssertNil(state.customers["acme"])

    // Room again: the rerun releases.
    mount.unmount()
    let rerun = try workspace.runWithoutCompiling(["customer", "acme", "--skip-tests"])
    XCTAssertEqual(rerun.exitCode, 0, rerun.allOutput)
    XCTAssertEqual(DistInspection.problems(in: workspace.dist), [])
    XCTAssertTrue(FileManager.default.fileExists(atPath: workspace.file(release).path))
  }
}

/// A tmpfs mounted over a directory for one test (the process runs as root in CI and here;
/// when mounting is not permitted the test fails saying so, it does not pretend).
final class TemporaryMount {
  let url: URL
  private var mounted = true

  init(at url: URL, options: String) throws {
    self.url = url
    let result = try SystemProcessRunner().run(
      ProcessInvocation("mount", ["-t", "tmpfs", "-o", options, "tmpfs", url.path]))
    guard result.exitCode == 0 else {
      throw SystemError.cannotWrite(
        path: url.path,
        reason:
          "cannot mount a tmpfs here (mount exited \(result.exitCode): \(result.standardError)); the test needs root"
      )
    }
  }

  func unmount() {
    guard mounted else { return }
    mounted = false
    _ = try? SystemProcessRunner().run(ProcessInvocation("umount", [url.path]))
  }

  deinit { unmount() }
}
