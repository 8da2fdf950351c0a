import Foundation
import ReleaseSettings
import ReleaseSigning
import ReleaseSystem
import ReleaseTestSupport
import XCTest

@testable import ReleaseCore
@testable import ReleaseOTA
@testable import ReleasePipeline

/// `release ota publish` on the signed channel, its steps built directly and run against a
/// `dir:` destination: the envelopes they write, their revisions, `--refresh`, the stale
/// publisher and the refusals.
final class SignedChannelPublishTests: XCTestCase {
  static let channel = "0123456789abcdef0123456789abcdef"
  static let publicURL = "http://127.0.0.1:8000"

  /// A workspace trusting `key` (keys/ota.pub), serving at `publicURL`, with acme's channel
  /// in release-state.json and acme's onboarding_upsell v74 offered to 10 %.
  func signedWorkspace(_ key: SigningKey) throws -> Workspace {
    let workspace = try Workspace()
    try FileManager.default.createDirectory(at: workspace.file("keys"), withIntermediateDirectories: true)
    try key.publicKey.pemEncoded.write(to: workspace.file("keys/ota.pub"), atomically: true, encoding: .utf8)
    try #"{"signing": {"trustedKeys": ["keys/ota.pub"]}, "publish": {"publicURL": "\#(Self.publicURL)"}}"#
      .write(to: workspace.file("release.config.json"), atomically: true, encoding: .utf8)
    var state = try ReleaseState.load(from: workspace.file("release-state.json"), displayPath: "state")
    state.channels = ["acme": Self.channel]
    try state.encoded().write(to: workspace.file("release-state.json"))
    try
      #"{"customers": {"acme": {"onboarding_upsell": {"paused": false, "models": [{"modelVersion": 74, "rolloutPercent": 10, "status": "active", "salt": "00000000000000000000000000000001"}]}}}}"#
      .write(to: workspace.file("rollouts.json"), atomically: true, encoding: .utf8)
    return workspace
  }

  /// `ota publish --publish dir:published`, with what `adjust` sets besides (`--refresh`, …).
  func settings(_ adjust: (inout CommandLineSettings) -> Void = { _ in }) -> CommandLineSettings {
    var given = CommandLineSettings(publish: "dir:published")
    adjust(&given)
    return given
  }

  /// Publishes the workspace's channel signed with `key`, expecting success; what it reported.
  @discardableResult
  func publish(
    _ workspace: Workspace, _ key: SigningKey, file: StaticString = #filePath, line: UInt = #line,
    _ adjust: (inout CommandLineSettings) -> Void = { _ in }
  ) -> RecordingReporter {
    OTAPublishSteps(in: workspace.root, signingWith: key).publish(settings(adjust), file: file, line: line)
  }

  /// Publishes the workspace's channel signed with `key`, expecting it to fail; the error, and
  /// what it reported before in `reporter`.
  func failedPublish(
    _ workspace: Workspace, _ key: SigningKey, reporter: RecordingReporter = RecordingReporter(),
    file: StaticString = #filePath, line: UInt = #line,
    _ adjust: (inout CommandLineSettings) -> Void = { _ in }
  ) -> ReleaseError? {
    OTAPublishSteps(in: workspace.root, signingWith: key).failure(
      settings(adjust), reporter: reporter, file: file, line: line)
  }

  /// A new percentage for acme's offer of onboarding_upsell v74, as `release rollout acme
  /// onboarding_upsell 74 --percent <percent>` makes it: rollouts.json's published revisions
  /// kept.
  func rollout(_ workspace: Workspace, percent: Int) throws {
    try changeOffer(in: workspace) { $0.rolloutPercent = percent }
  }

  /// acme's offer of onboarding_upsell v74 retracted, as `release rollback acme
  /// onboarding_upsell 74` retracts it (at 0 %).
  func rollback(_ workspace: Workspace) throws {
    try changeOffer(in: workspace) {
      $0.status = .retracted
      $0.rolloutPercent = 0
    }
  }

