import ContextSDKCore
import Foundation
import XCTest

/// The updater against a real HTTP server on 127.0.0.1 serving a manifest in the format the
/// release tool publishes: rollout, pause, rollback, a corrupt download, a model too new for
/// this SDK, a server that is down. The device's install id is in bucket 9 of the salt used
/// (computed with Python, see RolloutRuleTests), so a 100% offer always reaches it and a 5%
/// one never does.
final class ModelUpdaterTests: XCTestCase {
  private let salt = "0123456789abcdef0123456789abcdef"
  private let device = "device-42"
  private let appID = "3f2b8c1e-6d4a-4e9b-9a51-0c7d2e8f4a10"
  private var server: LocalHTTPServer!
  private var downloads: URL!

  private let configuration = CustomerConfiguration(
    appID: "3F2B8C1E-6D4A-4E9B-9A51-0C7D2E8F4A10", bundleIdentifiers: ["com.acme.app"], sdkVersion: "2.4.0",
    models: [
      FlowModel(
        flowId: 8362, flowName: "onboarding_upsell", modelVersion: 73, sha256: "", inputNames: ["x"],
        specificationVersion: 4, resourceName: "onboarding_upsell_v73.mlmodel")
    ])

  /// Two distinct small Core ML files.
  private let v74 = CoreMLTestModel.bytes(specificationVersion: 4)
  private let v75 = CoreMLTestModel.bytes(specificationVersion: 3)

  override func setUpWithError() throws {
    server = try LocalHTTPServer()
    downloads = FileManager.default.temporaryDirectory.appendingPathComponent("ota-\(UUID().uuidString)")
  }

  override func tearDownWithError() throws {
    server.stop()
    try? FileManager.default.removeItem(at: downloads)
  }

  private func offer(
    _ version: Int, _ bytes: Data, percent: Int = 100, status: String = "active", minimum: String = "1.0.0",
    sha256: String? = nil
  ) -> String {
    let digest = sha256 ?? SHA256Digest.hex(of: bytes)
    server.route("/ota/models/\(digest).mlmodel", body: bytes)
    return """
      {"modelVersion": \(version), "url": "\(server.url("/ota/models/\(digest).mlmodel").absoluteString)",
       "sha256": "\(digest)", "size": \(bytes.count), "minimumSDKVersion": "\(minimum)", "inputs": ["x"],
       "specificationVersion": 4, "rolloutPercent": \(percent), "salt": "\(salt)", "status": "\(status)",
       "aKeyFromTheFuture": true}
      """
  }

  private func publish(revision: Int, paused: Bool = false, _ offers: [String], appID: String? = nil) {
    let manifest = """
      {"schemaVersion": 1, "customer": "acme", "appID": "\(appID ?? self.appID)", "revision": \(revision),
       "flows": {"onboarding_upsell": {"flowId": 8362, "bundledVersion": 73, "paused": \(paused),
         "models": [\(offers.joined(separator: ","))]}}}
      """
    server.route("/ota/acme/models.json", body: Data(manifest.utf8))
  }

  private func update() async -> ModelUpdateReport {
    await ModelUpdater(
      manifestURL: server.url("/ota/acme/models.json"), configuration: configuration, downloadsDirectory: downloads,
      installID: device, sdkVersion: "2.4.0", timeout: 5
    ).update()
  }

  private var files: [String] {
    let folder = downloads.appendingPathComponent("onboarding_upsell")
    return ((try? FileManager.default.contentsOfDirectory(atPath: folder.path)) ?? []).sorted()
  }

  private func resolved() -> Int {
    ModelResolver().resolve(
      configuration.models[0], bundledModelURL: URL(fileURLWithPath: "/bundled.mlmodel"), downloadsDirectory: downloads
    ).modelVersion
  }

