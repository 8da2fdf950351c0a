import Foundation
import ReleaseCLITestSupport
import ReleaseSettings
import ReleaseSystem
import ReleaseTestSupport
import XCTest

@testable import ReleaseBuild
@testable import ReleaseCLI
@testable import ReleaseCore
@testable import ReleasePipeline
@testable import ReleaseVerification

#if canImport(Glibc)
  import Glibc
#endif

/// Issue 12, "every subprocess has a time limit": a `swift` that never ends cannot hold CI or
/// the run's locks, and an interrupted `release` leaves no process and no temporary file behind.
/// The `swift` here is a stand-in first on PATH that, on `test`, starts a grandchild, records
/// both pids, and sleeps forever.
final class ChildProcessEndToEndTests: XCTestCase {
  private final class HangingSwift {
    let directory: URL
    let pids: URL

    init() throws {
      directory = FileManager.default.temporaryDirectory.appendingPathComponent(
        "hanging-swift-\(UUID().uuidString)")
      pids = directory.appendingPathComponent("pids")
      try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
      let real = try XCTUnwrap(SystemProcessRunner.find("swift"))
      let script = """
        #!/bin/sh
        if [ "$1" = test ] || [ "$1" = build ]; then
          sleep 1000 &
          echo "$$ $!" >> "\(pids.path)"
          while true; do sleep 1; done
        fi
        exec "\(real.path)" "$@"

        """
      let url = directory.appendingPathComponent("swift")
      try script.write(to: url, atomically: true, encoding: .utf8)
      try FileManager.default.setAttributes([.posixPermissions: 0o755], ofItemAtPath: url.path)
    }

    deinit { try? FileManager.default.removeItem(at: directory) }

    var path: String {
      directory.path + ":" + (ProcessInfo.processInfo.environment["PATH"] ?? "/usr/bin:/bin")
    }

    /// The stand-in's pid and its grandchild's, once it wrote them.
    func recorded(within seconds: Double) -> [pid_t] {
      let deadline = Date().addingTimeInterval(seconds)
      while Date() < deadline {
        if let text = try? String(contentsOf: pids, encoding: .utf8), text.hasSuffix("\n") {
          return text.split(whereSeparator: { $0 == " " || $0 == "\n" }).compactMap { pid_t($0) }
        }
        usleep(50_000)
      }
      return []
    }
  }

  /// A pid that still runs (zombies of the test's own children aside: those are reaped).
  private func isAlive(_ pid: pid_t) -> Bool {
    guard kill(pid, 0) == 0 else { return false }
    let status = (try? String(contentsOfFile: "/proc/\(pid)/status", encoding: .utf8)) ?? ""
    return !status.contains("State:\tZ")
  }

  /// Temporaries (`.<name>.tmp-<pid>-<id>`, `release-*` scratch) left anywhere below `directory`.
  private func temporaries(below directory: URL) -> [String] {
    let paths =
      FileManager.default.enumerator(atPath: directory.path)?.allObjects.compactMap { $0 as? String } ?? []
    return paths.filter { path in
      let name = (path as NSString).lastPathComponent
      return name.contains(".tmp-") || name.hasPrefix("release-")
    }
  }

  func testASwiftThatNeverEndsIsStoppedAtTheTimeLimitWithEverythingItStarted() throws {
    let workspace = try Workspace(manifest: PublishFixtures.manifest)
    let swift = try HangingSwift()
    let cache = workspace.file("cache")
    let run = try ReleaseBinary.run(
      ["customer", "acme", "--timeout", "3s", "--cache", cache.path], in: workspace.root,
      environment: ["PATH": swift.path], timeout: 60)
    XCTAssertFalse(run.timedOut, "release itself hung: \(run.allOutput)")
    XCTAssertEqual(run.exitCode, 1, run.allOutput)
    XCTAssertTrue(
      run.allOutput.contains(
        "swift test: still running after 3s, stopped with everything it started (raise the limit with --timeout)"
      ), run.allOutput)
    let pids = swift.recorded(within: 1)
    XCTAssertEqual(pids.count, 2, "the stand-in and its grandchild recorded their pids")
    for pid in pids { XCTAssertFalse(isAlive(pid), "pid \(pid) survived") }
    // The locks are free: another run starts (and is refused for its own, unrelated reason).
    let again = try ReleaseBinary.run(
      ["customer", "acme", "--timeout", "1s", "--cache", cache.path], in: workspace.root,
      environment: ["PATH": swift.path], timeout: 60)
    XCTAssertFalse(again.allOutput.contains("another release is running"), again.allOutput)
  }