  /// rollouts.json read, acme's offer of onboarding_upsell v74 changed, and written back with
  /// everything else it records (the published revisions above all) as it was.
  private func changeOffer(in workspace: Workspace, _ change: (inout RolloutState.Offer) -> Void) throws {
    let url = workspace.file("rollouts.json")
    var state = try RolloutState.load(from: url, displayPath: "rollouts.json")
    var flow = try XCTUnwrap(state.flow("acme", "onboarding_upsell"))
    let index = try XCTUnwrap(flow.models.firstIndex { $0.modelVersion == 74 })
    change(&flow.models[index])
    state.customers["acme"]?["onboarding_upsell"] = flow
    try state.encoded().write(to: url)
  }

  func pointer(_ workspace: Workspace) -> URL {
    workspace.file("published/" + SignedOTAChannel.pointerKey(channel: Self.channel))
  }

  func revisionFile(_ workspace: Workspace, _ revision: Int) -> URL {
    workspace.file("published/" + SignedOTAChannel.revisionKey(channel: Self.channel, revision: revision))
  }

  /// The payload of the envelope at `url`, verified with `key`.
  func payload(_ url: URL, _ key: PublicKey) throws -> [String: Any] {
    let verified = try DSSEEnvelope.verify(
      json: try Data(contentsOf: url), payloadType: SignedOTAChannel.payloadType, trustedKeys: [key])
    return try jsonObject(verified.payload, url.lastPathComponent)
  }

  func percent(_ payload: [String: Any]) -> Int? {
    let flows = payload["flows"] as? [String: Any]
    let flow = flows?["onboarding_upsell"] as? [String: Any]
    return ((flow?["models"] as? [[String: Any]])?.first?["rolloutPercent"]) as? Int
  }

  func recordedRevision(_ workspace: Workspace) throws -> Int? {
    try recordedEntry(workspace).0
  }

  /// acme's channel in the workspace's `published/` checked from the outside, as `release ota
  /// verify dir:published [--min-revision <n>]` checks it: against release.config.json's
  /// trusted keys and committed root chain, at this instant. Its problems are what would make
  /// that command exit 1.
  static func verifiedChannel(_ workspace: Workspace, minimumRevision: Int? = nil) throws
    -> ChannelCheck.Report
  {
    let trusted = try SettingsResolution(
      CommandLineSettings(), services: OTAPublishSteps(in: workspace.root).services
    ).trustedKeys()
    var check = ChannelCheck(
      reader: PublishedDirectory(directory: workspace.file("published"), displayName: "published"),
      trusted: trusted.keys, now: Date(), minimumRevision: minimumRevision)
    check.chain = trusted.chain
    return check.check(customer: "acme", channel: channel)
  }

