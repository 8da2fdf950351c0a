import Foundation
import ReleaseCLITestSupport
import ReleaseSystem
import ReleaseTestSupport
import XCTest

#if canImport(Glibc)
  import Glibc
#endif

/// Issue 12, "indexes with two publishers": an index in a directory destination that exists
/// but cannot be read stops the publish; only "no such file" counts as empty, or the next
/// write would replace an index it never read. (The suite runs as root, so a permission cannot
/// be taken away: a directory or a FIFO in the index's place, and a file where its directory
/// should be, stand for the unreadable index.) Each run is its own process with a time limit.
final class UnreadableIndexEndToEndTests: XCTestCase {
  private func assertPublishStops(
    _ label: String, prepare: (URL) throws -> Void, naming key: String, reason: String,
    file: StaticString = #filePath,
    line: UInt = #line
  ) throws {
    let workspace = try BuiltFixture.shared.get().copy()
    let destination = try TemporaryDirectory()
    try prepare(destination.url)
    let run = try ReleaseBinary.run(
      [
        "customer", "acme", "--skip-tests", "--allow-dirty", "--publish", "dir:\(destination.url.path)",
        "--cache", workspace.file("cache").path,
      ], in: workspace.root, timeout: 60)
    XCTAssertFalse(run.timedOut, "\(label): the publish hung on the index", file: file, line: line)
    XCTAssertEqual(run.exitCode, 1, "\(label): \(run.allOutput)", file: file, line: line)
    XCTAssertTrue(
      run.standardErrorLines.contains {
        $0.contains("\(destination.url.appendingPathComponent(key).path): \(reason)")
      },
      "\(label): names \(key): \(run.allOutput)", file: file, line: line)
    let tags = try SystemProcessRunner().run(ProcessInvocation("git", ["tag", "-l"], in: workspace.root))
    XCTAssertEqual(tags.standardOutput, "", "\(label): nothing tagged", file: file, line: line)
  }

  func testAnIndexThatExistsButCannotBeReadStopsThePublish() throws {
    try assertPublishStops(
      "index.json is a directory",
      prepare: {
        try FileManager.default.createDirectory(
          at: $0.appendingPathComponent("index.json/x"), withIntermediateDirectories: true)
      },
      naming: "index.json", reason: "a directory, not a regular file")
    try assertPublishStops(
      "customers/ is a file",
      prepare: { try Data("not a directory".utf8).write(to: $0.appendingPathComponent("customers")) },
      naming: "customers/acme/index.json", reason: "cannot read: Not a directory")
    try assertPublishStops(
      "customers/acme/index.json is a FIFO",
      prepare: { root in
        let directory = root.appendingPathComponent("customers/acme")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        XCTAssertEqual(mkfifo(directory.appendingPathComponent("index.json").path, 0o644), 0)
      },
      naming: "customers/acme/index.json", reason: "a FIFO, not a regular file")
  }
}
