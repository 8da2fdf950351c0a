@testable import ContextSDKCore
import Foundation
import XCTest

/// The device following the channel's root documents: a leaked manifest key rotated out by
/// the offline root keys, and root documents it must refuse.
final class RootRotationTests: DeviceTestCase {
  private let now = Date(timeIntervalSince1970: 1_800_000_000)
  private let rootKeys = ["11", "12", "13"].map { TestSigner(hex: String(repeating: $0, count: 32)) }
  private let leaked = TestSigner(hex: String(repeating: "21", count: 32))
  private let next = TestSigner(hex: String(repeating: "22", count: 32))
  private let appID = "00000000-0000-4000-8000-000000000032"

  private func keys(_ signers: [TestSigner]) -> String {
    signers.map { #"{"keyID": "\#($0.keyID)", "publicKey": "\#($0.publicKey.base64EncodedString())"}"# }
      .joined(separator: ", ")
  }

  /// Root `version`: the three root keys, 2 of them to sign; `manifest` its manifest keys.
  private func root(_ version: Int, manifest: [TestSigner], signedBy signers: [TestSigner]) -> Data {
    let payload = """
      {"schemaVersion": 1, "version": \(version), "root": {"keys": [\(keys(rootKeys))], "threshold": 2},
       "manifest": {"keys": [\(keys(manifest))], "threshold": 1}}
      """
    return TestSigner.envelope(Data(payload.utf8), signedBy: signers, payloadType: TrustedRoot.payloadType)
  }

  private func serveManifest(revision: Int, signedBy signer: TestSigner) {
    let formatter = ISO8601DateFormatter()
    formatter.formatOptions = [.withInternetDateTime]
    let payload = """
      {"schemaVersion": 2, "customer": "example", "appID": "\(appID)", "revision": \(revision),
       "expires": "\(formatter.string(from: now.addingTimeInterval(86_400)))",
       "flows": {"example_flow": {"flowId": 1, "bundledVersion": 3, "paused": false, "models": []}}}
      """
    server.route(
      "/ota/example/manifest.json", body: TestSigner.envelope(Data(payload.utf8), signedBy: [signer]))
  }

  private func update() async -> ModelUpdateReport {
    let embedded = String(
      decoding: root(1, manifest: [leaked], signedBy: Array(rootKeys.prefix(2))), as: UTF8.self)
    let configuration = CustomerConfiguration(
      appID: appID, bundleIdentifiers: ["com.example.app"], sdkVersion: "2.4.0",
      models: [
        FlowModel(
          flowId: 1, flowName: "example_flow", modelVersion: 3, sha256: "", inputNames: ["x"],
          specificationVersion: 4, resourceName: "example_flow_v3.mlmodel")
      ], customer: "example", trustedKeys: [leaked.trustedKey],
      manifestURL: server.url("/ota/example/manifest.json").absoluteString, trustedRoot: embedded)
    let instant = now
    return await ModelUpdater(
      channel: try! XCTUnwrap(configuration.channel), configuration: configuration, installID: "device-1",
      settings: ModelUpdateConfiguration(
        modelsDirectory: downloads, stateDirectory: state, minimumCheckInterval: 0, requestTimeout: 5),
      sdkVersion: "2.4.0", now: { instant }
    ).update()
  }

  /// The leaked key's manifest at the largest revision, accepted by the device.
  private func lockedOut() async {
    serveManifest(revision: Int(ModelManifest.maximumRevision), signedBy: leaked)
    let report = await update()
    XCTAssertNil(report.error)
    XCTAssertEqual(report.revision, ModelManifest.maximumRevision)
  }

  func testARotationOutOfTheLeakedKeyLetsTheDeviceForgetItsFloor() async throws {
    await lockedOut()
    server.route(
      "/ota/example/root-2.json", body: root(2, manifest: [next], signedBy: Array(rootKeys.suffix(2))))
    serveManifest(revision: 2, signedBy: next)
    let report = await update()
    XCTAssertNil(report.error, "\(String(describing: report.error))")
    XCTAssertEqual(report.revision, 2)
    XCTAssertTrue(
      FileManager.default.fileExists(atPath: state.appendingPathComponent("ota-roots/2.json").path))
    // The retired key is no longer believed.
    serveManifest(revision: 3, signedBy: leaked)
    guard case .manifestRejected(_, .untrustedKeys) = await update().error else {
      return XCTFail("a manifest by the retired key was followed")
    }
  }

  func testARotationThatKeepsTheKeyKeepsTheFloor() async throws {
    await lockedOut()
    server.route(
      "/ota/example/root-2.json",
      body: root(2, manifest: [leaked, next], signedBy: Array(rootKeys.prefix(2))))
    serveManifest(revision: 2, signedBy: next)
    guard case .manifestRejected(_, .revisionRolledBack) = await update().error else {
      return XCTFail("the floor of a key still trusted was forgotten")
    }
  }

  func testARootByAManifestKeyByOneRootKeyOrByOneRootKeyTwiceIsRefused() async throws {
    await lockedOut()
    serveManifest(revision: 2, signedBy: next)
    let forged = [
      root(2, manifest: [next], signedBy: [leaked]), root(2, manifest: [next], signedBy: [rootKeys[0]]),
      root(2, manifest: [next], signedBy: [rootKeys[0], rootKeys[0]]),
      root(3, manifest: [next], signedBy: rootKeys),
    ]
    for document in forged {
      server.route("/ota/example/root-2.json", body: document)
      let report = await update()
      guard case .rootRejected = report.error else {
        return XCTFail("followed a forged root: \(String(describing: report.error))")
      }
      XCTAssertFalse(
        FileManager.default.fileExists(atPath: state.appendingPathComponent("ota-roots/2.json").path))
    }
    // Where it was: the leaked key's revision is still its floor.
    server.route("/ota/example/root-2.json", status: 404, body: Data())
    guard case .manifestRejected(_, .untrustedKeys) = await update().error else {
      return XCTFail("the device followed a key its root does not list")
    }
    let floor = try String(
      contentsOf: state.appendingPathComponent(ModelUpdater.revisionFileName), encoding: .utf8)
    XCTAssertEqual(floor, String(ModelManifest.maximumRevision))
  }
}
