import Foundation
import ReleaseSettings
import ReleaseSystem
import ReleaseTestSupport
import XCTest

@testable import ReleaseCore

/// What the check of `release ota publish` (and of `release all --publish`) refuses before
/// anything is published, with the command's steps built directly: one line each, bad input
/// (exit 2), the destination untouched.
final class CheckOTAStepTests: XCTestCase {
  /// Offers `versions` of acme's onboarding_upsell by writing rollouts.json directly, as a
  /// hand edit or a merge would.
  func offer(_ versions: [Int], in workspace: Workspace) throws {
    let models = versions.map {
      #"{"modelVersion": \#($0), "rolloutPercent": 10, "status": "active", "salt": "00000000000000000000000000000001"}"#
    }
    try
      #"{"customers": {"acme": {"onboarding_upsell": {"paused": false, "models": [\#(models.joined(separator: ", "))]}}}}"#
      .write(to: workspace.file("rollouts.json"), atomically: true, encoding: .utf8)
  }

  /// Runs the steps of `ota publish` as `given` says, expects bad input (exit 2) with exactly
  /// the `expected` lines and the workspace (the destination included) unchanged.
  func assertRefused(
    _ workspace: Workspace, _ given: CommandLineSettings, _ expected: [String],
    file: StaticString = #filePath, line: UInt = #line
  ) {
    let refusal = workspace.refusal(file: file, line: line) {
      try OTAPublishSteps(in: workspace.root).run(given)
    }
    XCTAssertEqual(refusal, expected, file: file, line: line)
  }

  func testAnOfferedModelWhoseMetadataDisagreesWithItsPlaceIsRefused() throws {
    let workspace = try Workspace()
    // v74's file copied to v75: its metadata still says modelVersion 74.
    try FileManager.default.copyItem(
      at: workspace.file("models/onboarding_upsell/74.mlmodel"),
      to: workspace.file("models/onboarding_upsell/75.mlmodel"))
    try offer([75], in: workspace)
    assertRefused(
      workspace, CommandLineSettings(publish: "dir:published"),
      [
        #"rollouts.json: customers.acme.onboarding_upsell: offers onboarding_upsell v75, which has modelVersion "74" in its metadata; its place in the model store says 75"#
      ])
    XCTAssertFalse(FileManager.default.fileExists(atPath: workspace.file("published").path))
  }

  func testEveryRefusalOfOtaPublishIsOneLineExitTwoAndNothingPublished() throws {
    let workspace = try Workspace()
    let sdkVersion = try ReleaseState.load(
      from: workspace.file("release-state.json"), displayPath: "release-state.json"
    ).sdkVersion
    let publish = CommandLineSettings(publish: "dir:published")

    assertRefused(
      workspace, CommandLineSettings(),
      [
        "ota publish: no destination; give --publish dir:<path> or s3://<bucket>[/<prefix>], or name one in release.config.json as publish.otaDestination"
      ])

    try offer([99], in: workspace)
    assertRefused(
      workspace, publish,
      [
        "rollouts.json: customers.acme.onboarding_upsell: models/onboarding_upsell/99.mlmodel: no such model; onboarding_upsell has versions 72, 73, 74"
      ])

    // A model that needs a signal this SDK lacks, offered by a hand edit.
    try
      #"{"customers": {"acme": {"paywall_timing": {"paused": false, "models": [{"modelVersion": 15, "rolloutPercent": 10, "status": "active", "salt": "00000000000000000000000000000001"}]}}}}"#
      .write(to: workspace.file("rollouts.json"), atomically: true, encoding: .utf8)
    assertRefused(
      workspace, publish,
      [
        "rollouts.json: customers.acme.paywall_timing: offers paywall_timing v15, which needs signal 'battery_level', which ContextSDK \(sdkVersion) does not compute (signals.json: introduced in 3.1.0)"
      ])

    // Only git: releases repositories and no publish.otaDestination: nowhere to put manifests.
    try offer([74], in: workspace)
    assertRefused(
      workspace, CommandLineSettings(publish: "git:\(workspace.file("releases").path)/{id}.git"),
      [
        "rollouts.json: models over the air need an object store (dir: or s3:), and this run publishes only to git: releases repositories; name one in release.config.json as publish.otaDestination"
      ])
    XCTAssertFalse(FileManager.default.fileExists(atPath: workspace.file("releases").path))

    // A published pointer this tool did not write for the customer: not JSON, another
    // customer's manifest.
    OTAPublishSteps(in: workspace.root).publish(CommandLineSettings(publish: "dir:other"))
    let pointers = workspace.file("published/ota")
    for customer in ["acme", "bluebird"] {
      try FileManager.default.createDirectory(
        at: pointers.appendingPathComponent(customer), withIntermediateDirectories: true)
    }
    try Data("not json".utf8).write(to: pointers.appendingPathComponent("acme/models.json"))
    try FileManager.default.copyItem(
      at: workspace.file("other/ota/acme/models.json"),
      to: pointers.appendingPathComponent("bluebird/models.json"))
    assertRefused(
      workspace, publish,
      [
        "published/ota/acme/models.json: not an OTA manifest written by release for this customer (The given data was not valid JSON.); fix or remove it, then publish again",
        #"published/ota/bluebird/models.json: not an OTA manifest written by release for this customer (the manifest of "acme", expected "bluebird"); fix or remove it, then publish again"#,
      ])
    XCTAssertEqual(
      try FileManager.default.contentsOfDirectory(atPath: workspace.file("published").path).sorted(), ["ota"],
      "no model uploaded")
  }

  /// `ota publish` (no destination given) with release.config.json naming only releases
  /// repositories: the manifests and models go to its `publish.otaDestination`, and nothing to
  /// the repositories.
  func testAGitOnlyConfigPublishesOverTheAirToItsOtaDestination() throws {
    let workspace = try Workspace()
    try offer([74], in: workspace)
    try #"{"publish": {"destinations": ["git:releases/{id}.git"], "otaDestination": "dir:ota-published"}}"#
      .write(to: workspace.file("release.config.json"), atomically: true, encoding: .utf8)
    OTAPublishSteps(in: workspace.root).publish(CommandLineSettings())
    let manifest = try jsonObject(
      try Data(contentsOf: workspace.file("ota-published/ota/acme/models.json")), "models.json")
    XCTAssertEqual(manifest["revision"] as? Int, 1)
    let sha256 = try SHA256Digest.hex(ofFileAt: workspace.file("models/onboarding_upsell/74.mlmodel"))
    XCTAssertTrue(
      FileManager.default.fileExists(
        atPath: workspace.file("ota-published/ota/models/\(sha256).mlmodel").path))
    XCTAssertFalse(FileManager.default.fileExists(atPath: workspace.file("releases").path))
  }
}
