import Foundation
import ReleaseCLITestSupport
import ReleaseSigning
import ReleaseSystem
import ReleaseTestSupport
import XCTest

@testable import ReleaseCore
@testable import ReleaseOTA
@testable import ReleasePipeline

/// `release ota publish` on the signed channel, in process against a `dir:` destination: the
/// envelopes it writes, their revisions, `--refresh`, the stale publisher and the refusals.
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

  @discardableResult
  func publish(
    _ workspace: Workspace, _ key: SigningKey, _ extra: [String] = [], file: StaticString = #filePath,
    line: UInt = #line
  ) -> Workspace.Run {
    let result = workspace.run(
      ["ota", "publish", "--publish", "dir:published"] + extra,
      environment: ["RELEASE_SIGNING_KEY": key.pemEncoded])
    XCTAssertEqual(result.exitCode, 0, result.allOutput, file: file, line: line)
    return result
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

    // A changed offer, through the command (which keeps rollouts.json's published revisions).
    let rollout = workspace.run(["rollout", "acme", "onboarding_upsell", "74", "--percent", "20"])
    XCTAssertEqual(rollout.exitCode, 0, rollout.allOutput)
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
    publish(workspace, key, ["--expires", "1h"])
    let first = try payload(pointer(workspace), key.publicKey)
    // The work tree now says 50 %, unpublished: a refresh must not publish it.
    let rollout = workspace.run(["rollout", "acme", "onboarding_upsell", "74", "--percent", "50"])
    XCTAssertEqual(rollout.exitCode, 0, rollout.allOutput)
    let before = Date()
    publish(workspace, key, ["--refresh", "--expires", "2d"])
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
    XCTAssertEqual(
      workspace.run(["rollout", "acme", "onboarding_upsell", "74", "--percent", "20"]).exitCode, 0)
    publish(workspace, key)
    // Another work tree, which has not seen revision 2, changes the offer and publishes.
    try stale.write(to: workspace.file("rollouts.json"))
    XCTAssertEqual(
      workspace.run(["rollout", "acme", "onboarding_upsell", "74", "--percent", "5"]).exitCode, 0)
    let before = Workspace.snapshot(workspace.file("published"))
    let result = workspace.run(
      ["ota", "publish", "--publish", "dir:published"], environment: ["RELEASE_SIGNING_KEY": key.pemEncoded])
    XCTAssertEqual(result.exitCode, 1, result.allOutput)
    XCTAssertEqual(result.standardError.count, 1, result.allOutput)
    XCTAssertEqual(
      result.standardError.first,
      "error: publish over the air: published/\(SignedOTAChannel.pointerKey(channel: Self.channel)): holds revision 2, and rollouts.json records revision 1: another publisher's newer change is there; nothing was published: update this work tree (pull rollouts.json), then publish again"
    )
    XCTAssertEqual(Workspace.snapshot(workspace.file("published")), before, "nothing published")
  }

  /// Runs `arguments`, expects exit 2, one line on stderr and nothing written.
  @discardableResult
  func assertRefused(
    _ workspace: Workspace, _ arguments: [String], environment: [String: String] = [:],
    file: StaticString = #filePath,
    line: UInt = #line
  ) -> String? {
    let before = Workspace.snapshot(workspace.root)
    let result = workspace.run(arguments, environment: environment)
    XCTAssertEqual(result.exitCode, 2, result.allOutput, file: file, line: line)
    XCTAssertEqual(result.standardError.count, 1, result.allOutput, file: file, line: line)
    XCTAssertEqual(Workspace.snapshot(workspace.root), before, "nothing written", file: file, line: line)
    return result.standardError.first
  }

  func testRefusalsAreOneLineExitTwoAndWriteNothing() throws {
    let key = try SigningKey.generate()
    let workspace = try signedWorkspace(key)
    let arguments = ["ota", "publish", "--publish", "dir:published"]
    let signer = ["RELEASE_SIGNING_KEY": key.pemEncoded]

    // A public URL and no trusted key: from the flag, and from release.config.json.
    try #"{"publish": {"publicURL": "https://cdn.example.com/sdk"}}"#
      .write(to: workspace.file("release.config.json"), atomically: true, encoding: .utf8)
    XCTAssertEqual(
      assertRefused(workspace, arguments),
      "error: release.config.json: publish.publicURL: https://cdn.example.com/sdk: packages get over-the-air models only through a signed channel, and release.config.json trusts no key; add a key: release keys generate keys, then list keys/signing.pub in release.config.json signing.trustedKeys"
    )
    XCTAssertEqual(
      assertRefused(workspace, arguments + ["--public-url", "https://cdn.example.com"]),
      "error: --public-url https://cdn.example.com: packages get over-the-air models only through a signed channel, and release.config.json trusts no key; add a key: release keys generate keys, then list keys/signing.pub in release.config.json signing.trustedKeys"
    )
    XCTAssertEqual(
      assertRefused(workspace, ["all", "--dry-run", "--public-url", "https://cdn.example.com"]),
      "error: --public-url https://cdn.example.com: packages get over-the-air models only through a signed channel, and release.config.json trusts no key; add a key: release keys generate keys, then list keys/signing.pub in release.config.json signing.trustedKeys"
    )

    // Plain http to anything but this machine.
    try #"{"signing": {"trustedKeys": ["keys/ota.pub"]}}"#
      .write(to: workspace.file("release.config.json"), atomically: true, encoding: .utf8)
    for host in ["cdn.example.com", "127.attacker.example"] {
      XCTAssertEqual(
        assertRefused(workspace, arguments + ["--public-url", "http://\(host)/sdk"], environment: signer),
        "error: --public-url http://\(host)/sdk: plain http:// is built into every package and lets anyone on the way change what devices fetch; expected https:// (http:// only to 127.0.0.1, ::1 or localhost, for tests)"
      )
    }

    // Keys and a public URL, but no private key to sign with.
    try #"{"signing": {"trustedKeys": ["keys/ota.pub"]}, "publish": {"publicURL": "\#(Self.publicURL)"}}"#
      .write(to: workspace.file("release.config.json"), atomically: true, encoding: .utf8)
    XCTAssertEqual(
      assertRefused(workspace, arguments, environment: ["RELEASE_SIGNING_KEY": ""]),
      "error: publishing the signed over-the-air channel needs a private key, and none was given; pass --signing-key <file> or set RELEASE_SIGNING_KEY to the PEM text of a trusted key's private half"
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
    let forgedRun = workspace.run(arguments, environment: signer)
    XCTAssertEqual(forgedRun.exitCode, 1, forgedRun.allOutput)
    XCTAssertEqual(forgedRun.standardError.count, 1, forgedRun.allOutput)
    XCTAssertTrue(
      forgedRun.standardError.first?.hasPrefix(
        "error: publish over the air: published/\(SignedOTAChannel.pointerKey(channel: Self.channel)): not a manifest signed by a trusted key ("
      ) == true, forgedRun.allOutput)
    XCTAssertEqual(try Data(contentsOf: pointer(workspace)), forgedBytes, "never published over")
    XCTAssertFalse(FileManager.default.fileExists(atPath: revisionFile(workspace, 1).path))
    XCTAssertFalse(FileManager.default.fileExists(atPath: workspace.file("published/ota/acme").path))
    XCTAssertFalse(FileManager.default.fileExists(atPath: workspace.file("published/ota/models").path))
    try FileManager.default.removeItem(at: workspace.file("published"))

    // --refresh on a run without the signed channel.
    try #"{}"#.write(to: workspace.file("release.config.json"), atomically: true, encoding: .utf8)
    XCTAssertEqual(
      assertRefused(workspace, arguments + ["--refresh"]),
      "error: --refresh: re-signs the signed channel, and this run has none; it needs release.config.json's signing.trustedKeys and a public URL (--public-url or publish.publicURL)"
    )
  }

  func testOutputNeverShowsTheKeyOrTheChannel() throws {
    let key = try SigningKey.generate()
    let workspace = try signedWorkspace(key)
    let result = publish(workspace, key)
    XCTAssertTrue(result.allOutput.contains("acme signed r1"), result.allOutput)
    for secret in KeysTestSupport.secretLines(ofPEM: key.pemEncoded) + [Self.channel] {
      XCTAssertFalse(result.allOutput.contains(secret))
    }
  }
}
