import Foundation
import ReleaseCore
import ReleaseTestSupport
import XCTest

@testable import ReleaseVerification

/// Which releases verify's arguments name: a zip or release.json names its directory, a
/// release directory itself, a dist directory every `<id>/<version>/` below it.
final class FindReleasesStepTests: XCTestCase {
  func testEachKindOfArgumentNamesItsReleasesInOrder() throws {
    let directory = try TemporaryDirectory()
    let dist = directory.url.appendingPathComponent("dist")
    for release in ["beta/1.0.0", "acme/1.0.1", "acme/1.0.0", ".hidden/1.0.0", "acme/.partial"] {
      let url = dist.appendingPathComponent(release)
      try FileManager.default.createDirectory(at: url, withIntermediateDirectories: true)
      try Data("{}".utf8).write(to: url.appendingPathComponent("release.json"))
    }
    try Data().write(to: dist.appendingPathComponent("acme/1.0.0/Acme-1.0.0.zip"))
    let step = StepContext(root: directory.url)

    let found = try step.pipeline.run(
      FindReleasesStep(),
      ["dist", "dist/acme/1.0.0/Acme-1.0.0.zip", "dist/beta/1.0.0/release.json", "dist/beta/1.0.0"])

    let acme = dist.appendingPathComponent("acme/1.0.0").standardizedFileURL
    let beta = dist.appendingPathComponent("beta/1.0.0").standardizedFileURL
    XCTAssertEqual(
      found,
      [
        ReleaseLocation(directory: acme),
        ReleaseLocation(directory: dist.appendingPathComponent("acme/1.0.1")),
        ReleaseLocation(directory: beta),
        ReleaseLocation(directory: acme, namedArchive: "Acme-1.0.0.zip"), ReleaseLocation(directory: beta),
        ReleaseLocation(directory: beta),
      ].map { ReleaseLocation(directory: $0.directory.standardizedFileURL, namedArchive: $0.namedArchive) })
  }

  func testAnArgumentThatNamesNoReleaseIsAUsageError() throws {
    let directory = try TemporaryDirectory()
    try FileManager.default.createDirectory(
      at: directory.url.appendingPathComponent("empty"), withIntermediateDirectories: true)
    try Data().write(to: directory.url.appendingPathComponent("notes.txt"))
    let step = StepContext(root: directory.url)
    for (argument, expected) in [
      ("missing", "verify missing: no such file or directory"),
      ("notes.txt", "verify notes.txt: expected a .zip, a release.json or a directory"),
      ("empty", "verify empty: no release.json in it or in <id>/<version>/ below it"),
    ] {
      XCTAssertThrowsError(try step.pipeline.run(FindReleasesStep(), [argument])) { error in
        XCTAssertEqual((error as? ReleaseError)?.lines, [expected])
        XCTAssertEqual((error as? ReleaseError)?.exitCode, 2)
      }
    }
  }
}