  func testEnvelopesVerifyWithTheTrustedKeyOnlyAndRevisionsIncrease() throws {
    let key = try SigningKey.generate()
    let workspace = try signedWorkspace(key)
    let before = Date()
    publish(workspace, key)
    let after = Date()

    let first = try payload(pointer(workspace), key.publicKey)
    XCTAssertEqual(first["revision"] as? Int, 1)
    XCTAssertEqual(first["schemaVersion"] as? Int, 2)
    XCTAssertEqual(first["customer"] as? String, "acme")
    XCTAssertEqual(percent(first), 10)
    // Seven days from the publish, to the second.
    let expires = try XCTUnwrap(SignedOTAChannel.date(try XCTUnwrap(first["expires"] as? String)))
    XCTAssertGreaterThanOrEqual(expires, before.addingTimeInterval(7 * 86_400 - 1))
    XCTAssertLessThanOrEqual(expires, after.addingTimeInterval(7 * 86_400))
    XCTAssertEqual(try Data(contentsOf: pointer(workspace)), try Data(contentsOf: revisionFile(workspace, 1)))
    // Another key's view: no signature it trusts.
    let stranger = try SigningKey.generate()
    XCTAssertThrowsError(try payload(pointer(workspace), stranger.publicKey))
    // No legacy manifest: acme has no released package without pinned keys (LegacyManifestTests).
    XCTAssertFalse(
      FileManager.default.fileExists(atPath: workspace.file("published/ota/acme/models.json").path))
    XCTAssertEqual(try recordedRevision(workspace), 1)

    // The same offer: nothing new.
    publish(workspace, key)
    XCTAssertFalse(FileManager.default.fileExists(atPath: revisionFile(workspace, 2).path))

    // A changed offer, rollouts.json's published revisions kept (as the command keeps them).
    try rollout(workspace, percent: 20)
    publish(workspace, key)
    let second = try payload(pointer(workspace), key.publicKey)
    XCTAssertEqual(second["revision"] as? Int, 2)
    XCTAssertEqual(percent(second), 20)
    XCTAssertEqual(try Data(contentsOf: pointer(workspace)), try Data(contentsOf: revisionFile(workspace, 2)))
    XCTAssertEqual(
      percent(try payload(revisionFile(workspace, 1), key.publicKey)), 10, "revision 1 kept as it was")
    XCTAssertEqual(try recordedRevision(workspace), 2)
  }

  func testWithoutLegacyManifestsOnlyTheSignedChannelIsPublished() throws {
    let key = try SigningKey.generate()
    let workspace = try signedWorkspace(key)
    try
      #"{"signing": {"trustedKeys": ["keys/ota.pub"]}, "publish": {"publicURL": "\#(Self.publicURL)", "legacyManifests": false}}"#
      .write(to: workspace.file("release.config.json"), atomically: true, encoding: .utf8)
    publish(workspace, key)
    XCTAssertEqual(try payload(pointer(workspace), key.publicKey)["revision"] as? Int, 1)
    XCTAssertFalse(FileManager.default.fileExists(atPath: workspace.file("published/ota/acme").path))
  }

  func testRefreshReSignsThePublishedContentNotTheWorkTree() throws {
    let key = try SigningKey.generate()
    let workspace = try signedWorkspace(key)
    publish(workspace, key) { $0.manifestExpiry = "1h" }
    let first = try payload(pointer(workspace), key.publicKey)
    // The work tree now says 50 %, unpublished: a refresh must not publish it.
    try rollout(workspace, percent: 50)
    let before = Date()
    publish(workspace, key) {
      $0.refresh = true
      $0.manifestExpiry = "2d"
    }
    let refreshed = try payload(pointer(workspace), key.publicKey)
    XCTAssertEqual(refreshed["revision"] as? Int, 2)
    XCTAssertEqual(percent(refreshed), 10)
    let expires = try XCTUnwrap(SignedOTAChannel.date(try XCTUnwrap(refreshed["expires"] as? String)))
    XCTAssertGreaterThanOrEqual(expires, before.addingTimeInterval(2 * 86_400 - 1))
    // Everything but the revision and the expiry is what was published.
    func content(_ url: URL) throws -> OTAManifest {
      let verified = try DSSEEnvelope.verify(
        json: try Data(contentsOf: url), payloadType: SignedOTAChannel.payloadType,
        trustedKeys: [key.publicKey])
      var manifest = try JSONDecoder().decode(OTAManifest.self, from: verified.payload)
      manifest.expires = nil
      return manifest.at(revision: 0)
    }
    XCTAssertEqual(try content(revisionFile(workspace, 1)), try content(pointer(workspace)))
    XCTAssertEqual(first["revision"] as? Int, 1)
    XCTAssertEqual(try recordedRevision(workspace), 2)
  }

