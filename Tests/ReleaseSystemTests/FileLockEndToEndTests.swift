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
    // flock(1) from util-linux holds the lock in a child process.
    let child = Process()
    child.executableURL = URL(fileURLWithPath: "/usr/bin/flock")
    child.arguments = [url.path, "sleep", "30"]
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
