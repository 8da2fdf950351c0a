import Foundation
import ReleaseCore
import ReleaseGeneration
import XCTest

/// Release notes are the difference between two releases' contents; the expected changes are
/// written out here from the contents, not taken from the code under test.
final class ReleaseNotesTests: XCTestCase {
  typealias Model = ReleaseContents.Model

  let before = ReleaseContents(
    version: "2.4.0", previousVersion: nil, sdkVersion: "2.4.0",
    bundleIdentifiers: ["com.acme.fitness", "com.acme.old"],
    models: [
      "onboarding_upsell": Model(flowId: 8362, modelVersion: 73, sha256: "a", shortDescription: "Upsell."),
      "paywall_timing": Model(flowId: 8363, modelVersion: 14, sha256: "b", shortDescription: "Paywall."),
      "trial_reminder": Model(flowId: 8366, modelVersion: 3, sha256: "c", shortDescription: "Reminder."),
    ])

  func testAFirstReleaseListsWhatItHolds() {
    let note = ReleaseNotes.note(for: before, previous: .none, sdkChangelog: [:])
    XCTAssertNil(note.previousVersion)
    XCTAssertEqual(
      note.changes.map(\.summary),
      [
        "First release, with ContextSDK 2.4.0 for com.acme.fitness, com.acme.old",
        "onboarding_upsell v73 added: Upsell.",
        "paywall_timing v14 added: Paywall.",
        "trial_reminder v3 added: Reminder.",
      ])
    XCTAssertEqual(note.changes.map(\.kind), [.firstRelease, .modelAdded, .modelAdded, .modelAdded])
  }

  func testFeaturesAddedOrRemovedAreNamedAndUnrecordedOnesAreNotCompared() throws {
    var withFeatures = before
    withFeatures.features = ["conversion"]
    var after = withFeatures
    after.version = "2.4.1"
    after.previousVersion = "2.4.0"
    after.features = ["att"]
    after.models["tracking_permission"] = Model(
      flowId: 8364, modelVersion: 5, sha256: "t", shortDescription: "")
    after.models["paywall_timing"] = nil
    after.models["onboarding_upsell"] = nil
    after.models["trial_reminder"] = nil
    let note = ReleaseNotes.note(for: after, previous: .recorded(withFeatures), sdkChangelog: [:])
    XCTAssertEqual(note.changes.last?.summary, "Features: added att; removed conversion")
    XCTAssertEqual(note.changes.last?.kind, .featuresChanged)
    XCTAssertEqual(note.changes.last?.added, ["att"])
    XCTAssertEqual(note.changes.last?.removed, ["conversion"])
    let markdown = String(
      decoding: ReleaseNotes.changelog(customerName: "Acme", notes: [note]), as: UTF8.self)
    XCTAssertTrue(markdown.contains("- Features: added `att`; removed `conversion`"), markdown)

    // Contents recorded before features existed: no feature change is claimed.
    let unrecorded = ReleaseNotes.note(for: after, previous: .recorded(before), sdkChangelog: [:])
    XCTAssertFalse(unrecorded.changes.contains { $0.kind == .featuresChanged }, "\(unrecorded.changes)")
  }

  func testEveryKindOfChangeAgainstThePreviousRelease() {
    var after = before
    after.version = "2.5.0"
    after.previousVersion = "2.4.0"
    after.sdkVersion = "2.5.0"
    after.bundleIdentifiers = ["com.acme.fitness", "com.acme.widget"]
    after.models["onboarding_upsell"] = Model(
      flowId: 8362, modelVersion: 74, sha256: "d", shortDescription: "Upsell, retrained.")
    after.models["paywall_timing"] = nil
    after.models["rating_request"] = Model(flowId: 8365, modelVersion: 31, sha256: "e", shortDescription: "")
    // The same version with other bytes: said, not hidden.
    after.models["trial_reminder"]?.sha256 = "f"
    let note = ReleaseNotes.note(
      for: after, previous: .recorded(before),
      sdkChangelog: ["2.5.0": ["Battery level signal"], "2.4.0": ["not this one"]])

    XCTAssertEqual(note.previousVersion, "2.4.0")
    XCTAssertEqual(
      note.changes.map(\.summary),
      [
        "onboarding_upsell v73 → v74: Upsell, retrained.",
        "paywall_timing v14 removed",
        "rating_request v31 added",
        "trial_reminder v3: the model file changed: Reminder.",
        "Bundle identifiers: added com.acme.widget; removed com.acme.old",
        "ContextSDK 2.4.0 → 2.5.0",
      ])
    let model = note.changes[0]
    XCTAssertEqual(
      [model.flowName, model.previousModelVersion.map(String.init), model.modelVersion.map(String.init)],
      ["onboarding_upsell", "73", "74"])
    XCTAssertEqual(note.changes[4].added, ["com.acme.widget"])
    XCTAssertEqual(note.changes[4].removed, ["com.acme.old"])
    XCTAssertEqual(note.changes[5].sdkChanges, ["Battery level signal"])
  }