  private func interrupt(with signal: Int32, expecting code: Int32, name: String) throws {
    let workspace = try Workspace(manifest: PublishFixtures.manifest)
    let swift = try HangingSwift()
    let temporary = workspace.file("tmp")
    try FileManager.default.createDirectory(at: temporary, withIntermediateDirectories: true)
    let cache = workspace.file("cache")
    let running = try RunningBinary(
      ["all", "--cache", cache.path], in: workspace.root,
      environment: ReleaseBinary.environment(["PATH": swift.path, "TMPDIR": temporary.path]))
    XCTAssertFalse(swift.recorded(within: 120).isEmpty, "swift test started")
    kill(running.pid, signal)
    let run = running.wait(timeout: 30)
    // Every stand-in that started (one per parallel customer) and its grandchild.
    let pids = swift.recorded(within: 1)
    XCTAssertFalse(run.timedOut, run.allOutput)
    XCTAssertNil(run.signal, "release ended by the signal itself instead of handling it: \(run.allOutput)")
    XCTAssertEqual(run.exitCode, code, run.allOutput)
    XCTAssertTrue(run.standardError.contains("release: interrupted by \(name); stopped "), run.standardError)
    for pid in pids { XCTAssertFalse(isAlive(pid), "pid \(pid) survived \(name)") }
    for directory in [workspace.dist, cache, temporary] {
      XCTAssertEqual(temporaries(below: directory), [], "temporaries left in \(directory.path)")
    }
    XCTAssertEqual(DistInspection.problems(in: workspace.dist), [])
  }

  func testSIGTERMWhileSwiftTestRunsLeavesNoProcessAndNoTemporaryFile() throws {
    try interrupt(with: SIGTERM, expecting: 143, name: "SIGTERM")
  }

  func testSIGINTWhileSwiftTestRunsLeavesNoProcessAndNoTemporaryFile() throws {
    try interrupt(with: SIGINT, expecting: 130, name: "SIGINT")
  }

  /// `release all --json | head -1`: the reader goes away after one line; the run goes on to the
  /// end (its dist/ complete, its state written) and says so with exit 3. It builds with a
  /// stand-in `swift` (`StandInSwift`): what is checked is the run's output and files.
  func testAReaderThatGoesAwayDoesNotStopTheRun() throws {
    let workspace = try Workspace(manifest: PublishFixtures.manifest)
    let swift = try StandInSwift()
    let pipe = Pipe()
    let process = Process()
    process.executableURL = ReleaseBinary.url
    process.arguments = ["all", "--skip-tests", "--json"] + swift.cacheArguments
    process.currentDirectoryURL = workspace.root
    process.environment = ReleaseBinary.environment(swift.environment)
    process.standardInput = FileHandle.nullDevice
    process.standardOutput = pipe
    let errors = workspace.file("stderr")
    _ = FileManager.default.createFile(atPath: errors.path, contents: nil)
    process.standardError = try FileHandle(forWritingTo: errors)
    try process.run()
    // Read the first line, then close the reading end, as `head -1` does.
    var first = Data()
    while !first.contains(UInt8(ascii: "\n")) {
      let chunk = pipe.fileHandleForReading.availableData
      if chunk.isEmpty { break }
      first.append(chunk)
    }
    try pipe.fileHandleForReading.close()
    try pipe.fileHandleForWriting.close()
    let deadline = Date().addingTimeInterval(300)
    while process.isRunning && Date() < deadline { usleep(50_000) }
    XCTAssertFalse(process.isRunning)
    if process.isRunning { process.terminate() }
    XCTAssertTrue(String(decoding: first, as: UTF8.self).contains("\"event\""))
    XCTAssertEqual(process.terminationReason, .exit, "killed by SIGPIPE")
    XCTAssertEqual(process.terminationStatus, CommandLineInterface.outputLostExitCode)
    XCTAssertTrue(
      (try String(contentsOf: errors, encoding: .utf8)).contains("standard output was closed by its reader"))
    XCTAssertEqual(DistInspection.problems(in: workspace.dist), [])
    for id in ["acme", "bluebird"] {
      XCTAssertTrue(
        FileManager.default.fileExists(atPath: workspace.dist.appendingPathComponent(id).path), id)
    }
    let state = try ReleaseState.load(
      from: workspace.file("release-state.json"), displayPath: "release-state.json")
    XCTAssertEqual(Set(state.customers.keys), ["acme", "bluebird"], "the state was written")
  }

