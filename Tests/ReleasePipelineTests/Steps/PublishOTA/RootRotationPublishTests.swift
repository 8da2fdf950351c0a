import Foundation
import ReleaseCLITestSupport
import ReleaseSigning
import ReleaseSystem
import ReleaseTestSupport
import XCTest

@testable import ReleaseCore
@testable import ReleaseOTA
@testable import ReleasePipeline

/// `release ota publish` with a root (`signing.root`): every root document published beside
/// the manifests, and after a rotation a pointer signed only by a retired key replaced.
final class RootRotationPublishTests: XCTestCase {
  private let channel = SignedChannelPublishTests.channel
  private let rootKeys = (0..<3).map { _ in try! SigningKey.generate() }
  private let leaked = try! SigningKey.generate()
  private let current = try! SigningKey.generate()

  private func write(_ key: SigningKey, _ name: String, in workspace: Workspace) throws {
    try key.pemEncoded.write(to: workspace.file("keys/\(name).pem"), atomically: true, encoding: .utf8)
    try key.publicKey.pemEncoded.write(
      to: workspace.file("keys/\(name).pub"), atomically: true, encoding: .utf8)
  }

  /// acme's signed channel with root 1 (2 of 3 root keys, manifest key `leaked`), published once.
  private func rootedWorkspace() throws -> Workspace {
    let workspace = try Workspace()
    try FileManager.default.createDirectory(at: workspace.file("keys"), withIntermediateDirectories: true)
    var state = try ReleaseState.load(from: workspace.file("release-state.json"), displayPath: "state")
    state.channels = ["acme": channel]
    try state.encoded().write(to: workspace.file("release-state.json"))
    try
      #"{"customers": {"acme": {"onboarding_upsell": {"paused": false, "models": [{"modelVersion": 74, "rolloutPercent": 100, "status": "active", "salt": "00000000000000000000000000000001"}]}}}}"#
      .write(to: workspace.file("rollouts.json"), atomically: true, encoding: .utf8)
    for (index, key) in rootKeys.enumerated() { try write(key, "root-\(index)", in: workspace) }
    try write(leaked, "ci-old", in: workspace)
    try write(current, "ci-new", in: workspace)
    try
      #"{"signing": {"root": "ota-root"}, "publish": {"publicURL": "\#(SignedChannelPublishTests.publicURL)"}}"#
      .write(to: workspace.file("release.config.json"), atomically: true, encoding: .utf8)
    let made = workspace.run([
      "ota", "root", "init", "--root-key", "keys/root-0.pub", "--root-key", "keys/root-1.pub", "--root-key",
      "keys/root-2.pub", "--threshold", "2", "--manifest-key", "keys/ci-old.pub", "--signing-key",
      "keys/root-0.pem", "--signing-key", "keys/root-1.pem",
    ])
    XCTAssertEqual(made.exitCode, 0, made.allOutput)
    publish(workspace, leaked)
    return workspace
  }

  @discardableResult
  private func publish(_ workspace: Workspace, _ key: SigningKey, code: Int32 = 0, line: UInt = #line)
    -> Workspace.Run
  {
    let run = workspace.run(
      ["ota", "publish", "--publish", "dir:published"], environment: ["RELEASE_SIGNING_KEY": key.pemEncoded])
    XCTAssertEqual(run.exitCode, code, run.allOutput, line: line)
    return run
  }

  private func file(_ workspace: Workspace, _ name: String) -> URL {
    workspace.file("published/ota/\(channel)/\(name)")
  }

  private func revision(_ workspace: Workspace, _ key: SigningKey) throws -> Int? {
    let verified = try DSSEEnvelope.verify(
      json: try Data(contentsOf: file(workspace, "manifest.json")), payloadType: SignedOTAChannel.payloadType,
      trustedKeys: [key.publicKey])
    return try jsonObject(verified.payload, "manifest.json")["revision"] as? Int
  }

  func testEveryRootIsPublishedCreateOnlyAndAMissingOneRestored() throws {
    let workspace = try rootedWorkspace()
    let committed = try Data(contentsOf: workspace.file("ota-root/1.json"))
    XCTAssertEqual(try Data(contentsOf: file(workspace, "root-1.json")), committed)
    try FileManager.default.removeItem(at: file(workspace, "root-1.json"))
    publish(workspace, leaked)
    XCTAssertEqual(try Data(contentsOf: file(workspace, "root-1.json")), committed, "restored")
    // Another document planted under a root's name refuses the channel: devices would refuse it.
    try Data("{}".utf8).write(to: file(workspace, "root-1.json"))
    let refused = publish(workspace, leaked, code: 1)
    XCTAssertTrue(refused.allOutput.contains("root-1.json"), refused.allOutput)
  }

  func testAfterARotationAPointerSignedOnlyByTheRetiredKeyIsReplaced() throws {
    let workspace = try rootedWorkspace()
    // The leaked key signs the largest revision a device accepts.
    let published = try DSSEEnvelope.verify(
      json: try Data(contentsOf: file(workspace, "manifest.json")), payloadType: SignedOTAChannel.payloadType,
      trustedKeys: [leaked.publicKey]
    ).payload
    var manifest = try JSONDecoder().decode(OTAManifest.self, from: published)
    manifest = manifest.at(revision: SignedOTAChannel.maximumRevision)
    try DSSEEnvelope.sign(
      payload: try manifest.encoded(), payloadType: SignedOTAChannel.payloadType, with: [leaked]
    )
    .jsonData().write(to: file(workspace, "manifest.json"))
    let rotated = workspace.run([
      "ota", "root", "rotate", "--manifest-key", "keys/ci-new.pub", "--signing-key", "keys/root-1.pem",
      "--signing-key", "keys/root-2.pem",
    ])
    XCTAssertEqual(rotated.exitCode, 0, rotated.allOutput)
    let run = publish(workspace, current)
    XCTAssertTrue(run.allOutput.contains("signed only by retired keys"), run.allOutput)
    XCTAssertEqual(
      try revision(workspace, current), 2, "the next revision above those signed by current keys")
    XCTAssertEqual(
      try Data(contentsOf: file(workspace, "root-2.json")),
      try Data(contentsOf: workspace.file("ota-root/2.json")))
    // The retired key can no longer sign: it is not trusted.
    publish(workspace, leaked, code: 2)
  }

  func testVerifyChecksTheRootChainDevicesFollow() throws {
    let workspace = try rootedWorkspace()
    let good = workspace.run(["ota", "verify", "dir:published"])
    XCTAssertEqual(good.exitCode, 0, good.allOutput)
    // A root above the committed ones that the root keys did not sign: devices refuse it and stop.
    try Data(contentsOf: file(workspace, "root-1.json")).write(to: file(workspace, "root-2.json"))
    let above = workspace.run(["ota", "verify", "dir:published"])
    XCTAssertEqual(above.exitCode, 1, above.allOutput)
    XCTAssertTrue(above.allOutput.contains("root-2.json"), above.allOutput)
    try FileManager.default.removeItem(at: file(workspace, "root-2.json"))
    try FileManager.default.removeItem(at: file(workspace, "root-1.json"))
    let missing = workspace.run(["ota", "verify", "dir:published"])
    XCTAssertEqual(missing.exitCode, 1, missing.allOutput)
    XCTAssertTrue(missing.allOutput.contains("root-1.json"), missing.allOutput)
  }
}
