import Foundation
import ReleaseCLITestSupport
import ReleaseSigning
import ReleaseSystem
import ReleaseTestSupport
import XCTest

/// Issue 30's proof, with the SDK's real updater as devices (Scripts/ota-devices, each
/// device's state kept between runs) against a release signed and served over HTTP on
/// 127.0.0.1, the bucket written as an attacker who has no key would:
/// 1. a wiped channel: the rollback's publish still reaches every device that accepted the
///    rollout (its revision goes above the one recorded as published, not back to 1);
/// 2. the refresh attack: the pointer moved back to the revision that offered the rolled-back
///    model at 100 %, the rollback's file deleted: `ota verify --min-revision` exits 1, the
///    refresh refuses the channel, and no device takes the model back;
/// 3. a pointer at revision 2^63 - 1 signed with the real key: `ota verify` exits 1 within
///    seconds, the refresh refuses it without crashing, and devices refuse it.
/// One test, so the release and the probe are built once.
final class SignedChannelAttackEndToEndTests: XCTestCase {
  static let devices = 30
  static let probeWork = FileManager.default.temporaryDirectory.appendingPathComponent(
    "ota-devices-attack-\(UUID().uuidString)")

  override class func tearDown() {
    try? FileManager.default.removeItem(at: probeWork)
    super.tearDown()
  }

  private struct Channel {
    let workspace: Workspace
    let published: URL
    let channel: String
    let destination: [String]
    let signer: [String: String]
    var directory: URL { published.appendingPathComponent("ota/\(channel)") }
    var pointer: URL { directory.appendingPathComponent("manifest.json") }
    func revision(_ number: Int) -> URL { directory.appendingPathComponent("manifest-\(number).json") }
  }

  @discardableResult
  private func run(
    _ channel: Channel, _ arguments: [String], exit expected: Int32 = 0, file: StaticString = #filePath,
    line: UInt = #line
  ) -> Workspace.Run {
    let result = channel.workspace.run(arguments, environment: channel.signer)
    XCTAssertEqual(result.exitCode, expected, "\(arguments): \(result.allOutput)", file: file, line: line)
    return result
  }

  /// Scripts/ota-devices for every device; it exits 1 when any device refused its update.
  private func devices(_ channel: Channel, line: UInt = #line) throws -> OTADeviceRun {
    let run = try OTADeviceRun(
      channel.workspace, devices: Self.devices, probeWork: Self.probeWork, line: line)
    XCTAssertEqual(run.exitCode, run.refused == 0 ? 0 : 1, run.standardError, line: line)
    return run
  }

  private func payloadRevision(_ url: URL) throws -> Int? {
    let envelope = try jsonObject(try Data(contentsOf: url), url.lastPathComponent)
    let payload = try XCTUnwrap(Data(base64Encoded: try XCTUnwrap(envelope["payload"] as? String)))
    return try jsonObject(payload, "payload")["revision"] as? Int
  }

