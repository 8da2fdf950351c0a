import Foundation
import ReleaseSystem
import XCTest

final class ProcessRunnerTests: XCTestCase {
  func testCapturesOutputAndExitCode() throws {
    let result = try SystemProcessRunner().run(
      ProcessInvocation("sh", ["-c", "echo out; echo err >&2; exit 3"]))
    XCTAssertEqual(result.exitCode, 3)
    XCTAssertEqual(result.standardOutput, "out\n")
    XCTAssertEqual(result.standardError, "err\n")
  }

  func testStreamsToLogFileAppending() throws {
    let directory = try TemporaryDirectory()
    let log = directory.url.appendingPathComponent("logs/build.log")
    let runner = SystemProcessRunner()
    _ = try runner.run(ProcessInvocation("sh", ["-c", "echo one; echo two >&2"], logFile: log))
    _ = try runner.run(ProcessInvocation("sh", ["-c", "echo three"], logFile: log))
    let lines = try String(contentsOf: log, encoding: .utf8).split(separator: "\n").map(String.init)
    XCTAssertEqual(Set(lines.prefix(2)), ["one", "two"])
    XCTAssertEqual(lines.last, "three")
  }

  func testMissingProgramIsATypedError() {
    XCTAssertThrowsError(try SystemProcessRunner().run(ProcessInvocation("no-such-program-xyz", []))) {
      error in
      XCTAssertEqual(error as? SystemError, .programNotFound(name: "no-such-program-xyz"))
    }
  }

  func testLargeOutputDoesNotDeadlock() throws {
    // 1 MB on each pipe: more than a pipe buffer, so both must be drained concurrently.
    let result = try SystemProcessRunner().run(
      ProcessInvocation(
        "sh", ["-c", "head -c 1000000 /dev/zero | tr '\\0' a; head -c 1000000 /dev/zero | tr '\\0' b >&2"]))
    XCTAssertEqual(result.standardOutput.count, 1_000_000)
    XCTAssertEqual(result.standardError.count, 1_000_000)
  }
}
