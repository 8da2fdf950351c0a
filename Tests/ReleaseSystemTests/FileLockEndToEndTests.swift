import Foundation
import ReleaseSystem
import XCTest

final class FileLockEndToEndTests: XCTestCase {
  func testSecondHolderFailsClearlyUntilTheFirstReleases() throws {
    let directory = try TemporaryDirectory()
    let url = directory.url.appendingPathComponent("release.lock")
    var first: FileLock? = try FileLock(url)
    XCTAssertNotNil(first)
    XCTAssertThrowsError(try FileLock(url)) { error in
      guard case SystemError.locked(let path, let holder) = error else { return XCTFail("\(error)") }
      XCTAssertEqual(path, url.path)
      XCTAssertEqual(holder, "pid \(getpid())")
    }
    first = nil
    XCTAssertNoThrow(try FileLock(url))
  }

  func testLockHeldByAnotherProcessIsSeenAndFreedWhenItIsKilled() throws {
    let directory = try TemporaryDirectory()
    let url = directory.url.appendingPathComponent("release.lock")
    // flock(1) from util-linux takes the lock on the shell's descriptor 9, and the shell
    // becomes `sleep` (exec, same process): the child is the lock's only holder, so killing it
    // frees the lock (`flock <file> sleep` would leave its own child `sleep` holding it).
    let child = Process()
    child.executableURL = URL(fileURLWithPath: "/bin/sh")
    child.arguments = ["-c", #"exec 9>>"$1" && /usr/bin/flock 9 && exec sleep 30"#, "sh", url.path]
    try child.run()
    defer { if child.isRunning { child.terminate() } }
    var sawLocked = false
    for _ in 0..<50 where !sawLocked {  // bounded: at most 5 s for the child to take the lock
      do { _ = try FileLock(url) } catch { sawLocked = true; break }
      usleep(100_000)
    }
    XCTAssertTrue(sawLocked, "the child's lock was never seen")
    kill(child.processIdentifier, SIGKILL)
    child.waitUntilExit()
    XCTAssertNoThrow(try FileLock(url, timeout: 5))
  }
}
