import Foundation
import ReleaseJSON
import XCTest

@testable import ReleaseManifest

/// Runs every bad manifest under `Tests/Fixtures/Manifests/Invalid/` against the template's
/// features and compares the reported lines with the hand-written `<case>.expected` next to it
/// (see the README there).
final class ManifestCorpusTests: XCTestCase {
  static let minimumCaseCount = 25

  func testEveryInvalidManifestReportsExactlyTheExpectedDiagnostics() throws {
    let folder = ManifestFixtures.invalidManifests
    let files = try FileManager.default.contentsOfDirectory(at: folder, includingPropertiesForKeys: nil)
    let manifests = files.filter { $0.pathExtension == "json" }.sorted {
      $0.lastPathComponent < $1.lastPathComponent
    }
    let expectations = Set(files.filter { $0.pathExtension == "expected" }.map(\.lastPathComponent))

    XCTAssertGreaterThanOrEqual(
      manifests.count, Self.minimumCaseCount, "the corpus in \(folder.path) has too few cases")
    let orphans = expectations.subtracting(manifests.map { caseName($0) + ".expected" })
    XCTAssertEqual(orphans, [], "expectations without a manifest")

    for manifest in manifests {
      let name = caseName(manifest)
      let expectationFile = folder.appendingPathComponent(name + ".expected")
      guard let expectation = try? String(contentsOf: expectationFile, encoding: .utf8) else {
        XCTFail("\(name).json has no readable \(name).expected")
        continue
      }
      let expected = Self.expectedLines(expectation)
      XCTAssertFalse(expected.isEmpty, "\(name).expected lists no diagnostics")
      XCTAssertEqual(try reportedLines(manifest), expected, "case \(name)")
    }
  }

  func testExpectationFilesIgnoreCommentsAndBlankLines() {
    XCTAssertEqual(
      Self.expectedLines("# why\n\ncustomers.json: a\n  # not a comment\ncustomers.json: b\n"),
      [
        "customers.json: a", "  # not a comment", "customers.json: b",
      ])
  }

  private func caseName(_ manifest: URL) -> String { manifest.deletingPathExtension().lastPathComponent }

  /// The lines `ManifestLoader` reports for the file, named `customers.json` as the tool would.
  private func reportedLines(_ manifest: URL) throws -> [String] {
    let data = try Data(contentsOf: manifest)
    do {
      let loaded = try ManifestLoader.load(
        path: "customers.json", data: data, store: ListedFlowsModelStore(),
        features: try ManifestFixtures.catalog())
      XCTFail("\(manifest.lastPathComponent) loaded \(loaded.customers.count) customers without a diagnostic")
      return []
    } catch let failure as ValidationFailure {
      return failure.diagnostics.map(\.description)
    }
  }

  /// An expectation file's diagnostic lines: every line except blank ones and `#` comments.
  static func expectedLines(_ text: String) -> [String] {
    text.split(separator: "\n", omittingEmptySubsequences: true).map(String.init).filter {
      !$0.hasPrefix("#")
    }
  }
}
