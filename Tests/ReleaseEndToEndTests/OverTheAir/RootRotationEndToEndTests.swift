import Foundation
import ReleaseCLITestSupport
import ReleaseSigning
import ReleaseSystem
import ReleaseTestSupport
import XCTest

/// Issue 32's proof, with the SDK's real updater as devices (Scripts/ota-devices, each
/// device's state kept between runs) against a release whose channel has a root (2 of 3
/// offline root keys, one manifest key), served over HTTP on 127.0.0.1:
/// 1. the manifest key leaks and signs revision 2^53 − 1 offering a rolled-back model at
///    100 %: every device takes it;
/// 2. `ota root rotate` to a new manifest key (2 of 3 root keys) and one `ota publish`: every
///    device is back on the bundled model, with no app release;
/// 3. a next root signed by the leaked key, by one root key, or by one root key twice: every
///    device refuses it and stays where it is;
/// 4. a manifest signed by the retired key moves no device.
final class RootRotationEndToEndTests: XCTestCase {
  static let devices = 30
  static let probeWork = FileManager.default.temporaryDirectory.appendingPathComponent(
    "ota-devices-root-\(UUID().uuidString)")

  override class func tearDown() {
    try? FileManager.default.removeItem(at: probeWork)
    super.tearDown()
  }

  private var workspace: Workspace!
  private var published: URL!

  @discardableResult
  private func run(
    _ arguments: [String], signer: SigningKey? = nil, exit expected: Int32 = 0, line: UInt = #line
  ) -> Workspace.Run {
    let environment = ["RELEASE_SIGNING_KEY": signer?.pemEncoded ?? ""]
    let result = workspace.run(arguments, environment: environment)
    XCTAssertEqual(result.exitCode, expected, "\(arguments): \(result.allOutput)", line: line)
    return result
  }

  /// Scripts/ota-devices for every device.
  private func devices(line: UInt = #line) throws -> OTADeviceRun {
    try OTADeviceRun(workspace, devices: Self.devices, probeWork: Self.probeWork, line: line)
  }

  private func key(_ name: String) throws -> SigningKey {
    let key = try SigningKey.generate()
    try key.pemEncoded.write(to: workspace.file("keys/\(name).pem"), atomically: true, encoding: .utf8)
    try key.publicKey.pemEncoded.write(
      to: workspace.file("keys/\(name).pub"), atomically: true, encoding: .utf8)
    return key
  }

  /// The payload of `envelope` at `revision`, signed by `signers` as a manifest or a root.
  private func resigned(_ envelope: Data, revision: Int?, type: String, by signers: [SigningKey]) throws
    -> Data
  {
    let object = try jsonObject(envelope, "envelope")
    var payload = try jsonObject(
      try XCTUnwrap(Data(base64Encoded: try XCTUnwrap(object["payload"] as? String))), "p")
    if let revision { payload["revision"] = revision }
    return try DSSEEnvelope.sign(
      payload: try JSONSerialization.data(withJSONObject: payload, options: [.sortedKeys]), payloadType: type,
      with: signers
    ).jsonData()
  }

  private var server: StaticHTTPServer?

  override func tearDown() {
    server?.shutDown()
    super.tearDown()
  }

