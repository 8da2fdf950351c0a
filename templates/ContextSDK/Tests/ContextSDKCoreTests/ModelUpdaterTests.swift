import ContextSDKCore
import Foundation
import XCTest

/// The updater against a real HTTP server on 127.0.0.1 serving manifests in the format the
/// release tool publishes: `PublishedManifest`, which the tool's tests write from a manifest the
/// tool published, as it is, and with its fields changed for rollout, pause, rollback, a corrupt
/// or oversized download, a model too new for this SDK, a server that is down. The device's
/// install id is in bucket 9 of the salt used (computed with Python, see RolloutRuleTests), so
/// a 100% offer always reaches it and a 5% one never does.
final class ModelUpdaterTests: XCTestCase {
  private let salt = "0123456789abcdef0123456789abcdef"
  private let device = "device-42"
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

  /// The tool's manifest as plain JSON values, its URLs on this test's server.
  private func toolManifest() throws -> [String: Any] {
    let text = PublishedManifest.json.replacingOccurrences(
      of: PublishedManifest.publicURL, with: server.url("").absoluteString)
    return try XCTUnwrap(JSONSerialization.jsonObject(with: Data(text.utf8)) as? [String: Any])
  }

  /// The tool's model entry with the given facts (every other key as the tool wrote it),
  /// serving `bytes` at its URL.
  private func offer(
    _ version: Int, _ bytes: Data, percent: Int = 100, status: String = "active", minimum: String = "1.0.0",
    sha256: String? = nil, size: Int? = nil, announcesLength: Bool = true, paced: Bool = false
  ) throws -> [String: Any] {
    let flows = try XCTUnwrap(try toolManifest()["flows"] as? [String: Any])
    var entry = try XCTUnwrap(
      ((flows["onboarding_upsell"] as? [String: Any])?["models"] as? [[String: Any]])?.first)
    let digest = sha256 ?? SHA256Digest.hex(of: bytes)
    server.route("/ota/models/\(digest).mlmodel", body: bytes, announcesLength: announcesLength, paced: paced)
    entry["modelVersion"] = version
    entry["url"] = server.url("/ota/models/\(digest).mlmodel").absoluteString
    entry["sha256"] = digest
    entry["size"] = size ?? bytes.count
    entry["minimumSDKVersion"] = minimum
    entry["rolloutPercent"] = percent
    entry["salt"] = salt
    entry["status"] = status
    entry["aKeyFromTheFuture"] = true
    return entry
  }

  private func publish(
    revision: Int, paused: Bool = false, _ offers: [[String: Any]], appID: String? = nil
  ) throws {
    var manifest = try toolManifest()
    var flows = try XCTUnwrap(manifest["flows"] as? [String: Any])
    var flow = try XCTUnwrap(flows["onboarding_upsell"] as? [String: Any])
    flow["paused"] = paused
    flow["models"] = offers
    flows["onboarding_upsell"] = flow
    manifest["flows"] = flows
    manifest["revision"] = revision
    if let appID { manifest["appID"] = appID }
    server.route("/ota/acme/models.json", body: try JSONSerialization.data(withJSONObject: manifest))
  }

  private var manifestURL: URL { server.url("/ota/acme/models.json") }

