import Foundation
import ReleaseSystem
import XCTest

final class FileTreeTests: XCTestCase {
  private func inode(_ url: URL) throws -> Int {
    try XCTUnwrap(FileManager.default.attributesOfItem(atPath: url.path)[.systemFileNumber] as? Int)
  }

  func testADirectoryIsCopiedWithItsFilesLinkedOnOneFileSystem() throws {
    let directory = try TemporaryDirectory()
    let source = directory.url.appendingPathComponent("shard/acme/2.4.0")
    try FileManager.default.createDirectory(
      at: source.appendingPathComponent("nested"), withIntermediateDirectories: true)
    try Data("zip".utf8).write(to: source.appendingPathComponent("a.zip"))
    try Data("json".utf8).write(to: source.appendingPathComponent("nested/release.json"))
    let destination = directory.url.appendingPathComponent("merged")

    try FileTree.linkOrCopy(directory: source, to: destination)

    for path in ["a.zip", "nested/release.json"] {
      let copy = destination.appendingPathComponent(path)
      XCTAssertEqual(
        try Data(contentsOf: copy), try Data(contentsOf: source.appendingPathComponent(path)), path)
      XCTAssertEqual(try inode(copy), try inode(source.appendingPathComponent(path)), "\(path) is a link")
    }
    XCTAssertEqual(
      try FileManager.default.contentsOfDirectory(atPath: destination.path).sorted(), ["a.zip", "nested"])
  }

  func testASymbolicLinkInTheSourceIsRefusedByName() throws {
    let directory = try TemporaryDirectory()
    let source = directory.url.appendingPathComponent("release")
    try FileManager.default.createDirectory(at: source, withIntermediateDirectories: true)
    try FileManager.default.createSymbolicLink(
      at: source.appendingPathComponent("release.json"),
      withDestinationURL: URL(fileURLWithPath: "/etc/passwd"))
    XCTAssertThrowsError(
      try FileTree.linkOrCopy(directory: source, to: directory.url.appendingPathComponent("copy"))
    ) { error in
      XCTAssertEqual(
        "\(error)",
        "\(source.appendingPathComponent("release.json").path): a symbolic link, not a regular file")
    }
  }

  func testAnExistingDestinationIsNotWrittenInto() throws {
    let directory = try TemporaryDirectory()
    let source = directory.url.appendingPathComponent("source")
    let destination = directory.url.appendingPathComponent("destination")
    for url in [source, destination] {
      try FileManager.default.createDirectory(at: url, withIntermediateDirectories: true)
    }
    try Data("new".utf8).write(to: source.appendingPathComponent("file"))
    XCTAssertThrowsError(try FileTree.linkOrCopy(directory: source, to: destination))
    XCTAssertEqual(try FileManager.default.contentsOfDirectory(atPath: destination.path), [])
  }
}
