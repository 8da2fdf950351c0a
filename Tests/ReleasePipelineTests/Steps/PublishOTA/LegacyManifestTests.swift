import Foundation
import ReleaseSigning
import ReleaseSystem
import ReleaseTestSupport
import XCTest

@testable import ReleaseCore
@testable import ReleaseOTA
@testable import ReleasePipeline

/// The legacy unsigned `ota/<id>/models.json` beside the signed channel (issue 30, point 6):
/// published only for a customer that still has a released package without pinned keys (its
/// release records say so; a record without the field counts as unpinned), for none with
/// `publish.legacyManifests: false`; and before it stops, one last revision retracts every
/// offer, so old apps fall back to their bundled models.
extension SignedChannelPublishTests {
  private var legacyPointer: String { "published/ota/acme/models.json" }

  /// `dist/acme/<version>/release.json`, with only what the decision reads.
  private func record(_ workspace: Workspace, version: String, pinnedKeys: Bool?) throws {
    let directory = workspace.file("dist/acme/\(version)")
    try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
    let field = pinnedKeys.map { #", "pinnedKeys": \#($0)"# } ?? ""
    try Data(#"{"version": "\#(version)"\#(field)}"#.utf8).write(
      to: directory.appendingPathComponent("release.json"))
  }

  /// The legacy pointer's offers: status and percentage of each.
  private func legacyOffers(_ workspace: Workspace) throws -> [String] {
    let manifest = try jsonObject(try Data(contentsOf: workspace.file(legacyPointer)), "models.json")
    let flows = try XCTUnwrap(manifest["flows"] as? [String: Any])
    let upsell = try XCTUnwrap(flows["onboarding_upsell"] as? [String: Any])
    return (upsell["models"] as? [[String: Any]] ?? []).map {
      "\($0["modelVersion"] ?? "?") \($0["status"] ?? "?") \($0["rolloutPercent"] ?? "?")"
    }
  }

  private func legacyRevision(_ workspace: Workspace) throws -> Int? {
    try jsonObject(try Data(contentsOf: workspace.file(legacyPointer)), "models.json")["revision"] as? Int
  }

  func testALegacyManifestOnlyWhileAnUnpinnedPackageIsReleased() throws {
    let key = try SigningKey.generate()
    let workspace = try signedWorkspace(key)
    // An old release without the field (before it was recorded): unpinned.
    try record(workspace, version: "1.0.0", pinnedKeys: nil)
    publish(workspace, key)
    XCTAssertEqual(try legacyOffers(workspace), ["74 active 10"])
    XCTAssertEqual(try legacyRevision(workspace), 1)

    // A pinned release beside it: the unpinned one is still out there.
    try record(workspace, version: "1.1.0", pinnedKeys: true)
    try rollout(workspace, percent: 20)
    publish(workspace, key)
    XCTAssertEqual(try legacyOffers(workspace), ["74 active 20"])

    // Every release pins keys now: one last revision retracts every offer, then nothing.
    try FileManager.default.removeItem(at: workspace.file("dist/acme/1.0.0"))
    try rollout(workspace, percent: 30)
    let last = publish(workspace, key)
    XCTAssertEqual(try legacyOffers(workspace), ["74 retracted 0"])
    XCTAssertEqual(try legacyRevision(workspace), 3)
    XCTAssertTrue(
      last.infos.contains(
        "acme: every released package pins keys: its legacy manifest's last revision (3) retracts every offer"
      ),
      "\(last.infos)")
    try rollout(workspace, percent: 40)
    publish(workspace, key)
    XCTAssertEqual(try legacyRevision(workspace), 3, "no further legacy revision")
    XCTAssertEqual(try payload(pointer(workspace), key.publicKey)["revision"] as? Int, 4)
  }

  func testACustomerNeverReleasedGetsNoLegacyManifest() throws {
    let key = try SigningKey.generate()
    let workspace = try signedWorkspace(key)
    publish(workspace, key)
    XCTAssertFalse(FileManager.default.fileExists(atPath: workspace.file("published/ota/acme").path))
    XCTAssertEqual(try payload(pointer(workspace), key.publicKey)["revision"] as? Int, 1)
  }

  /// The dry run's plan names the legacy manifest only where the run would publish it, and
  /// says when its last revision would retract it instead.
  func testTheDryRunNamesTheLegacyManifestOnlyWhereItIsPublished() throws {
    let key = try SigningKey.generate()
    let workspace = try signedWorkspace(key)
    /// The dry run's plan, one line each.
    func plan() -> [String] {
      publish(workspace, key) { $0.dryRun = true }.dryRunLines
    }
    func mentions(_ plan: [String], _ text: String) -> Bool { plan.contains { $0.contains(text) } }
    let legacyLine = "would publish ota/acme/models.json to"
    let never = plan()
    XCTAssertFalse(mentions(never, legacyLine), "\(never)")
    XCTAssertTrue(mentions(never, "would publish acme's signed manifest to"), "\(never)")

    try record(workspace, version: "1.0.0", pinnedKeys: false)
    XCTAssertTrue(mentions(plan(), legacyLine))

    try FileManager.default.removeItem(at: workspace.file("dist/acme/1.0.0"))
    try record(workspace, version: "1.1.0", pinnedKeys: true)
    let pinned = plan()
    XCTAssertFalse(mentions(pinned, legacyLine), "\(pinned)")
    XCTAssertTrue(
      mentions(pinned, "would retract every offer of ota/acme/models.json, if it still offers any, at"),
      "\(pinned)")
  }

  func testLegacyManifestsFalseRetractsThemForEveryCustomer() throws {
    let key = try SigningKey.generate()
    let workspace = try signedWorkspace(key)
    try record(workspace, version: "1.0.0", pinnedKeys: false)
    publish(workspace, key)
    XCTAssertEqual(try legacyOffers(workspace), ["74 active 10"])
    try
      #"{"signing": {"trustedKeys": ["keys/ota.pub"]}, "publish": {"publicURL": "\#(Self.publicURL)", "legacyManifests": false}}"#
      .write(to: workspace.file("release.config.json"), atomically: true, encoding: .utf8)
    publish(workspace, key)
    XCTAssertEqual(try legacyOffers(workspace), ["74 retracted 0"])
    XCTAssertEqual(try legacyRevision(workspace), 2)
  }

  func testReleaseRecordsSayWhetherThePackagePinnedKeys() throws {
    let json = #"{"version": "1.0.0"}"#
    XCTAssertNil(try JSONDecoder().decode(ReleasedPackage.self, from: Data(json.utf8)).pinnedKeys)
    XCTAssertFalse(ReleasedPackage(version: "1.0.0", pinnedKeys: nil).pinsKeys, "absent: unpinned")
    XCTAssertTrue(ReleasedPackage(version: "1.0.0", pinnedKeys: true).pinsKeys)
  }
}
