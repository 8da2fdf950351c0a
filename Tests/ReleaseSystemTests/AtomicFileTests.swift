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
}