  func testARebuildWithNothingListedChangedSaysSo() {
    var after = before
    after.version = "2.4.1"
    after.previousVersion = "2.4.0"
    let note = ReleaseNotes.note(for: after, previous: .recorded(before), sdkChangelog: [:])
    XCTAssertEqual(note.changes.map(\.kind), [.noListedChange])
  }

  /// The SDK's code (the template) and the URLs the package carries can change without a new
  /// SDK version or any model: the notes say which, instead of "nothing listed changed".
  func testTheSDKsCodeAndTheURLsAreNamedWhenTheyChange() {
    var last = before
    last.templateDigest = "template-1"
    last.repositoryURL = "https://git.example.com/sdk/acme.git"
    var after = last
    after.version = "2.4.1"
    after.previousVersion = "2.4.0"
    after.templateDigest = "template-2"
    after.modelManifestURL = "https://sdk.example.com/ota/acme/models.json"
    after.repositoryURL = nil
    let note = ReleaseNotes.note(for: after, previous: .recorded(last), sdkChangelog: [:])
    XCTAssertEqual(
      note.changes.map(\.summary),
      [
        "ContextSDK 2.4.0 rebuilt from changed code (the same SDK version)",
        "Models over the air from https://sdk.example.com/ota/acme/models.json",
        "No releases repository",
      ])
    XCTAssertEqual(
      note.changes.map(\.kind), [.sdkCodeChanged, .modelManifestURLChanged, .repositoryURLChanged])
    // A previous release recorded before these were (no template digest) is not compared on them.
    last.templateDigest = nil
    XCTAssertEqual(
      ReleaseNotes.note(for: after, previous: .recorded(last), sdkChangelog: [:]).changes.map(\.kind),
      [.noListedChange])
  }

  func testAPreviousReleaseWithoutRecordedContentsIsNamedNotInvented() {
    var after = before
    after.version = "2.4.1"
    let note = ReleaseNotes.note(for: after, previous: .unrecorded(version: "2.4.0"), sdkChangelog: [:])
    XCTAssertEqual(note.previousVersion, "2.4.0")
    XCTAssertEqual(note.changes.map(\.kind), [.previousContentsUnknown])
    XCTAssertTrue(note.changes[0].summary.hasPrefix("What changed since 2.4.0 is not known"))
  }

  func testTheSDKChangelogIsReadBySectionAsReleaseBumpWritesIt() {
    let text = """
      # Changelog

      All notable changes.

      ## 2.5.0 - 2027-01-15

      - Battery level signal
      * Faster loading
      A note without a marker

      ## 2.4.0 - 2026-01-12

      - Bundle only the customer's models
      """
    XCTAssertEqual(
      ReleaseNotes.sections(ofSDKChangelog: text),
      [
        "2.5.0": ["Battery level signal", "Faster loading", "A note without a marker"],
        "2.4.0": ["Bundle only the customer's models"],
      ])
  }

  /// Input reaches CHANGELOG.md only escaped: no heading, link, HTML or hidden reordering.
  func testTheChangelogEscapesWhatInputCarries() {
    var contents = before
    contents.models = [
      "onboarding_upsell": Model(
        flowId: 8362, modelVersion: 73, sha256: "a", shortDescription: "# [x](javascript:y) <img> \u{202E}")
    ]
    let note = ReleaseNotes.note(for: contents, previous: .none, sdkChangelog: [:])
    let text = String(
      decoding: ReleaseNotes.changelog(customerName: "<b>Acme</b>", notes: [note]), as: UTF8.self)
    XCTAssertTrue(text.hasPrefix("# Changelog\n"))
    XCTAssertFalse(text.contains("<b>"), text)
    XCTAssertFalse(text.contains("<img>"), text)
    XCTAssertFalse(text.contains("\u{202E}"), text)
    XCTAssertFalse(text.contains("](javascript"), text)
    XCTAssertEqual(
      text.components(separatedBy: "\n").filter { $0.hasPrefix("#") }, ["# Changelog", "## 2.4.0"])
  }
}
