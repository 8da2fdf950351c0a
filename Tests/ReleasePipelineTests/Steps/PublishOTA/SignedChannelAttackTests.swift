import Foundation
import ReleaseSigning
import ReleaseSystem
import ReleaseTestSupport
import XCTest

@testable import ReleaseCore
@testable import ReleaseOTA
@testable import ReleasePipeline

/// The signed channel against someone who can write the bucket (issue 30): a pointer moved
/// back to an older revision before the daily `--refresh`, a wiped channel before an emergency
/// rollback, a revision file replaced, a pointer at revision 2^63 - 1 signed with the real key;
/// and one bad channel beside a good one.
extension SignedChannelPublishTests {
  private func channelFile(_ workspace: Workspace, _ name: String) -> URL {
    workspace.file("published/ota/\(Self.channel)/\(name)")
  }

  /// rollouts.json's `published` entry of `customer`: its revision and the payload's SHA-256.
  func recordedEntry(_ workspace: Workspace, _ customer: String = "acme") throws -> (Int?, String?) {
    let rollouts = try jsonObject(try Data(contentsOf: workspace.file("rollouts.json")), "rollouts.json")
    let entry = (rollouts["published"] as? [String: Any])?[customer] as? [String: Any]
    return (entry?["revision"] as? Int, entry?["sha256"] as? String)
  }

  /// The verified payload's bytes of the envelope at `url`.
  private func payloadBytes(_ url: URL, _ key: SigningKey) throws -> Data {
    try DSSEEnvelope.verify(
      json: try Data(contentsOf: url), payloadType: SignedOTAChannel.payloadType, trustedKeys: [key.publicKey]
    ).payload
  }

  private func status(_ payload: [String: Any]) -> String? {
    let flows = payload["flows"] as? [String: Any]
    let flow = flows?["onboarding_upsell"] as? [String: Any]
    return ((flow?["models"] as? [[String: Any]])?.first?["status"]) as? String
  }

  /// v74 to 10 % (r1), then 100 % (r2), then rolled back (r3, retracted): issue 30's story.
  private func rolledBackChannel(_ key: SigningKey) throws -> Workspace {
    let workspace = try signedWorkspace(key)
    publish(workspace, key)
    try rollout(workspace, percent: 100)
    publish(workspace, key)
    try rollback(workspace)
    publish(workspace, key)
    let third = try payload(pointer(workspace), key.publicKey)
    XCTAssertEqual(third["revision"] as? Int, 3)
    XCTAssertEqual(status(third), "retracted")
    return workspace
  }