  /// What `release verify` builds is the archive's code: it sees a home and temp dir of its own
  /// and none of the user's secrets.
  func testVerifyBuildsInAnAllowListedEnvironmentWithItsOwnHome() throws {
    let planted = [
      "AWS_SECRET_ACCESS_KEY": "planted-aws", "SSH_AUTH_SOCK": "/tmp/planted-agent",
      "GITHUB_TOKEN": "planted-gh",
      "HOME": "/root/planted-home", "NPM_TOKEN": "planted-npm", "PATH": "/usr/bin:/bin", "LANG": "C.UTF-8",
    ]
    let home = URL(fileURLWithPath: "/tmp/verify-home")
    let temporary = URL(fileURLWithPath: "/tmp/verify-tmp")
    let environment = UntrustedBuildEnvironment.make(from: planted, home: home, temporary: temporary)
    XCTAssertEqual(
      environment, ["PATH": "/usr/bin:/bin", "LANG": "C.UTF-8", "HOME": home.path, "TMPDIR": temporary.path])

    // Through the command: every process verify starts gets such an environment. The release
    // to verify is built with a stand-in `swift`: verify's own processes are scripted below.
    let workspace = try Workspace(manifest: PublishFixtures.manifest)
    let swift = try StandInSwift()
    let built = workspace.run(
      ["customer", "acme", "--skip-tests"] + swift.cacheArguments, environment: swift.environment)
    XCTAssertEqual(built.exitCode, 0, built.allOutput)
    let runner = ScriptedProcessRunner()
    runner.on("swift", "build") { invocation in
      ProcessResult(
        exitCode: 0, standardOutput: invocation.arguments.contains("--show-bin-path") ? "/nonexistent\n" : "")
    }
    runner.on("swift", "test") { _ in ProcessResult(exitCode: 0) }
    runner.on("/nonexistent/Consumer") { _ in
      ProcessResult(exitCode: 0, standardOutput: "ok onboarding_upsell\n")
    }
    let output = CapturedOutput()
    let services = Services(
      processRunner: runner, clock: ManualClock(), root: workspace.root,
      environment: ProcessInfo.processInfo.environment.merging(planted) { $1 }, output: output)
    XCTAssertEqual(
      CommandLineInterface.main(arguments: ["verify", "dist"], services: services), 0,
      output.standardError.joined())
    XCTAssertEqual(runner.invocations.count, 4, runner.invocations.map(\.commandLine).joined(separator: "\n"))
    for invocation in runner.invocations {
      let seen = try XCTUnwrap(invocation.environment, invocation.commandLine)
      XCTAssertEqual(Set(seen.keys).subtracting(UntrustedBuildEnvironment.allowed), ["HOME", "TMPDIR"])
      XCTAssertNotEqual(seen["HOME"], planted["HOME"])
      XCTAssertTrue(seen["HOME"]?.hasPrefix(FileManager.default.temporaryDirectory.path) == true)
      XCTAssertEqual(invocation.timeLimit, BuildSettings().timeout)
    }
  }
}