  func testAStaleRolloutsFileIsRefusedAndNothingPublished() throws {
    let key = try SigningKey.generate()
    let workspace = try signedWorkspace(key)
    publish(workspace, key)
    let stale = try Data(contentsOf: workspace.file("rollouts.json"))
    try rollout(workspace, percent: 20)
    publish(workspace, key)
    // Another work tree, which has not seen revision 2, changes the offer and publishes.
    try stale.write(to: workspace.file("rollouts.json"))
    try rollout(workspace, percent: 5)
    let before = Workspace.snapshot(workspace.file("published"))
    let failure = failedPublish(workspace, key)
    XCTAssertEqual(failure?.exitCode, 1)
    XCTAssertEqual(
      failure?.lines,
      [
        "publish over the air: published/\(SignedOTAChannel.pointerKey(channel: Self.channel)): holds revision 2, and rollouts.json records revision 1: another publisher's newer change is there; nothing was published: update this work tree (pull rollouts.json), then publish again"
      ])
    XCTAssertEqual(Workspace.snapshot(workspace.file("published")), before, "nothing published")
  }

  /// Runs `ota publish` as `given` says with `steps`; expects bad input (exit 2) with exactly
  /// the one line `expected`, and nothing written.
  func assertRefused(
    _ workspace: Workspace, _ steps: OTAPublishSteps, _ given: CommandLineSettings, _ expected: String,
    file: StaticString = #filePath, line: UInt = #line
  ) {
    let refusal = workspace.refusal(file: file, line: line) { try steps.run(given) }
    XCTAssertEqual(refusal, [expected], file: file, line: line)
  }

  func testRefusalsAreOneLineExitTwoAndWriteNothing() throws {
    let key = try SigningKey.generate()
    let workspace = try signedWorkspace(key)
    let unsigned = OTAPublishSteps(in: workspace.root)
    let signed = OTAPublishSteps(in: workspace.root, signingWith: key)
    let publicURLWithoutKeys =
      "packages get over-the-air models only through a signed channel, and release.config.json trusts no key; add a key: release keys generate keys, then list keys/signing.pub in release.config.json signing.trustedKeys"

    // A public URL and no trusted key: from the flag, and from release.config.json.
    try #"{"publish": {"publicURL": "https://cdn.example.com/sdk"}}"#
      .write(to: workspace.file("release.config.json"), atomically: true, encoding: .utf8)
    assertRefused(
      workspace, unsigned, settings(),
      "release.config.json: publish.publicURL: https://cdn.example.com/sdk: \(publicURLWithoutKeys)")
    assertRefused(
      workspace, unsigned, settings { $0.publicURL = "https://cdn.example.com" },
      "--public-url https://cdn.example.com: \(publicURLWithoutKeys)")
    // `release all --dry-run --public-url …`: the settings phase of a release run refuses it too.
    var releaseRun = CommandLineSettings()
    releaseRun.dryRun = true
    releaseRun.publicURL = "https://cdn.example.com"
    XCTAssertEqual(
      workspace.refusal { _ = try SettingsResolution(releaseRun, services: unsigned.services).release(.all) },
      ["--public-url https://cdn.example.com: \(publicURLWithoutKeys)"])

    // Plain http to anything but this machine.
    try #"{"signing": {"trustedKeys": ["keys/ota.pub"]}}"#
      .write(to: workspace.file("release.config.json"), atomically: true, encoding: .utf8)
    for host in ["cdn.example.com", "127.attacker.example"] {
      assertRefused(
        workspace, signed, settings { $0.publicURL = "http://\(host)/sdk" },
        "--public-url http://\(host)/sdk: plain http:// is built into every package and lets anyone on the way change what devices fetch; expected https:// (http:// only to 127.0.0.1, ::1 or localhost, for tests)"
      )
    }

    // Keys and a public URL, but no private key to sign with.
    try #"{"signing": {"trustedKeys": ["keys/ota.pub"]}, "publish": {"publicURL": "\#(Self.publicURL)"}}"#
      .write(to: workspace.file("release.config.json"), atomically: true, encoding: .utf8)
    assertRefused(
      workspace, unsigned, settings(),
      "publishing the signed over-the-air channel needs a private key, and none was given; pass --signing-key <file> or set RELEASE_SIGNING_KEY to the PEM text of a trusted key's private half"
    )

    // A pointer another key signed: never published over.
    let forger = try SigningKey.generate()
    let manifest =
      #"{"schemaVersion": 2, "customer": "acme", "appID": "forged", "revision": 9, "flows": {}, "expires": "2099-01-01T00:00:00Z"}"#
    let forged = try DSSEEnvelope.sign(
      payload: Data(manifest.utf8), payloadType: SignedOTAChannel.payloadType, with: [forger])
    try FileManager.default.createDirectory(
      at: pointer(workspace).deletingLastPathComponent(), withIntermediateDirectories: true)
    try forged.jsonData().write(to: pointer(workspace))
    // Refused for that channel alone (exit 1): nothing of acme's is published (the other
    // customers are: testOneBadChannelDoesNotBlockTheOthers).
    let forgedBytes = try Data(contentsOf: pointer(workspace))
    let forgedRun = failedPublish(workspace, key)
    XCTAssertEqual(forgedRun?.exitCode, 1)
    XCTAssertEqual(forgedRun?.lines.count, 1, "\(forgedRun?.lines ?? [])")
    XCTAssertTrue(
      forgedRun?.lines.first?.hasPrefix(
        "publish over the air: published/\(SignedOTAChannel.pointerKey(channel: Self.channel)): not a manifest signed by a trusted key ("
      ) == true, "\(forgedRun?.lines ?? [])")
    XCTAssertEqual(try Data(contentsOf: pointer(workspace)), forgedBytes, "never published over")
    XCTAssertFalse(FileManager.default.fileExists(atPath: revisionFile(workspace, 1).path))
    XCTAssertFalse(FileManager.default.fileExists(atPath: workspace.file("published/ota/acme").path))
    XCTAssertFalse(FileManager.default.fileExists(atPath: workspace.file("published/ota/models").path))
    try FileManager.default.removeItem(at: workspace.file("published"))

    // --refresh on a run without the signed channel.
    try #"{}"#.write(to: workspace.file("release.config.json"), atomically: true, encoding: .utf8)
    assertRefused(
      workspace, unsigned, settings { $0.refresh = true },
      "--refresh: re-signs the signed channel, and this run has none; it needs release.config.json's signing.trustedKeys and a public URL (--public-url or publish.publicURL)"
    )
  }