  private func update() async -> ModelUpdateReport {
    await ModelUpdater(
      manifestURL: manifestURL, configuration: configuration, downloadsDirectory: downloads,
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
    try publish(revision: 1, [try offer(74, v74)])
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
    try publish(revision: 2, [try offer(74, v74, percent: 5)])
    _ = await update()
    XCTAssertEqual(files, [])
    XCTAssertEqual(resolved(), 73)
  }

  func testPauseDownloadsNothingNewAndKeepsWhatTheDeviceRuns() async throws {
    try publish(revision: 1, [try offer(74, v74)])
    _ = await update()
    try publish(revision: 2, paused: true, [try offer(74, v74, status: "paused"), try offer(75, v75)])
    let report = await update()
    XCTAssertNil(report.flows["onboarding_upsell"]?.downloaded)
    XCTAssertEqual(report.flows["onboarding_upsell"]?.version, 74)
    XCTAssertEqual(files, ["74.mlmodel"])
    XCTAssertEqual(resolved(), 74)
  }

  func testRollbackDeletesTheRetractedModelAndFallsBackToTheBundledOne() async throws {
    try publish(revision: 1, [try offer(74, v74)])
    _ = await update()
    try publish(revision: 2, [try offer(74, v74, percent: 0, status: "retracted")])
    let report = await update()
    XCTAssertEqual(report.flows["onboarding_upsell"]?.deleted, [74])
    XCTAssertNil(report.flows["onboarding_upsell"]?.version)
    XCTAssertEqual(files, [])
    XCTAssertEqual(resolved(), 73)
  }

  func testACorruptDownloadIsRefusedAndTheModelInUseStays() async throws {
    try publish(revision: 1, [try offer(74, v74)])
    _ = await update()
    // v75's entry names other bytes than the server sends.
    let other = SHA256Digest.hex(of: Data("other".utf8))
    try publish(revision: 2, [try offer(74, v74), try offer(75, v75, sha256: other)])
    let report = await update()
    XCTAssertEqual(
      report.flows["onboarding_upsell"]?.error,
      .model(
        flowName: "onboarding_upsell", modelVersion: 75, .digest(found: SHA256Digest.hex(of: v75), expected: other)))
    XCTAssertEqual(report.flows["onboarding_upsell"]?.version, 74)
    XCTAssertEqual(files, ["74.mlmodel"], "no temporary file left, the model in use kept")
    XCTAssertEqual(resolved(), 74)
  }

  func testAModelTooNewForThisSDKIsNotTaken() async throws {
    try publish(revision: 1, [try offer(74, v74, minimum: "2.5.0")])
    let report = await update()
    XCTAssertNil(report.flows["onboarding_upsell"]?.downloaded)
    XCTAssertEqual(files, [])
    XCTAssertFalse(server.requestedPaths.contains { $0.hasPrefix("/ota/models/") }, "nothing downloaded")
  }

  func testAServerThatIsDownOrAManifestForAnotherAppChangesNothing() async throws {
    try publish(revision: 1, [try offer(74, v74)])
    _ = await update()
    try publish(revision: 2, [], appID: "00000000-0000-0000-0000-000000000000")
    let foreign = await update()
    XCTAssertEqual(foreign.error, .manifestRejected(url: manifestURL, .otherApp))
    XCTAssertEqual(foreign.error?.description, "manifest \(manifestURL.absoluteString): a manifest for another app")
    XCTAssertEqual(files, ["74.mlmodel"])
    server.stop()
    let down = await update()
    guard case .manifestNotFetched(manifestURL, .network) = down.error else {
      return XCTFail(String(describing: down.error))
    }
    XCTAssertEqual(files, ["74.mlmodel"])
    XCTAssertEqual(resolved(), 74)
  }

  /// The manifest the tool published, byte for byte (its URLs on this server): a device in the
  /// offer's 10% takes the model with exactly the published bytes, one outside keeps the
  /// bundled model and downloads nothing.
  func testTheManifestTheToolPublishedIsFollowedAsItIs() async throws {
    let json = PublishedManifest.json.replacingOccurrences(
      of: PublishedManifest.publicURL, with: server.url("").absoluteString)
    server.route("/ota/acme/models.json", body: Data(json.utf8))
    let manifest = try JSONDecoder().decode(ModelManifest.self, from: Data(json.utf8))
    let offer = try XCTUnwrap(manifest.flows["onboarding_upsell"]?.models.first)
    server.route(String(offer.url.dropFirst(server.url("").absoluteString.count)), body: PublishedManifest.model)
    let devices = (0..<1000).map { "device-\($0)" }
    let inside = try XCTUnwrap(
      devices.first { RolloutRule.bucket(salt: offer.salt, installID: $0) < offer.rolloutPercent })
    let outside = try XCTUnwrap(
      devices.first { RolloutRule.bucket(salt: offer.salt, installID: $0) >= offer.rolloutPercent })

    let taken = await ModelUpdater(
      manifestURL: server.url("/ota/acme/models.json"), configuration: configuration, downloadsDirectory: downloads,
      installID: inside, sdkVersion: "2.4.0", timeout: 5
    ).update()
    XCTAssertNil(taken.error)
    XCTAssertEqual(taken.revision, manifest.revision)
    XCTAssertEqual(taken.flows["onboarding_upsell"]?.downloaded, offer.modelVersion)
    XCTAssertEqual(
      try Data(contentsOf: downloads.appendingPathComponent("onboarding_upsell/\(offer.modelVersion).mlmodel")),
      PublishedManifest.model)

    try FileManager.default.removeItem(at: downloads)
    let kept = await ModelUpdater(
      manifestURL: server.url("/ota/acme/models.json"), configuration: configuration, downloadsDirectory: downloads,
      installID: outside, sdkVersion: "2.4.0", timeout: 5
    ).update()
    XCTAssertNil(kept.error)
    XCTAssertNil(kept.flows["onboarding_upsell"]?.version)
    XCTAssertEqual(files, [])
  }

  /// A server sending far more than the manifest's size, with no length announced: the
  /// transfer is cut off once the size is passed, not read to its end and checked after.
  func testADownloadLongerThanTheManifestSaysIsCutOffAsItArrives() async throws {
    try publish(revision: 1, [try offer(74, v74)])
    _ = await update()
    let huge = Data(count: 16 * 1024 * 1024)
    // Never read to the end, its digest does not matter (and would take long in a debug build).
    let digest = String(repeating: "ab", count: 32)
    try publish(
      revision: 2,
      [try offer(74, v74), try offer(75, huge, sha256: digest, size: 1000, announcesLength: false, paced: true)])
    let report = await update()
    XCTAssertEqual(
      report.flows["onboarding_upsell"]?.error,
      .model(flowName: "onboarding_upsell", modelVersion: 75, .tooLarge(limit: 1000)))
    XCTAssertEqual(
      report.flows["onboarding_upsell"]?.error?.description,
      "onboarding_upsell v75: more than 1000 bytes, the most the manifest allows; cut off")
    XCTAssertEqual(report.flows["onboarding_upsell"]?.version, 74)
    XCTAssertEqual(files, ["74.mlmodel"], "no temporary file left, the model in use kept")
    // Paced at 64 KiB every 10 ms, the whole body takes 2.6 s and more: cut off, the server
    // could hand over a small part of it (socket buffers) before the connection closed. Any
    // faster, a busy machine could take long enough to stop that the whole body went out.
    let sent = try XCTUnwrap(
      server.bytesSent("/ota/models/\(digest).mlmodel", within: 30), "the response never ended")
    XCTAssertGreaterThan(sent, 1000, "the transfer began")
    XCTAssertLessThan(sent, huge.count / 2, "the client stopped reading")
  }

  func testADownloadShorterThanTheManifestSaysIsRefused() async throws {
    try publish(revision: 1, [try offer(74, v74)])
    _ = await update()
    try publish(revision: 2, [try offer(74, v74), try offer(75, v75, size: v75.count + 10)])
    let report = await update()
    XCTAssertEqual(
      report.flows["onboarding_upsell"]?.error,
      .model(
        flowName: "onboarding_upsell", modelVersion: 75, .size(found: Int64(v75.count), expected: Int64(v75.count + 10))
      ))
    XCTAssertEqual(
      report.flows["onboarding_upsell"]?.error?.description,
      "onboarding_upsell v75: \(v75.count) bytes, the manifest says \(v75.count + 10)")
    XCTAssertEqual(report.flows["onboarding_upsell"]?.version, 74)
    XCTAssertEqual(files, ["74.mlmodel"])
  }

  func testAManifestLargerThanAnyManifestIsNotRead() async throws {
    publishRaw(Data(count: Int(ModelManifest.maximumManifestSize) + 1))
    let report = await update()
    XCTAssertEqual(
      report.error, .manifestNotFetched(url: manifestURL, .tooLarge(limit: ModelManifest.maximumManifestSize)))
    XCTAssertEqual(
      report.error?.description,
      "manifest \(manifestURL.absoluteString): more than \(ModelManifest.maximumManifestSize) bytes, the most the manifest allows; cut off"
    )
    XCTAssertEqual(files, [])
  }

  func testAManifestThatIsNotAManifestIsReportedAsSuch() async throws {
    publishRaw(Data("<html>not found</html>".utf8))
    let report = await update()
    guard case .manifestNotDecoded(manifestURL, _) = report.error else {
      return XCTFail(String(describing: report.error))
    }
    try publish(revision: 1, [try offer(74, v74, status: "withdrawn")])
    let unknown = await update()
    XCTAssertEqual(
      unknown.error,
      .manifestRejected(url: manifestURL, .unknownStatusOrPercentage(flowName: "onboarding_upsell", modelVersion: 74)))
    XCTAssertEqual(files, [])
  }

  /// The resolver only reads; the updater is what tidies: a broken file where the chosen model
  /// goes is replaced, and downloads it does not choose (outdated ones, broken ones) go.
  func testTheUpdaterTidiesWhatTheResolverLeaves() async throws {
    let folder = downloads.appendingPathComponent("onboarding_upsell", isDirectory: true)
    try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
    try v75.write(to: folder.appendingPathComponent("72.mlmodel"))
    try Data("<html>503</html>".utf8).write(to: folder.appendingPathComponent("74.mlmodel"))
    try Data("<html>503</html>".utf8).write(to: folder.appendingPathComponent("76.mlmodel"))
    XCTAssertEqual(resolved(), 73, "neither the outdated nor the broken files are used")
    XCTAssertEqual(files, ["72.mlmodel", "74.mlmodel", "76.mlmodel"], "nor deleted by resolving")

    try publish(revision: 1, [try offer(74, v74)])
    let report = await update()
    XCTAssertNil(report.flows["onboarding_upsell"]?.error)
    XCTAssertEqual(report.flows["onboarding_upsell"]?.downloaded, 74)
    XCTAssertEqual(report.flows["onboarding_upsell"]?.deleted, [72, 76])
    XCTAssertEqual(files, ["74.mlmodel"])
    XCTAssertEqual(try Data(contentsOf: folder.appendingPathComponent("74.mlmodel")), v74)
    XCTAssertEqual(resolved(), 74)
  }

  func testAPausedFlowDropsOnlyDownloadsNoNewerThanTheBundledModel() async throws {
    try publish(revision: 1, [try offer(74, v74)])
    _ = await update()
    try v75.write(to: downloads.appendingPathComponent("onboarding_upsell/73.mlmodel"))
    try publish(revision: 2, paused: true, [try offer(74, v74, status: "paused")])
    let report = await update()
    XCTAssertEqual(report.flows["onboarding_upsell"]?.deleted, [73])
    XCTAssertEqual(report.flows["onboarding_upsell"]?.version, 74)
    XCTAssertEqual(files, ["74.mlmodel"])
  }

  private func publishRaw(_ body: Data) {
    server.route("/ota/acme/models.json", body: body)
  }
}
