import Foundation
import ReleaseSystem
import XCTest

final class AtomicFileTests: XCTestCase {
  func testWriteCreatesDirectoriesAndLeavesNoTemporaryFiles() throws {
    let directory = try TemporaryDirectory()
    let target = directory.url.appendingPathComponent("a/b/file.txt")
    try AtomicFile.write("hello\n", to: target)
    XCTAssertEqual(try String(contentsOf: target, encoding: .utf8), "hello\n")
    XCTAssertEqual(
      try FileManager.default.contentsOfDirectory(atPath: target.deletingLastPathComponent().path),
      ["file.txt"])
  }

  func testFailedProduceLeavesNothingUnderTheFinalName() throws {
    struct Interrupted: Error {}
    let directory = try TemporaryDirectory()
    let target = directory.url.appendingPathComponent("artifact.zip")
    XCTAssertThrowsError(
      try AtomicFile.produce(target) { temporary in
        try Data("half".utf8).write(to: temporary)
        throw Interrupted()
      })
    XCTAssertEqual(try FileManager.default.contentsOfDirectory(atPath: directory.url.path), [])
  }

  func testReplaceKeepsOldContentUntilTheNewIsComplete() throws {
    let directory = try TemporaryDirectory()
    let target = directory.url.appendingPathComponent("state.json")
    try AtomicFile.write("old", to: target)
    struct Interrupted: Error {}
    XCTAssertThrowsError(
      try AtomicFile.produce(target) { temporary in
        try Data("new-but-broken".utf8).write(to: temporary)
        throw Interrupted()
      })
    XCTAssertEqual(try String(contentsOf: target, encoding: .utf8), "old")
  }

  func testWriteIntoReadOnlyDirectoryIsATypedError() throws {
    guard getuid() != 0 else {
      // root ignores directory permissions; a file in place of the directory fails for anyone.
      let directory = try TemporaryDirectory()
      let blocker = directory.url.appendingPathComponent("blocker")
      try Data().write(to: blocker)
      XCTAssertThrowsError(try AtomicFile.write("x", to: blocker.appendingPathComponent("file"))) { error in
        XCTAssertTrue(error is SystemError, "\(error)")
      }
      return
    }
    let directory = try TemporaryDirectory()
    try FileManager.default.setAttributes([.posixPermissions: 0o500], ofItemAtPath: directory.url.path)
    defer {
      try? FileManager.default.setAttributes([.posixPermissions: 0o700], ofItemAtPath: directory.url.path)
    }
    XCTAssertThrowsError(try AtomicFile.write("x", to: directory.url.appendingPathComponent("file"))) {
      error in
      XCTAssertTrue(error is SystemError, "\(error)")
    }
  }

  /// Issue 12: replacing a release directory leaves no moment without one. A reader polls it
  /// while it is replaced 200 times; it always finds a complete directory.
  func testReplacingADirectoryLeavesNoMomentWithoutIt() throws {
    let directory = try TemporaryDirectory()
    let final = directory.url.appendingPathComponent("2.4.0")
    try FileManager.default.createDirectory(at: final, withIntermediateDirectories: true)
    try "0".write(to: final.appendingPathComponent("release.json"), atomically: true, encoding: .utf8)
    let missing = Locked(0)
    let stop = Locked(false)
    let reader = Thread {
      while !stop.value {
        if !FileManager.default.fileExists(atPath: final.appendingPathComponent("release.json").path) {
          missing.withLock { $0 += 1 }
        }
      }
    }
    reader.start()
    for round in 1...200 {
      let next = AtomicFile.temporarySibling(of: final)
      try FileManager.default.createDirectory(at: next, withIntermediateDirectories: true)
      try "\(round)".write(to: next.appendingPathComponent("release.json"), atomically: true, encoding: .utf8)
      try AtomicFile.replace(final, with: next)
    }
    stop.set(true)
    while reader.isExecuting { usleep(1_000) }
    XCTAssertEqual(missing.value, 0, "a reader found no release directory")
    XCTAssertEqual(
      try String(contentsOf: final.appendingPathComponent("release.json"), encoding: .utf8), "200")
    XCTAssertEqual(try FileManager.default.contentsOfDirectory(atPath: directory.url.path), ["2.4.0"])
  }
}
