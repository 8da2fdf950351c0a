import XCTest

@testable import ReleaseArchive

final class ArchiveErrorTests: XCTestCase {
  func testMessagesNameTheArchiveTheEntryAndWhatWasFound() {
    let cases: [(ArchiveError, String)] = [
      (
        .escapingPath(archive: "dist/x.zip", entry: "../evil"),
        "dist/x.zip: entry '../evil' escapes the top-level directory"
      ),
      (
        .unsafeEntryType(archive: "dist/x.zip", entry: "Pkg/link", found: .symlink),
        "dist/x.zip: entry 'Pkg/link' is a symbolic link (expected a regular file or directory)"
      ),
      (
        .notOneTopLevelDirectory(archive: "dist/x.zip", found: ["A/", "README"]),
        "dist/x.zip: expected exactly one top-level directory, found 'A/', 'README'"
      ),
      (
        .notOneTopLevelDirectory(archive: "dist/x.zip", found: []),
        "dist/x.zip: expected exactly one top-level directory, found none"
      ),
      (
        .sizeMismatch(archive: "dist/x.zip", entry: "Pkg/a", declared: 1000, read: 5),
        "dist/x.zip: entry 'Pkg/a' declares 1000 bytes but holds 5"
      ),
      (
        .sizeMismatch(archive: "dist/x.zip", entry: "Pkg/a", declared: 5, read: 65541),
        "dist/x.zip: entry 'Pkg/a' declares 5 bytes but holds at least 65541"
      ),
      (
        .libarchive(
          archive: "dist/x.zip", entry: "Pkg/a", operation: "read data", message: "Truncated ZIP file data"),
        "dist/x.zip: entry 'Pkg/a': cannot read data: Truncated ZIP file data"
      ),
      (
        .libarchive(
          archive: "dist/x.zip", entry: nil, operation: "open", message: "Unrecognized archive format"),
        "dist/x.zip: cannot open: Unrecognized archive format"
      ),
    ]
    for (error, message) in cases {
      XCTAssertEqual(error.description, message)
      XCTAssertFalse(error.description.contains("\n"))
    }
  }
}
