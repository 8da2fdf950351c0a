import Foundation
import ReleaseGeneration
import ReleaseSettings
import ReleaseSigning
import ReleaseSystem
import ReleaseTestSupport
import XCTest

@testable import ReleaseCore
@testable import ReleaseManifest
@testable import ReleaseOTA
@testable import ReleasePipeline

/// The plan's part of the signed channel, in process: each customer's channel id, made once
/// and kept in release-state.json, and the keys and manifest URL in its source digest.
final class SignedChannelPlanTests: XCTestCase {
  func context(root: URL, dryRun: Bool = false, keys: Bool = true, reporter: RecordingReporter) throws
    -> ReleaseContext
  {
    var settings = RunSettings()
    settings.dryRun = dryRun
    settings.publishing.publicURL = "https://cdn.example.com/sdk/"
    settings.signing = SigningSetup(trusted: keys ? [try SigningKey.generate().publicKey] : [])
    let services = Services(
      processRunner: ScriptedProcessRunner(), clock: ManualClock(), root: root, environment: [:],
      output: CapturedOutput())
    return ReleaseContext(services: services, settings: settings, reporter: reporter)
  }

  func customer(_ id: String) -> Customer {
    Customer(
      id: id, name: nil, appID: "00000000-0000-0000-0000-000000000001", bundleIdentifiers: [],
      customModels: [],
      index: 0, line: 1)
  }

  func infos(_ reporter: RecordingReporter) -> [String] {
    reporter.events.compactMap {
      if case .info(let text) = $0 { return text }
      return nil
    }
  }

  func testACustomerWithoutAChannelGetsOneRecordedOnceAndKept() throws {
    let directory = try TemporaryDirectory()
    let stateURL = directory.url.appendingPathComponent("release-state.json")
    let existing = "00112233445566778899aabbccddeeff"
    let read = ReleaseState(sdkVersion: SemanticVersion(1, 0, 0), channels: ["acme": existing])
    try read.encoded().write(to: stateURL)
    let reporter = RecordingReporter()
    let context = try context(root: directory.url, reporter: reporter)

    let channels = try PlanStep.channels(of: [customer("acme"), customer("bluebird")], state: read, context)
    XCTAssertEqual(channels["acme"], existing, "a recorded channel is kept")
    let made = try XCTUnwrap(channels["bluebird"])
    XCTAssertTrue(SignedOTAChannel.isChannelID(made), made)
    XCTAssertFalse(made.contains("bluebird"))
    let written = try ReleaseState.load(from: stateURL, displayPath: "release-state.json")
    XCTAssertEqual(written.channels, channels)
    XCTAssertEqual(infos(reporter), ["made a signed channel for bluebird in release-state.json; commit it"])

    // Another run made one meanwhile: read again under the lock, it is taken, not replaced.
    let again = try PlanStep.channels(of: [customer("bluebird")], state: read, context)
    XCTAssertEqual(again["bluebird"], made)
    XCTAssertEqual(
      try ReleaseState.load(from: stateURL, displayPath: "release-state.json").channels, channels)
  }

  func testADryRunSaysWhichChannelItWouldMakeAndWritesNothing() throws {
    let directory = try TemporaryDirectory()
    let stateURL = directory.url.appendingPathComponent("release-state.json")
    let state = ReleaseState(sdkVersion: SemanticVersion(1, 0, 0))
    try state.encoded().write(to: stateURL)
    let before = try Data(contentsOf: stateURL)
    let reporter = RecordingReporter()
    let channels = try PlanStep.channels(
      of: [customer("acme")], state: state, try context(root: directory.url, dryRun: true, reporter: reporter)
    )
    XCTAssertEqual(infos(reporter), ["would make a channel for acme"])
    XCTAssertEqual(try Data(contentsOf: stateURL), before)
    XCTAssertEqual(channels.count, 1)
  }

  func testWithoutTrustedKeysNoChannelIsMade() throws {
    let directory = try TemporaryDirectory()
    let reporter = RecordingReporter()
    let context = try context(root: directory.url, keys: false, reporter: reporter)
    XCTAssertEqual(
      try PlanStep.channels(
        of: [customer("acme")], state: ReleaseState(sdkVersion: SemanticVersion(1, 0, 0)), context), [:])
    XCTAssertFalse(
      FileManager.default.fileExists(atPath: directory.url.appendingPathComponent("release-state.json").path))
  }

  func testABadChannelIdInTheStateIsRefused() throws {
    let directory = try TemporaryDirectory()
    let state = ReleaseState(sdkVersion: SemanticVersion(1, 0, 0), channels: ["acme": "acme"])
    XCTAssertThrowsError(
      try PlanStep.channels(
        of: [customer("acme")], state: state, try context(root: directory.url, reporter: RecordingReporter()))
    ) { error in
      XCTAssertEqual(
        (error as? ReleaseError)?.lines,
        [
          #"release-state.json: channels.acme: found "acme", expected 32 lower-case hex digits (a channel id the tool made)"#
        ])
    }
  }

  func testKeysAndTheChannelAreInTheSourceDigest() throws {
    let reporter = RecordingReporter()
    let settings = try context(root: URL(fileURLWithPath: "/nonexistent"), reporter: reporter).settings
      .packages
    func digest(keys: [PinnedKey]?, channel: String?) -> InputDigest {
      InputDigest(
        customer: customer("acme"), features: [], models: [:], templateDigest: "t",
        sdkVersion: SemanticVersion(1, 0, 0), toolchain: "swift", modelManifestURL: nil, trustedKeys: keys,
        manifestURL: channel.flatMap { settings.manifestURL(channel: $0) })
    }
    let keys = try XCTUnwrap(settings.pinnedKeys)
    XCTAssertEqual(keys.count, 1)
    XCTAssertEqual(
      settings.manifestURL(channel: "00112233445566778899aabbccddeeff"),
      "https://cdn.example.com/sdk/ota/00112233445566778899aabbccddeeff/manifest.json")
    let unsigned = digest(keys: nil, channel: nil)
    let signed = digest(keys: keys, channel: "00112233445566778899aabbccddeeff")
    let otherChannel = digest(keys: keys, channel: "ffeeddccbbaa99887766554433221100")
    let otherKey = digest(
      keys: [PinnedKey(keyID: String(repeating: "0", count: 64), publicKey: "AAAA")],
      channel: "00112233445566778899aabbccddeeff")
    XCTAssertEqual(Set([unsigned.source, signed.source, otherChannel.source, otherKey.source]).count, 4)
    XCTAssertEqual(signed.changes(since: otherChannel), ["signed manifest URL"])
    XCTAssertEqual(signed.changes(since: otherKey), ["trusted keys"])
  }
}