  func testRolloutDownloadsTheChosenModelAndTheResolverUsesIt() async throws {
    publish(revision: 1, [offer(74, v74)])
    let report = await update()
    XCTAssertNil(report.error)
    XCTAssertEqual(report.revision, 1)
    XCTAssertEqual(report.flows["onboarding_upsell"]?.downloaded, 74)
    XCTAssertEqual(files, ["74.mlmodel"])
    XCTAssertEqual(try Data(contentsOf: downloads.appendingPathComponent("onboarding_upsell/74.mlmodel")), v74)
    XCTAssertEqual(resolved(), 74)
    // Again: already there, nothing downloaded.
    let again = await update()
    XCTAssertNil(again.flows["onboarding_upsell"]?.downloaded)
    XCTAssertEqual(again.flows["onboarding_upsell"]?.version, 74)
    // A share this device is not in (its bucket is 9): back to the bundled model.
    publish(revision: 2, [offer(74, v74, percent: 5)])
    _ = await update()
    XCTAssertEqual(files, [])
    XCTAssertEqual(resolved(), 73)
  }

  func testPauseDownloadsNothingNewAndKeepsWhatTheDeviceRuns() async throws {
    publish(revision: 1, [offer(74, v74)])
    _ = await update()
    publish(revision: 2, paused: true, [offer(74, v74, status: "paused"), offer(75, v75)])
    let report = await update()
    XCTAssertNil(report.flows["onboarding_upsell"]?.downloaded)
    XCTAssertEqual(report.flows["onboarding_upsell"]?.version, 74)
    XCTAssertEqual(files, ["74.mlmodel"])
    XCTAssertEqual(resolved(), 74)
  }

  func testRollbackDeletesTheRetractedModelAndFallsBackToTheBundledOne() async throws {
    publish(revision: 1, [offer(74, v74)])
    _ = await update()
    publish(revision: 2, [offer(74, v74, percent: 0, status: "retracted")])
    let report = await update()
    XCTAssertEqual(report.flows["onboarding_upsell"]?.deleted, [74])
    XCTAssertNil(report.flows["onboarding_upsell"]?.version)
    XCTAssertEqual(files, [])
    XCTAssertEqual(resolved(), 73)
  }

  func testACorruptDownloadIsRefusedAndTheModelInUseStays() async throws {
    publish(revision: 1, [offer(74, v74)])
    _ = await update()
    // v75's entry names other bytes than the server sends.
    publish(revision: 2, [offer(74, v74), offer(75, v75, sha256: SHA256Digest.hex(of: Data("other".utf8)))])
    let report = await update()
    XCTAssertNotNil(report.flows["onboarding_upsell"]?.error)
    XCTAssertEqual(report.flows["onboarding_upsell"]?.version, 74)
    XCTAssertEqual(files, ["74.mlmodel"], "no temporary file left, the model in use kept")
    XCTAssertEqual(resolved(), 74)
  }

  func testAModelTooNewForThisSDKIsNotTaken() async throws {
    publish(revision: 1, [offer(74, v74, minimum: "2.5.0")])
    let report = await update()
    XCTAssertNil(report.flows["onboarding_upsell"]?.downloaded)
    XCTAssertEqual(files, [])
    XCTAssertFalse(server.requestedPaths.contains { $0.hasPrefix("/ota/models/") }, "nothing downloaded")
  }

  func testAServerThatIsDownOrAManifestForAnotherAppChangesNothing() async throws {
    publish(revision: 1, [offer(74, v74)])
    _ = await update()
    publish(revision: 2, [], appID: "00000000-0000-0000-0000-000000000000")
    let foreign = await update()
    XCTAssertEqual(foreign.error?.hasSuffix("a manifest for another app"), true, foreign.error ?? "")
    XCTAssertEqual(files, ["74.mlmodel"])
    server.stop()
    let down = await update()
    XCTAssertNotNil(down.error)
    XCTAssertEqual(files, ["74.mlmodel"])
    XCTAssertEqual(resolved(), 74)
  }
}