  func testAWipeTheRefreshAttackAndTheLargestRevisionMoveNoDevice() throws {
    let workspace = try Workspace(manifest: EndToEndManifests.acme)
    let published = workspace.file("published")
    try FileManager.default.createDirectory(at: published, withIntermediateDirectories: true)
    let server = try StaticHTTPServer(directory: published)
    defer { server.shutDown() }
    let signer = try workspace.trustSigningKey()
    try GitFixture.commitAll(workspace.root)
    let destination = ["--publish", "dir:published", "--public-url", server.baseURL]
    XCTAssertEqual(
      // Made without compiling: the devices' probe builds the released package for real.
      try workspace.runWithoutCompiling(
        ["all", "--skip-tests", "--allow-dirty"] + destination, environment: signer
      )
      .exitCode, 0)
    let channel = Channel(
      workspace: workspace, published: published,
      channel: try XCTUnwrap(try ReleaseStateFile.channels(workspace)["acme"]), destination: destination,
      signer: signer)
    let publish = ["ota", "publish"] + destination

    // v74 to every device (r2).
    run(channel, ["rollout", "acme", "onboarding_upsell", "74", "--percent", "100"])
    run(channel, publish)
    XCTAssertEqual(try devices(channel).onV74, Self.devices)
    let offering = try Data(contentsOf: channel.revision(2))

    // 1. The channel wiped, then rolled back: r3, which every device takes.
    try FileManager.default.removeItem(at: channel.directory)
    run(channel, ["rollback", "acme", "onboarding_upsell", "74"])
    let rollback = run(channel, publish)
    XCTAssertTrue(
      rollback.allOutput.contains("published the work tree's state as revision 3"), rollback.allOutput)
    XCTAssertEqual(try payloadRevision(channel.pointer), 3)
    let afterWipe = try devices(channel)
    XCTAssertEqual(afterWipe.onV74, 0, "the rollback reached every device")
    XCTAssertEqual(afterWipe.refused, 0)

    // 2. The pointer moved back to r2 (v74 at 100 %), manifest-3.json deleted.
    try FileManager.default.removeItem(at: channel.revision(3))
    try offering.write(to: channel.pointer)
    run(channel, ["ota", "verify", "dir:published", "--min-revision", "3"], exit: 1)
    let refresh = run(channel, publish + ["--refresh"], exit: 1)
    XCTAssertTrue(refresh.allOutput.contains("run 'release ota publish'"), refresh.allOutput)
    XCTAssertEqual(try Data(contentsOf: channel.pointer), offering, "nothing re-signed")
    let attacked = try devices(channel)
    XCTAssertEqual(attacked.onV74, 0, "no device on the retracted model after the refresh")
    XCTAssertEqual(attacked.refused, Self.devices, "each device refused the older revision")
    let republish = run(channel, publish)
    XCTAssertTrue(
      republish.allOutput.contains("published the work tree's state as revision 4"), republish.allOutput)
    run(channel, ["ota", "verify", "dir:published", "--min-revision", "4"])
    let repaired = try devices(channel)
    XCTAssertEqual(repaired.onV74, 0)
    XCTAssertEqual(repaired.refused, 0, "r4 followed")

    // 3. A pointer at 2^63 - 1, signed with the real key.
    let key = try SigningKey(pem: try XCTUnwrap(signer["RELEASE_SIGNING_KEY"]))
    var payload = try jsonObject(
      try XCTUnwrap(
        Data(
          base64Encoded: try XCTUnwrap(
            try jsonObject(try Data(contentsOf: channel.pointer), "manifest.json")["payload"] as? String))),
      "payload")
    payload["revision"] = Int.max
    let huge = try DSSEEnvelope.sign(
      payload: try JSONSerialization.data(withJSONObject: payload, options: [.sortedKeys]),
      payloadType: "application/vnd.contextsdk.ota-manifest+json", with: [key])
    try huge.jsonData().write(to: channel.pointer)
    let started = Date()
    let verify = run(channel, ["ota", "verify", "dir:published"], exit: 1)
    let seconds = Date().timeIntervalSince(started)
    XCTAssertLessThan(seconds, 10, verify.allOutput)
    XCTAssertTrue(
      verify.allOutput.contains("at revision 9223372036854775807, above 9007199254740991"), verify.allOutput)
    run(channel, publish + ["--refresh"], exit: 1)
    let locked = try devices(channel)
    XCTAssertEqual(locked.onV74, 0)
    XCTAssertEqual(locked.refused, Self.devices, "each device refused revision 2^63 - 1")
    XCTAssertTrue(
      locked.lines.contains { $0.contains("revision is not from 1 to 9007199254740991") },
      "\(locked.lines.prefix(4))")
    print(
      "SignedChannelAttackEndToEndTests: \(Self.devices) devices; after the wipe's rollback \(afterWipe.onV74) on v74; pointer moved back: \(attacked.refused) refusals, \(attacked.onV74) on v74; revision 2^63-1: ota verify \(String(format: "%.2f", seconds)) s, \(locked.refused) refusals"
    )
  }
}
