import Foundation
import ReleaseArchive
import ReleaseCLITestSupport
import ReleaseGeneration
import ReleaseSystem
import ReleaseTestSupport
import XCTest

@testable import ReleaseCore
@testable import ReleasePipeline

/// Two real releases of one customer: the second's notes are the difference to the first,
/// written into the package's CHANGELOG.md (keeping the first's), release.json and the
/// published customer index, shown by `--dry-run`; a fresh dist/ rebuilds the recorded
/// release byte for byte. Expected lines come from the inputs (manifest, the store's
/// index.json descriptions, the SDK changelog written here). What is checked is the tool's
/// notes and archives of the generated trees, never a build's output, so `swift build` is a
/// stand-in that compiles nothing, in a cache of the test's own: the SDK version moved in the
/// core's sources would otherwise recompile the process's warm slot, now and for the next test.
final class ReleaseNotesEndToEndTests: XCTestCase {
  static let firstManifest = """
    [{"id": "acme", "name": "Acme Fitness", "bundle_identifiers": ["com.acme.fitness"],
      "app_id": "3f2b8c1e-6d4a-4e9b-9a51-0c7d2e8f4a10",
      "customModels": [{"flowId": 8362, "flowName": "onboarding_upsell", "modelVersion": 73},
                       {"flowId": 8363, "flowName": "paywall_timing", "modelVersion": 14}]}]
    """
  static let secondManifest = """
    [{"id": "acme", "name": "Acme Fitness", "bundle_identifiers": ["com.acme.fitness", "com.acme.fitness.widget"],
      "app_id": "3f2b8c1e-6d4a-4e9b-9a51-0c7d2e8f4a10",
      "customModels": [{"flowId": 8362, "flowName": "onboarding_upsell", "modelVersion": 74},
                       {"flowId": 8365, "flowName": "rating_request", "modelVersion": 31}]}]
    """

  func testNotesFollowTheCustomersReleasesAndRebuildIdentically() throws {
    let workspace = try Workspace(manifest: Self.firstManifest)
    let sdk = try ReleaseState.load(from: workspace.file("release-state.json"), displayPath: "state")
      .sdkVersion
    let next = sdk.bumped(.minor)
    let describe = try Self.storeDescriptions(workspace)
    try "# Changelog\n\n## \(sdk) - 2026-01-12\n\n- Bundle only the customer's models\n"
      .write(to: workspace.file("CHANGELOG.md"), atomically: true, encoding: .utf8)
    let release = { (options: [String]) in
      try workspace.runWithoutCompiling(["customer", "acme", "--skip-tests"] + options)
    }

    let first = try release([])
    XCTAssertEqual(first.exitCode, 0, first.allOutput)
    let firstChangelog = try Self.changelog(workspace, version: sdk)
    XCTAssertEqual(
      firstChangelog.components(separatedBy: "\n").filter { $0.hasPrefix("- ") || $0.hasPrefix("## ") },
      [
        "## \(sdk)",
        "- First release, with ContextSDK \(sdk) for `com.acme.fitness`",
        "- `onboarding_upsell` v73 added: \(describe["onboarding_upsell/73"]!)",
        "- `paywall_timing` v14 added: \(describe["paywall_timing/14"]!)",
      ])
    let recorded = try ReleaseState.load(from: workspace.file("release-state.json"), displayPath: "state")
    XCTAssertEqual(recorded.customers["acme"]?.releases.map(\.version), [sdk.description])

    // The next SDK version, as `release bump minor` makes it, and a changed customer entry.
    try Self.moveTemplate(workspace, from: sdk, to: next)
    try Self.secondManifest.write(to: workspace.file("customers.json"), atomically: true, encoding: .utf8)
    try
      ("# Changelog\n\n## \(next) - 2026-11-01\n\n- Faster model loading\n\n"
      + "## \(sdk) - 2026-01-12\n\n- Bundle only the customer's models\n")
      .write(to: workspace.file("CHANGELOG.md"), atomically: true, encoding: .utf8)
    let expectedSummaries = [
      "onboarding_upsell v73 → v74: \(describe["onboarding_upsell/74"]!)",
      "paywall_timing v14 removed",
      "rating_request v31 added: \(describe["rating_request/31"]!)",
      "Bundle identifiers: added com.acme.fitness.widget",
      "ContextSDK \(sdk) → \(next)",
    ]

    // --dry-run shows the notes of the release it would record, and writes nothing.
    let stateBefore = try Data(contentsOf: workspace.file("release-state.json"))
    let dry = workspace.run(["customer", "acme", "--dry-run"])
    XCTAssertEqual(dry.exitCode, 0, dry.allOutput)
    XCTAssertTrue(
      dry.allOutput.contains("would record acme \(next) in release-state.json, with release notes:"))
    for summary in expectedSummaries + ["    Faster model loading"] {
      XCTAssertTrue(dry.allOutput.contains("  \(summary)"), "\(summary) missing from:\n\(dry.allOutput)")
    }
    XCTAssertEqual(try Data(contentsOf: workspace.file("release-state.json")), stateBefore)
    XCTAssertFalse(
      FileManager.default.fileExists(atPath: workspace.dist.appendingPathComponent("acme/\(next)").path))

    let second = try release([])
    XCTAssertEqual(second.exitCode, 0, second.allOutput)

    // release.json: this release's note against the first.
    let releaseDirectory = workspace.dist.appendingPathComponent("acme/\(next)")
    let record = try ReleaseRecord.load(from: releaseDirectory.appendingPathComponent("release.json"))
    let note = try XCTUnwrap(record.releaseNotes)
    XCTAssertEqual(note.previousVersion, sdk.description)
    XCTAssertEqual(note.changes.map(\.summary), expectedSummaries)
    XCTAssertEqual(note.changes.last?.sdkChanges, ["Faster model loading"])

    // CHANGELOG.md: the new section above the first release's, which is kept as it was.
    let changelog = try Self.changelog(workspace, version: next)
    let sections = changelog.components(separatedBy: "\n## ")
    XCTAssertEqual(sections.count, 3, changelog)
    XCTAssertTrue(sections[1].hasPrefix("\(next)\n"), changelog)
    XCTAssertTrue(sections[1].contains("- `onboarding_upsell` v73 → v74: "), changelog)
    XCTAssertTrue(sections[1].contains("- ContextSDK \(sdk) → \(next)\n  - Faster model loading"), changelog)
    XCTAssertEqual(
      "## " + sections[2],
      firstChangelog.components(separatedBy: "\n## ").dropFirst().map { "## " + $0 }.joined(),
      "the first release's section is kept as it was")

    // Published from the commit that records it (publishing tags), the customer index
    // carries the same note.
    try GitFixture.commitAll(workspace.root)
    let publish = try release(["--publish", "dir:published"])
    XCTAssertEqual(publish.exitCode, 0, publish.allOutput)
    let index =
      try JSONSerialization.jsonObject(
        with: try Data(contentsOf: workspace.file("published/customers/acme/index.json"))) as? [String: Any]
    let versions = try XCTUnwrap(index?["versions"] as? [[String: Any]])
    let published = try XCTUnwrap(versions.first { $0["version"] as? String == next.description })
    let publishedNote = try XCTUnwrap(published["releaseNotes"] as? [String: Any])
    XCTAssertEqual(
      (publishedNote["changes"] as? [[String: Any]])?.compactMap { $0["summary"] as? String },
      expectedSummaries)

    // The state records both releases, newest first; a fresh dist/ (a new CI machine) builds
    // the recorded release again with the same notes, byte for byte.
    let state = try ReleaseState.load(from: workspace.file("release-state.json"), displayPath: "state")
    XCTAssertEqual(state.customers["acme"]?.releases.map(\.version), [next.description, sdk.description])
    let zip = releaseDirectory.appendingPathComponent(record.artifact.file)
    let bytes = try Data(contentsOf: zip)
    try FileManager.default.removeItem(at: workspace.dist)
    let again = try release([])
    XCTAssertEqual(again.exitCode, 0, again.allOutput)
    XCTAssertEqual(try Data(contentsOf: zip), bytes, "the rebuilt archive differs:\n\(again.allOutput)")
    XCTAssertEqual(
      try ReleaseState.load(from: workspace.file("release-state.json"), displayPath: "state"), state,
      "rebuilding a recorded release records nothing new")

    // verify holds the archive's CHANGELOG.md to the notes the state file makes.
    let verified = workspace.run(["verify", "dist", "--no-build"])
    XCTAssertEqual(verified.exitCode, 0, verified.allOutput)
  }