  func testOutputNeverShowsTheKeyOrTheChannel() throws {
    let key = try SigningKey.generate()
    let workspace = try signedWorkspace(key)
    // Every event with everything it carries: more than any reporter prints.
    let events = "\(publish(workspace, key).events)"
    XCTAssertTrue(events.contains("acme signed r1"), events)
    for secret in KeysTestSupport.secretLines(ofPEM: key.pemEncoded) + [Self.channel] {
      XCTAssertFalse(events.contains(secret))
    }
  }
}

/// A `dir:` destination read as `ota verify` reads one: objects by key, named by the
/// destination's path (the command's own reader is internal to the command line, which these
/// tests leave out). The files these tests publish are small, so no size limit is enforced.
private struct PublishedDirectory: ChannelReader {
  let directory: URL
  let displayName: String

  func location(of key: String) -> String { "\(displayName)/\(key)" }

  func read(_ key: String, maximumSize: Int64) throws -> Data? {
    let file = directory.appendingPathComponent(key)
    return FileManager.default.fileExists(atPath: file.path) ? try Data(contentsOf: file) : nil
  }

  func digest(of key: String, maximumSize: Int64) throws -> (sha256: String, size: Int64)? {
    let file = directory.appendingPathComponent(key)
    return FileManager.default.fileExists(atPath: file.path)
      ? try SHA256Digest.hexAndSize(ofFileAt: file) : nil
  }
}
