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

  /// Captured output is read into memory: a child that prints without end (or far more than
  /// git or `swift --version` ever do) is stopped and reported, not kept.
  func testCapturedOutputIsBounded() throws {
    let started = Date()
    XCTAssertThrowsError(
      try SystemProcessRunner().run(
        ProcessInvocation("sh", ["-c", "head -c 40000000 /dev/zero | tr '\\0' a"], timeLimit: 60))
    ) { error in
      XCTAssertTrue("\(error)".contains("printed more than 33554432 bytes on standard output"), "\(error)")
    }
    XCTAssertLessThan(Date().timeIntervalSince(started), 30)
  }

  /// The child has ended, but a process it started in a session of its own (out of reach of
  /// the group kill) still holds the output pipe open: the output read so far is returned
  /// within seconds, not when that process lets go.
  func testAnEscapedGrandchildHoldingThePipeDoesNotHoldTheRun() throws {
    let started = Date()
    let result = try SystemProcessRunner().run(
      ProcessInvocation("sh", ["-c", "setsid sleep 25 & sleep 1; echo done"], timeLimit: 60))
    XCTAssertEqual(result.standardOutput, "done\n")
    XCTAssertLessThan(Date().timeIntervalSince(started), 15, "waited for the escaped grandchild")
  }

  /// Measured: children spawned from a Dispatch worker inherited a mask blocking SIGTERM and
  /// friends, and ignored `kill -TERM`. Every child starts with nothing blocked or ignored.
  func testAChildStartsWithNoSignalBlockedOrIgnoredWhateverTheSpawningThread() throws {
    #if os(Linux)
      let result = Locked<Result<ProcessResult, Error>?>(nil)
      let done = DispatchSemaphore(value: 0)
      DispatchQueue.global().async {
        // As a run has it: SIGPIPE ignored, and this worker thread blocking everything.
        signal(SIGPIPE, SIG_IGN)
        var all = sigset_t()
        sigfillset(&all)
        pthread_sigmask(SIG_BLOCK, &all, nil)
        result.set(
          Result {
            try SystemProcessRunner().run(
              ProcessInvocation("grep", ["-E", "^Sig(Blk|Ign)", "/proc/self/status"]))
          })
        done.signal()
      }
      XCTAssertEqual(done.wait(timeout: .now() + 30), .success)
      let output = try XCTUnwrap(result.value).get().standardOutput
      var masks: [String: UInt64] = [:]
      for line in output.split(separator: "\n") {
        let fields = line.split(separator: ":")
        if fields.count == 2 {
          masks[String(fields[0])] = UInt64(fields[1].trimmingCharacters(in: .whitespaces), radix: 16)
        }
      }
      // Bit n-1 is signal n. The standard signals 1-31 must be neither blocked nor ignored (32
      // and 33 are glibc's own, kept by every spawn).
      let standard: UInt64 = 0x7FFF_FFFF
      XCTAssertEqual(masks["SigBlk"].map { $0 & standard }, 0, output)
      XCTAssertEqual(masks["SigIgn"].map { $0 & standard }, 0, output)
      signal(SIGPIPE, SIG_DFL)
    #else
      XCTFail("the signal mask is read from /proc, which this platform lacks")
    #endif
  }

  /// A child past its time limit is stopped with everything it started, promptly, with a
  /// message naming it and the option that raises the limit.
  func testAChildPastItsTimeLimitIsStoppedWithItsWholeGroup() throws {
    let directory = try TemporaryDirectory()
    let pids = directory.url.appendingPathComponent("pids")
    let started = Date()
    XCTAssertThrowsError(
      try SystemProcessRunner().run(
        ProcessInvocation(
          "sh", ["-c", "trap '' TERM; sleep 1000 & echo $$ $! > \(pids.path); while true; do sleep 1; done"],
          timeLimit: 1, timeLimitOption: "--timeout"))
    ) { error in
      XCTAssertEqual(
        "\(error)",
        "sh -c \(["trap '' TERM; sleep 1000 & echo $$ $! > \(pids.path); while true; do sleep 1; done"][0]): still running after 1s, stopped with everything it started (raise the limit with --timeout)"
      )
    }
    // The shell ignores SIGTERM: SIGKILL after the grace ends it anyway.
    XCTAssertLessThan(Date().timeIntervalSince(started), 15)
    let recorded = try String(contentsOf: pids, encoding: .utf8).split(whereSeparator: {
      $0 == " " || $0 == "\n"
    })
    .compactMap { pid_t($0) }
    XCTAssertEqual(recorded.count, 2)
    for pid in recorded {
      // Gone, or a zombie waiting for a parent that is gone too (pid 1 need not reap here).
      let status = (try? String(contentsOfFile: "/proc/\(pid)/status", encoding: .utf8)) ?? ""
      XCTAssertTrue(
        kill(pid, 0) != 0 || status.contains("State:\tZ"), "pid \(pid) survived: \(status.prefix(80))")
    }
  }

  /// A child inherits only stdin, stdout and stderr: not a lock the run holds (an orphaned
  /// child would keep it locked after the run is gone), nor its logs or sockets.
  func testAChildInheritsNoDescriptorOfTheRun() throws {
    #if os(Linux)
      let directory = try TemporaryDirectory()
      let lockFile = directory.url.appendingPathComponent("run.lock")
      let lock = try FileLock(lockFile)
      let held = FileHandle(forReadingAtPath: "/etc/hostname")
      let result = try withExtendedLifetime((lock, held)) {
        try SystemProcessRunner().run(
          ProcessInvocation(
            "sh", ["-c", "for f in /proc/$$/fd/*; do echo \"${f##*/} $(readlink $f)\"; done"]))
      }
      let descriptors = result.standardOutput.split(separator: "\n").map { String($0.prefix { $0 != " " }) }
      XCTAssertFalse(result.standardOutput.contains(lockFile.path), result.standardOutput)
      XCTAssertFalse(result.standardOutput.contains("/etc/hostname"), result.standardOutput)
      XCTAssertTrue(Set(descriptors).isSubset(of: ["0", "1", "2", "3"]), result.standardOutput)
    #else
      XCTFail("open descriptors are read from /proc, which this platform lacks")
    #endif
  }
}