  /// `shortDescription` by `<flow>/<version>`, from the store's index.json (coremltools' reading).
  static func storeDescriptions(_ workspace: Workspace) throws -> [String: String] {
    let index = try JSONSerialization.jsonObject(
      with: try Data(contentsOf: workspace.file("models/index.json")))
    let models = try XCTUnwrap((index as? [String: Any])?["models"] as? [[String: Any]])
    var descriptions: [String: String] = [:]
    for model in models {
      let key = "\(model["flowName"] as? String ?? "")/\(model["modelVersion"] as? Int ?? 0)"
      descriptions[key] = model["shortDescription"] as? String
    }
    return descriptions
  }

  static func changelog(_ workspace: Workspace, version: SemanticVersion) throws -> String {
    let zip = workspace.dist.appendingPathComponent("acme/\(version)/ContextSDK_Acme-\(version).zip")
    var text: String?
    try ZipReader.forEachFile(in: zip) { entry, data in
      guard entry.path == "ContextSDK_Acme/CHANGELOG.md" else { return }
      var bytes = Data()
      try data.forEachBlock { bytes.append(contentsOf: $0) }
      text = String(decoding: bytes, as: UTF8.self)
    }
    return try XCTUnwrap(text, "no CHANGELOG.md in \(zip.path)")
  }

  /// What `release bump` changes for a new SDK version: the template's version line and the
  /// state file's SDK version.
  static func moveTemplate(_ workspace: Workspace, from old: SemanticVersion, to new: SemanticVersion) throws
  {
    let file = workspace.file("templates/ContextSDK/" + PackageGenerator.sdkVersionFile)
    let text = try String(contentsOf: file, encoding: .utf8)
    try text.replacingOccurrences(of: "\"\(old)\"", with: "\"\(new)\"").write(
      to: file, atomically: true, encoding: .utf8)
    var state = try ReleaseState.load(from: workspace.file("release-state.json"), displayPath: "state")
    state.sdkVersion = new
    try state.write(to: workspace.file("release-state.json"))
  }
}
