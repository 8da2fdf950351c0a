import Foundation
import ReleaseSettings
import ReleaseSigning
import ReleaseSystem
import ReleaseTestSupport
import XCTest

@testable import ReleaseCore
@testable import ReleaseOTA
@testable import ReleasePipeline

/// `release ota publish` with a root (`signing.root`), its steps built directly: every root
/// document published beside the manifests, and after a rotation a pointer signed only by a
/// retired key replaced.
final class RootRotationPublishTests: XCTestCase {
  private let channel = SignedChannelPublishTests.channel
  private let rootKeys = (0..<3).map { _ in try! SigningKey.generate() }
  private let leaked = try! SigningKey.generate()
  private let current = try! SigningKey.generate()

  /// Root `version` (2 of the 3 root keys, `manifestKey` alone signing manifests) signed by
  /// `signers` and committed in ota-root, as `ota root init` (nil `previous`) or `ota root
  /// rotate` writes it: only once it opens as devices open it after `previous`.
  @discardableResult
  private func commitRoot(
    _ version: Int, manifestKey: SigningKey, signedBy signers: [SigningKey], after previous: ChannelRoot?,
    in workspace: Workspace
  ) throws -> ChannelRoot {
    let root = ChannelRoot(
      version: version, root: .init(keys: rootKeys.map(\.publicKey), threshold: 2),
      manifest: .init(keys: [manifestKey.publicKey], threshold: 1))
    let envelope = try root.signed(by: signers)
    XCTAssertEqual(
      try ChannelRoot.open(envelope, after: previous, location: "ota-root/\(version).json"), root)
    try FileManager.default.createDirectory(at: workspace.file("ota-root"), withIntermediateDirectories: true)
    try envelope.write(to: workspace.file("ota-root/\(version).json"))
    return root
  }

  /// acme's signed channel with root 1 (2 of 3 root keys, manifest key `leaked`), published once.
  private func rootedWorkspace() throws -> (Workspace, ChannelRoot) {
    let workspace = try Workspace()
    var state = try ReleaseState.load(from: workspace.file("release-state.json"), displayPath: "state")
    state.channels = ["acme": channel]
    try state.encoded().write(to: workspace.file("release-state.json"))
    try
      #"{"customers": {"acme": {"onboarding_upsell": {"paused": false, "models": [{"modelVersion": 74, "rolloutPercent": 100, "status": "active", "salt": "00000000000000000000000000000001"}]}}}}"#
      .write(to: workspace.file("rollouts.json"), atomically: true, encoding: .utf8)
    try
      #"{"signing": {"root": "ota-root"}, "publish": {"publicURL": "\#(SignedChannelPublishTests.publicURL)"}}"#
      .write(to: workspace.file("release.config.json"), atomically: true, encoding: .utf8)
    let first = try commitRoot(
      1, manifestKey: leaked, signedBy: [rootKeys[0], rootKeys[1]], after: nil, in: workspace)
    publish(workspace, leaked)
    return (workspace, first)
  }

  /// The steps of `ota publish --publish dir:published` signed with `key`.
  private func steps(_ workspace: Workspace, _ key: SigningKey) -> OTAPublishSteps {
    OTAPublishSteps(in: workspace.root, signingWith: key)
  }

  /// Publishes the channel signed with `key`, expecting success; what it reported.
  @discardableResult
  private func publish(_ workspace: Workspace, _ key: SigningKey, line: UInt = #line) -> RecordingReporter {
    steps(workspace, key).publish(CommandLineSettings(publish: "dir:published"), line: line)
  }

  /// Publishes the channel signed with `key`, expecting it to fail; the error.
  private func failedPublish(_ workspace: Workspace, _ key: SigningKey, line: UInt = #line) -> ReleaseError? {
    steps(workspace, key).failure(CommandLineSettings(publish: "dir:published"), line: line)
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
    let (workspace, _) = try rootedWorkspace()
    let committed = try Data(contentsOf: workspace.file("ota-root/1.json"))
    XCTAssertEqual(try Data(contentsOf: file(workspace, "root-1.json")), committed)
    try FileManager.default.removeItem(at: file(workspace, "root-1.json"))
    publish(workspace, leaked)
    XCTAssertEqual(try Data(contentsOf: file(workspace, "root-1.json")), committed, "restored")
    // Another document planted under a root's name refuses the channel: devices would refuse it.
    try Data("{}".utf8).write(to: file(workspace, "root-1.json"))
    let refused = failedPublish(workspace, leaked)
    XCTAssertEqual(refused?.exitCode, 1)
    XCTAssertTrue(refused?.lines.contains { $0.contains("root-1.json") } == true, "\(refused?.lines ?? [])")
  }

  func testAfterARotationAPointerSignedOnlyByTheRetiredKeyIsReplaced() throws {
    let (workspace, first) = try rootedWorkspace()
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
    try commitRoot(
      2, manifestKey: current, signedBy: [rootKeys[1], rootKeys[2]], after: first, in: workspace)
    let run = publish(workspace, current)
    XCTAssertTrue(run.infos.contains { $0.contains("signed only by retired keys") }, "\(run.infos)")
    XCTAssertEqual(
      try revision(workspace, current), 2, "the next revision above those signed by current keys")
    XCTAssertEqual(
      try Data(contentsOf: file(workspace, "root-2.json")),
      try Data(contentsOf: workspace.file("ota-root/2.json")))
    // The retired key can no longer sign: it is not trusted (bad input).
    XCTAssertEqual(failedPublish(workspace, leaked)?.exitCode, 2)
  }

  /// What the publish leaves is checked as `ota verify` checks it: the root chain devices follow.
  func testVerifyChecksTheRootChainDevicesFollow() throws {
    let (workspace, _) = try rootedWorkspace()
    let good = try SignedChannelPublishTests.verifiedChannel(workspace)
    XCTAssertEqual(good.problems, [])
    // A root above the committed ones that the root keys did not sign: devices refuse it and stop.
    try Data(contentsOf: file(workspace, "root-1.json")).write(to: file(workspace, "root-2.json"))
    let above = try SignedChannelPublishTests.verifiedChannel(workspace)
    XCTAssertTrue(above.problems.contains { $0.description.contains("root-2.json") }, "\(above.problems)")
    try FileManager.default.removeItem(at: file(workspace, "root-2.json"))
    try FileManager.default.removeItem(at: file(workspace, "root-1.json"))
    let missing = try SignedChannelPublishTests.verifiedChannel(workspace)
    XCTAssertTrue(missing.problems.contains { $0.description.contains("root-1.json") }, "\(missing.problems)")
  }
}
