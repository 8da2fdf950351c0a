import Foundation
import ReleaseSystem
import XCTest

/// `ProcessInvocation.writeLimit`: a child writing without end below a directory is stopped
/// while it runs, not when the disk is full, and the run says what it found and the limit.
final class ProcessWriteLimitTests: XCTestCase {
  func testAChildWritingPastItsLimitIsStoppedWhileItRuns() throws {
    let directory = try TemporaryDirectory()
    let limit = WriteLimit(directory: directory.url, bytes: 256 * 1024)
    // 64 KiB every 10 ms, 125 MiB in all unless it is stopped.
    let script = "i=0; while [ $i -lt 2000 ]; do head -c 65536 /dev/zero >> out; sleep 0.01; i=$((i+1)); done"
    let started = Date()
    XCTAssertThrowsError(
      try SystemProcessRunner().run(
        ProcessInvocation("sh", ["-c", script], in: directory.url, timeLimit: 60, writeLimit: limit))
    ) { error in
      guard case SystemError.wroteTooMuch(let command, let path, let written, let bytes) = error else {
        return XCTFail("expected wroteTooMuch, got \(error)")
      }
      XCTAssertEqual(command, "sh -c \(script)")
      XCTAssertEqual(path, directory.url.path)
      XCTAssertEqual(bytes, 256 * 1024)
      XCTAssertGreaterThan(written, bytes)
      XCTAssertEqual(
        "\(error)",
        "sh -c \(script): wrote \(written) bytes below \(directory.url.path), more than the \(bytes) it may; stopped with everything it started"
      )
    }
    XCTAssertLessThan(Date().timeIntervalSince(started), 20, "stopped while it ran, not at its end")
    // What the child left is about the limit, nowhere near what it would have written.
    XCTAssertLessThan(limit.written(), 16 * 1024 * 1024)
  }

  func testAChildWithinItsLimitRunsAsUsual() throws {
    let directory = try TemporaryDirectory()
    let result = try SystemProcessRunner().run(
      ProcessInvocation(
        "sh", ["-c", "head -c 1000 /dev/zero > out; echo done"], in: directory.url,
        writeLimit: WriteLimit(directory: directory.url, bytes: 1000)))
    XCTAssertEqual(result.exitCode, 0)
    XCTAssertEqual(result.standardOutput, "done\n")
    XCTAssertEqual(WriteLimit(directory: directory.url, bytes: 1000).written(), 1000)
  }
}