  func testThePublishedRevisionIsRecordedWithItsPayloadDigest() throws {
    let key = try SigningKey.generate()
    let workspace = try rolledBackChannel(key)
    let (revision, sha256) = try recordedEntry(workspace)
    XCTAssertEqual(revision, 3)
    XCTAssertEqual(sha256, SHA256Digest.hex(of: try payloadBytes(revisionFile(workspace, 3), key)))
    // A file that records the revision alone (before the digest was kept) still reads.
    let state = try RolloutState.load(
      from: try XCTUnwrap(
        Data(#"{"customers": {}, "published": {"acme": 7}}"#.utf8).writtenToTemporaryFile()),
      displayPath: "rollouts.json")
    XCTAssertEqual(state.published["acme"], RolloutState.PublishedRevision(revision: 7, payloadSHA256: nil))
  }

  /// Issue 30, point 1: the pointer moved back to r2 (v74 at 100 %) and manifest-3.json
  /// deleted; the refresh must not re-sign r2's content.
  func testARefreshNeverReSignsAPointerMovedBack() throws {
    let key = try SigningKey.generate()
    let workspace = try rolledBackChannel(key)
    try FileManager.default.removeItem(at: revisionFile(workspace, 3))
    try FileManager.default.removeItem(at: pointer(workspace))
    try FileManager.default.copyItem(at: revisionFile(workspace, 2), to: pointer(workspace))

    let verify = try Self.verifiedChannel(workspace, minimumRevision: 3)
    XCTAssertTrue(
      verify.problems.map(\.description).contains(
        "published/ota/\(Self.channel)/manifest.json: holds revision 2, below --min-revision 3; expected 3 or above: an older manifest served again"
      ), "\(verify.problems)")

    let refresh = failedPublish(workspace, key) { $0.refresh = true }
    XCTAssertEqual(refresh?.exitCode, 1)
    XCTAssertEqual(
      refresh?.lines,
      [
        "publish over the air: published/ota/\(Self.channel)/manifest-3.json: missing; a refresh re-signs only the revision rollouts.json records as published (3), and its file is gone or changed: run 'release ota publish' to publish the work tree's state as a new revision"
      ])
    XCTAssertEqual(try payload(pointer(workspace), key.publicKey)["revision"] as? Int, 2, "nothing re-signed")
    XCTAssertFalse(FileManager.default.fileExists(atPath: revisionFile(workspace, 4).path))

    // The plain publish republishes the work tree's state (retracted) above the recorded r3.
    let republish = publish(workspace, key)
    XCTAssertTrue(
      republish.infos.contains {
        $0.contains(
          "acme's signed manifest holds revision 2, below revision 3 that rollouts.json records as published (moved back or wiped): published the work tree's state as revision 4"
        )
      }, "\(republish.infos)")
    let fourth = try payload(pointer(workspace), key.publicKey)
    XCTAssertEqual(fourth["revision"] as? Int, 4)
    XCTAssertEqual(status(fourth), "retracted")
    XCTAssertEqual(try recordedEntry(workspace).0, 4)
    XCTAssertEqual(try Self.verifiedChannel(workspace, minimumRevision: 4).problems, [])
  }

  /// The pointer moved back, the published revision's file intact: the refresh re-signs r3's
  /// content (retracted) as r4.
  func testARefreshReSignsThePublishedRevisionsFileWhenThePointerWasMovedBack() throws {
    let key = try SigningKey.generate()
    let workspace = try rolledBackChannel(key)
    try Data(contentsOf: revisionFile(workspace, 2)).write(to: pointer(workspace))
    let refresh = publish(workspace, key) { $0.refresh = true }
    XCTAssertTrue(refresh.infos.contains { $0.contains("acme r4") }, "\(refresh.infos)")
    let fourth = try payload(pointer(workspace), key.publicKey)
    XCTAssertEqual(fourth["revision"] as? Int, 4)
    XCTAssertEqual(status(fourth), "retracted")
    XCTAssertEqual(percent(fourth), 0)
  }

  /// A validly signed manifest at revision 3 that is not the one published (its digest differs
  /// from the recorded one): refused.
  func testARefreshRefusesARevisionFileWhoseDigestDiffers() throws {
    let key = try SigningKey.generate()
    let workspace = try rolledBackChannel(key)
    var manifest = try JSONDecoder().decode(
      OTAManifest.self, from: try payloadBytes(revisionFile(workspace, 2), key))
    manifest = manifest.at(revision: 3)
    let replaced = try SignedOTAChannel.envelope(
      manifest, expires: Date().addingTimeInterval(86_400), signers: [key], trusted: [key.publicKey])
    try replaced.write(to: revisionFile(workspace, 3))
    try replaced.write(to: pointer(workspace))
    let refresh = failedPublish(workspace, key) { $0.refresh = true }
    XCTAssertEqual(refresh?.exitCode, 1)
    XCTAssertEqual(refresh?.lines.count, 1, "\(refresh?.lines ?? [])")
    XCTAssertTrue(
      refresh?.lines.first?.hasPrefix(
        "publish over the air: published/ota/\(Self.channel)/manifest-3.json: holds a payload with sha256 "
      ) == true, "\(refresh?.lines ?? [])")
    XCTAssertTrue(refresh?.lines.first?.contains("run 'release ota publish'") == true)
    XCTAssertFalse(FileManager.default.fileExists(atPath: revisionFile(workspace, 4).path))
  }

  /// Issue 30, point 2: the channel wiped, then the next publish goes above the recorded
  /// revision (and above any revision file left), never at r1.
  func testAfterAWipeThePublishGoesAboveThePublishedRevision() throws {
    let key = try SigningKey.generate()
    let workspace = try rolledBackChannel(key)
    try FileManager.default.removeItem(at: workspace.file("published/ota/\(Self.channel)"))
    let republish = publish(workspace, key)
    XCTAssertTrue(
      republish.infos.contains {
        $0.contains(
          "acme's signed manifest is missing, and rollouts.json records revision 3 as published (moved back or wiped): published the work tree's state as revision 4"
        )
      }, "\(republish.infos)")
    XCTAssertEqual(try payload(pointer(workspace), key.publicKey)["revision"] as? Int, 4)
    XCTAssertFalse(FileManager.default.fileExists(atPath: revisionFile(workspace, 1).path))

    // Wiped again, a stray revision file left above: the next revision is above it too.
    try FileManager.default.removeItem(at: pointer(workspace))
    try FileManager.default.copyItem(at: revisionFile(workspace, 4), to: revisionFile(workspace, 6))
    publish(workspace, key)
    XCTAssertEqual(try payload(pointer(workspace), key.publicKey)["revision"] as? Int, 7)
  }

  /// Issue 30, point 3: a pointer at 2^63 - 1 signed with the real key is refused, by the
  /// refresh and the publish alike, without a crash.
  func testAPointerAtTheLargestIntegerIsRefused() throws {
    let key = try SigningKey.generate()
    let workspace = try rolledBackChannel(key)
    let manifest = try JSONDecoder().decode(
      OTAManifest.self, from: try payloadBytes(revisionFile(workspace, 3), key))
    let huge = try DSSEEnvelope.sign(
      payload: try manifest.at(revision: Int.max).encoded(), payloadType: SignedOTAChannel.payloadType,
      with: [key])
    try huge.jsonData().write(to: pointer(workspace))
    for refresh in [true, false] {
      let run = failedPublish(workspace, key) { $0.refresh = refresh }
      XCTAssertEqual(run?.exitCode, 1, "refresh \(refresh)")
      XCTAssertTrue(
        run?.lines.contains {
          $0.contains(
            "published/ota/\(Self.channel)/manifest.json: signed by a trusted key, but at revision 9223372036854775807, above 9007199254740991, the largest a device accepts"
          )
        } == true, "refresh \(refresh): \(run?.lines ?? [])")
    }
    XCTAssertFalse(FileManager.default.fileExists(atPath: revisionFile(workspace, 4).path))
    XCTAssertNotEqual(try Self.verifiedChannel(workspace).problems, [])
  }

  /// One customer's channel moved back with its published revision's file gone: the refresh
  /// refuses that channel, refreshes the other and exits 1.
  func testOneBadChannelDoesNotBlockTheOthers() throws {
    let key = try SigningKey.generate()
    let workspace = try signedWorkspace(key)
    let other = "fedcba9876543210fedcba9876543210"
    var state = try ReleaseState.load(from: workspace.file("release-state.json"), displayPath: "state")
    state.channels["bluebird"] = other
    try state.encoded().write(to: workspace.file("release-state.json"))
    publish(workspace, key)
    try rollout(workspace, percent: 50)
    publish(workspace, key)
    try FileManager.default.removeItem(at: revisionFile(workspace, 2))
    try Data(contentsOf: revisionFile(workspace, 1)).write(to: pointer(workspace))

    let reporter = RecordingReporter()
    let refresh = failedPublish(workspace, key, reporter: reporter) { $0.refresh = true }
    XCTAssertEqual(refresh?.exitCode, 1)
    XCTAssertTrue(reporter.infos.contains { $0.contains("bluebird r2") }, "\(reporter.infos)")
    let bluebird = workspace.file("published/" + SignedOTAChannel.pointerKey(channel: other))
    XCTAssertEqual(try payload(bluebird, key.publicKey)["revision"] as? Int, 2)
    XCTAssertEqual(try recordedEntry(workspace, "bluebird").0, 2)
    XCTAssertEqual(try recordedEntry(workspace, "acme").0, 2, "acme's record unchanged")
  }
}

extension Data {
  /// These bytes in a new temporary file.
  fileprivate func writtenToTemporaryFile() throws -> URL {
    let url = FileManager.default.temporaryDirectory.appendingPathComponent(
      "rollouts-\(UUID().uuidString).json")
    try write(to: url)
    return url
  }
}

extension SignedChannelPublishTests {
  /// The legacy unsigned pointer at revision 2^63 - 1 (anyone who can write the bucket can put
  /// it there): refused with one line, never a trap on the next revision's number.
  func testALegacyPointerAtTheLargestIntegerIsRefusedWithoutATrap() throws {
    let key = try SigningKey.generate()
    let workspace = try signedWorkspace(key)
    // A released package without pinned keys: acme's legacy manifest is published.
    let record = workspace.file("dist/acme/1.0.0/release.json")
    try FileManager.default.createDirectory(
      at: record.deletingLastPathComponent(), withIntermediateDirectories: true)
    try Data(#"{"version": "1.0.0"}"#.utf8).write(to: record)
    publish(workspace, key)
    let legacy = workspace.file("published/ota/acme/models.json")
    var manifest = try jsonObject(try Data(contentsOf: legacy), "models.json")
    manifest["revision"] = Int.max
    try JSONSerialization.data(withJSONObject: manifest).write(to: legacy)
    try rollout(workspace, percent: 20)
    let result = failedPublish(workspace, key)
    XCTAssertEqual(result?.exitCode, 2)
    XCTAssertEqual(
      result?.lines,
      [
        "published/ota/acme/models.json: not an OTA manifest written by release for this customer (revision 9223372036854775807, expected 0 to 9007199254740991); fix or remove it, then publish again"
      ])
  }
}
