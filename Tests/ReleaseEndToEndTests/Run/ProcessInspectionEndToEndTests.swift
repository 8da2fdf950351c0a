import Foundation
import ReleaseSystem
import ReleaseTestSupport
import XCTest

/// `release` makes itself not dumpable on Linux (`prctl(PR_SET_DUMPABLE, 0)`): a process of the
/// same user, without `CAP_SYS_PTRACE`, cannot read its `/proc/<pid>/environ` at all. The
/// suite runs as root, which may read it anyway, so the executable runs here as `nobody`
/// (`setpriv`), and so does the `git` it starts, which tries.
final class ProcessInspectionEndToEndTests: XCTestCase {
  func testAChildOfTheSameUserCannotReadTheRunsProcessFiles() throws {
    #if os(Linux)
      guard getuid() == 0, let setpriv = SystemProcessRunner.find("setpriv") else {
        throw XCTSkip("needs root and setpriv to run the executable as another user")
      }
      // Not below the test run's TMPDIR, whose directories only root may enter.
      let directory = URL(fileURLWithPath: "/tmp/release-inspection-\(UUID().uuidString)")
      defer { try? FileManager.default.removeItem(at: directory) }
      let shims = directory.appendingPathComponent("bin")
      let result = directory.appendingPathComponent("result")
      try FileManager.default.createDirectory(at: shims, withIntermediateDirectories: true)
      try """
      #!/bin/sh
      if cat "/proc/$PPID/environ" > /dev/null 2>&1; then echo readable; else echo refused; fi > "\(result.path)"
      exit 128

      """.write(to: shims.appendingPathComponent("git"), atomically: true, encoding: .utf8)
      for (path, mode) in [(directory.path, 0o777), (shims.path, 0o755), (shims.path + "/git", 0o755)] {
        try FileManager.default.setAttributes([.posixPermissions: mode], ofItemAtPath: path)
      }
      let run = try SystemProcessRunner().run(
        ProcessInvocation(
          setpriv.path,
          // The runner gives the child a TMPDIR below the test run's: `env` sets one nobody may use.
          [
            "--reuid=65534", "--regid=65534", "--clear-groups", "/usr/bin/env", "TMPDIR=\(directory.path)",
            ReleaseBinary.url.path, "keys", "generate", "keys",
          ],
          in: directory,
          environment: ["PATH": shims.path + ":/usr/bin:/bin", "HOME": directory.path], timeLimit: 60))
      XCTAssertEqual(run.exitCode, 0, run.standardOutput + run.standardError)
      XCTAssertEqual(
        try String(contentsOf: result, encoding: .utf8), "refused\n", "git read its parent's process files")
    #else
      throw XCTSkip("/proc and prctl are Linux's")
    #endif
  }
}