  /// acme released with root 1 (2 of 3 root keys, manifest key `ci-old`), v74 rolled out to
  /// 100 % (revision 2) and rolled back (revision 3); the channel's folder and revision 2's file.
  private func rolledBackRelease() throws -> (directory: URL, offering: Data, publish: [String]) {
    workspace = try Workspace(manifest: EndToEndManifests.acme)
    published = workspace.file("published")
    try FileManager.default.createDirectory(at: published, withIntermediateDirectories: true)
    try FileManager.default.createDirectory(at: workspace.file("keys"), withIntermediateDirectories: true)
    let server = try StaticHTTPServer(directory: published)
    self.server = server
    for name in ["root-0", "root-1", "root-2", "ci-old", "ci-new"] { _ = try key(name) }
    try #"{"signing": {"root": "ota-root"}}"#.write(
      to: workspace.file("release.config.json"), atomically: true, encoding: .utf8)
    run([
      "ota", "root", "init", "--root-key", "keys/root-0.pub", "--root-key", "keys/root-1.pub", "--root-key",
      "keys/root-2.pub", "--threshold", "2", "--manifest-key", "keys/ci-old.pub", "--signing-key",
      "keys/root-0.pem", "--signing-key", "keys/root-1.pem",
    ])
    try GitFixture.commitAll(workspace.root)
    let destination = ["--publish", "dir:published", "--public-url", server.baseURL]
    let leaked = try stored("ci-old")
    // Made without compiling: the devices' probe builds the released package for real.
    let release = try workspace.runWithoutCompiling(
      ["all", "--skip-tests", "--allow-dirty"] + destination,
      environment: ["RELEASE_SIGNING_KEY": leaked.pemEncoded])
    XCTAssertEqual(release.exitCode, 0, release.allOutput)
    let channel = try XCTUnwrap(try ReleaseStateFile.channels(workspace)["acme"])
    let directory = published.appendingPathComponent("ota/\(channel)")
    let publish = ["ota", "publish"] + destination
    run(["rollout", "acme", "onboarding_upsell", "74", "--percent", "100"])
    run(publish, signer: leaked)
    let offering = try Data(contentsOf: directory.appendingPathComponent("manifest-2.json"))
    run(["rollback", "acme", "onboarding_upsell", "74"])
    run(publish, signer: leaked)
    XCTAssertEqual(try devices().onV74, 0)
    return (directory, offering, publish)
  }

  private func stored(_ name: String) throws -> SigningKey {
    try SigningKey(pem: try String(contentsOf: workspace.file("keys/\(name).pem"), encoding: .utf8))
  }

  /// Root 3 naming `manifestKey` as the manifest key, signed by `signers`.
  private func forgedRoot(after second: Data, manifestKey: SigningKey, signers: [SigningKey]) throws -> Data {
    let envelope = try jsonObject(second, "root-2.json")
    var root = try jsonObject(
      try XCTUnwrap(Data(base64Encoded: try XCTUnwrap(envelope["payload"] as? String))), "root")
    root["version"] = 3
    root["manifest"] = [
      "keys": [
        [
          "keyID": manifestKey.keyID,
          "publicKey": manifestKey.publicKey.rawRepresentation.base64EncodedString(),
        ]
      ],
      "threshold": 1,
    ]
    return try DSSEEnvelope.sign(
      payload: try JSONSerialization.data(withJSONObject: root, options: [.sortedKeys]),
      payloadType: "application/vnd.contextsdk.ota-root+json", with: signers
    ).jsonData()
  }

  func testALeakedManifestKeyIsRotatedOutWithNoAppRelease() throws {
    let (directory, offering, publish) = try rolledBackRelease()
    let rootKeys = try (0..<3).map { try stored("root-\($0)") }
    let leaked = try stored("ci-old")
    let current = try stored("ci-new")

    // 1. The leaked key signs v74 at 100 % as revision 2^53 − 1.
    let manifestType = "application/vnd.contextsdk.ota-manifest+json"
    try resigned(offering, revision: 9_007_199_254_740_991, type: manifestType, by: [leaked])
      .write(to: directory.appendingPathComponent("manifest.json"))
    let leakedRun = try devices()
    XCTAssertEqual(leakedRun.onV74, Self.devices, "every device followed the leaked key")

    // 2. Rotated out with 2 of the 3 offline root keys, one publish.
    run([
      "ota", "root", "rotate", "--manifest-key", "keys/ci-new.pub", "--signing-key", "keys/root-1.pem",
      "--signing-key", "keys/root-2.pem",
    ])
    let replaced = run(publish, signer: current)
    XCTAssertTrue(replaced.allOutput.contains("signed only by retired keys"), replaced.allOutput)
    run(["ota", "verify", "dir:published"])
    let rotated = try devices()
    XCTAssertEqual(rotated.onV74, 0, "every device back on the bundled model")
    XCTAssertEqual(rotated.refused, 0)

    // 3. A next root each device must refuse.
    let secondRoot = try Data(contentsOf: directory.appendingPathComponent("root-2.json"))
    let third = directory.appendingPathComponent("root-3.json")
    var refusals: [Int] = []
    for signers in [[leaked], [rootKeys[0]], [rootKeys[0], rootKeys[0]]] {
      try forgedRoot(after: secondRoot, manifestKey: leaked, signers: signers).write(to: third)
      try resigned(offering, revision: 9_007_199_254_740_991, type: manifestType, by: [leaked])
        .write(to: directory.appendingPathComponent("manifest.json"))
      let forged = try devices()
      XCTAssertEqual(forged.onV74, 0, "\(signers.map(\.keyID))")
      XCTAssertEqual(forged.refused, Self.devices, "\(forged.lines.prefix(2))")
      refusals.append(forged.refused)
    }
    try FileManager.default.removeItem(at: third)

    // 4. A manifest signed by the retired key after the rotation.
    let retired = try devices()
    XCTAssertEqual(retired.onV74, 0)
    XCTAssertEqual(retired.refused, Self.devices, "\(retired.lines.prefix(2))")
    print(
      "RootRotationEndToEndTests: \(Self.devices) devices; leaked key at 2^53-1: \(leakedRun.onV74) on v74; after rotate + publish: \(rotated.onV74) on v74; forged roots refused by \(refusals); retired key's manifest: \(retired.refused) refusals, \(retired.onV74) on v74"
    )
  }
}
