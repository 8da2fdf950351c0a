@testable import ContextSDKCore
import Foundation
import XCTest

/// The updater against a real HTTP server on 127.0.0.1 serving manifests in the format the
/// release tool publishes: `PublishedManifest`, which the tool's tests write from a manifest the
/// tool published, as it is (the legacy unsigned channel), and, signed with a test key as the
/// signed channel's payload, with its fields changed for rollout, pause, rollback, a corrupt
/// or oversized download, a model too new for this SDK, a server that is down. The device's
/// install id is in bucket 9 of the salt used (computed with Python, see RolloutRuleTests), so
/// a 100% offer always reaches it and a 5% one never does.
final class ModelUpdaterTests: DeviceTestCase {
  private let salt = "0123456789abcdef0123456789abcdef"
  let device = "device-42"

  let configuration = CustomerConfiguration(
    appID: "0000000A-0000-4000-8000-00000000000B", bundleIdentifiers: ["com.example.app"], sdkVersion: "2.4.0",
    models: [
      FlowModel(
        flowId: 8362, flowName: "onboarding_upsell", modelVersion: 73, sha256: "", inputNames: ["x"],
        specificationVersion: 4, resourceName: "onboarding_upsell_v73.mlmodel")
    ])

  /// Two distinct small Core ML files.
  let v74 = CoreMLTestModel.bytes(specificationVersion: 4)
  let v75 = CoreMLTestModel.bytes(specificationVersion: 3)

  /// The tool's manifest as plain JSON values, its URLs on this test's server.
  private func toolManifest() throws -> [String: Any] {
    let text = PublishedManifest.json.replacingOccurrences(
      of: PublishedManifest.publicURL, with: server.url("").absoluteString)
    return try XCTUnwrap(JSONSerialization.jsonObject(with: Data(text.utf8)) as? [String: Any])
  }

  /// The tool's model entry with the given facts (every other key as the tool wrote it),
  /// serving `bytes` at its URL.
  func offer(
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

  /// The manifest's payload for the signed channel: the tool's manifest with `offers`, schema
  /// version 2 and an expiry.
  func payload(
    revision: Int, paused: Bool = false, _ offers: [[String: Any]], appID: String? = nil, customer: String? = nil,
    expires: Date = Date().addingTimeInterval(7 * 24 * 3600)
  ) throws -> Data {
    var manifest = try toolManifest()
    var flows = try XCTUnwrap(manifest["flows"] as? [String: Any])
    var flow = try XCTUnwrap(flows["onboarding_upsell"] as? [String: Any])
    flow["paused"] = paused
    flow["models"] = offers
    flows["onboarding_upsell"] = flow
    manifest["flows"] = flows
    manifest["revision"] = revision
    manifest["schemaVersion"] = 2
    manifest["expires"] = Self.timestamp(expires)
    if let appID { manifest["appID"] = appID }
    if let customer { manifest["customer"] = customer }
    return try JSONSerialization.data(withJSONObject: manifest)
  }

  /// Serves the manifest signed by `signers` (the pinned test key by default) at the channel's
  /// URL; returns the envelope.
  @discardableResult
  func publish(
    revision: Int, paused: Bool = false, _ offers: [[String: Any]], appID: String? = nil, customer: String? = nil,
    expires: Date = Date().addingTimeInterval(7 * 24 * 3600), signers: [TestSigner] = [.rfc8032]
  ) throws -> Data {
    let envelope = TestSigner.envelope(
      try payload(revision: revision, paused: paused, offers, appID: appID, customer: customer, expires: expires),
      signedBy: signers)
    publishRaw(envelope)
    return envelope
  }

  private static func timestamp(_ date: Date) -> String {
    let formatter = ISO8601DateFormatter()
    formatter.formatOptions = [.withInternetDateTime]
    return formatter.string(from: date)
  }

  var manifestURL: URL { server.url("/ota/example/manifest.json") }

  /// This launch of the app, as the updater knows it: a test moves to the next launch by
  /// changing it.
  var launch = "launch-1"

  /// The update's settings in this test: its folders, no check interval, short timeouts.
  var settings: ModelUpdateConfiguration {
    ModelUpdateConfiguration(
      modelsDirectory: downloads, stateDirectory: state, minimumCheckInterval: 0, requestTimeout: 5)
  }

  func update(
    at now: Date = Date(), from url: URL? = nil, settings: ModelUpdateConfiguration? = nil
  ) async -> ModelUpdateReport {
    await ModelUpdater(
      channel: .signed(manifestURL: url ?? manifestURL, customer: "example", trustedKeys: [TestSigner.rfc8032.trustedKey]),
      configuration: configuration, installID: device, settings: settings ?? self.settings, sdkVersion: "2.4.0",
      launchID: launch, now: { now }
    ).update()
  }

  /// The flow's folder without the updater's records and without the models it retired (kept
  /// until a later launch, never resolved again: `retiredFiles`).
  var files: [String] {
    folderEntries.filter {
      !$0.hasSuffix(".verified") && !$0.hasSuffix(".failed") && !$0.hasSuffix(".retired")
        && !retiredFiles.contains($0)
    }
  }

  /// The model files the updater retired, still there until a later launch's update.
  var retiredFiles: [String] {
    folderEntries.filter { $0.hasSuffix(".retired") }.map { $0.dropLast(".retired".count) + ".mlmodel" }
  }

  private var folderEntries: [String] {
    let folder = downloads.appendingPathComponent("onboarding_upsell")
    return ((try? FileManager.default.contentsOfDirectory(atPath: folder.path)) ?? []).sorted()
  }

  /// Every file the updater keeps (downloads, records, the revision accepted), with its bytes.
  private func deviceFiles() -> [String: Data] {
    var result: [String: Data] = [:]
    for (name, root) in [("downloads", downloads!), ("state", state!)] {
      guard let walker = FileManager.default.enumerator(atPath: root.path) else { continue }
      while let path = walker.nextObject() as? String {
        let url = root.appendingPathComponent(path)
        var isDirectory: ObjCBool = false
        if FileManager.default.fileExists(atPath: url.path, isDirectory: &isDirectory), !isDirectory.boolValue {
          result["\(name)/\(path)"] = try? Data(contentsOf: url)
        }
      }
    }
    return result
  }

  func resolved() -> Int {
    ModelResolver(sdkVersion: "2.4.0").resolve(
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

  /// What the app records with its outcome events follows the model the device runs: the
  /// download the updater verified while it is offered, the bundled model after a rollback.
  func testDecisionsAreAttributedToTheModelTheDeviceRuns() async throws {
    func attribution() -> Attribution {
      ModelResolver(sdkVersion: "2.4.0").resolve(
        configuration.models[0], bundledModelURL: URL(fileURLWithPath: "/bundled.mlmodel"),
        downloadsDirectory: downloads
      ).attribution
    }
    XCTAssertEqual(attribution().description, "onboarding_upsell@73/bundled")
    try publish(revision: 1, [try offer(74, v74)])
    _ = await update()
    XCTAssertEqual(attribution(), Attribution(flowName: "onboarding_upsell", modelVersion: 74, source: .downloaded))
    XCTAssertEqual(
      attribution().eventProperties, ["flow": "onboarding_upsell", "modelVersion": "74", "modelSource": "downloaded"])
    try publish(revision: 2, [try offer(74, v74, percent: 0, status: "retracted")])
    _ = await update()
    XCTAssertEqual(attribution().description, "onboarding_upsell@73/bundled")
  }

  func testRollbackDeletesTheRetractedModelAndFallsBackToTheBundledOne() async throws {
    try publish(revision: 1, [try offer(74, v74)])
    _ = await update()
    try publish(revision: 2, [try offer(74, v74, percent: 0, status: "retracted")])
    let report = await update()
    XCTAssertEqual(report.flows["onboarding_upsell"]?.retired, [74])
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

  /// The manifest the tool published, byte for byte (its URLs on this server), on the legacy
  /// unsigned channel: a device in the offer's 10% takes the model with exactly the published
  /// bytes, one outside keeps the bundled model and downloads nothing.
  func testTheManifestTheToolPublishedIsFollowedAsItIs() async throws {
    let json = PublishedManifest.json.replacingOccurrences(
      of: PublishedManifest.publicURL, with: server.url("").absoluteString)
    server.route("/ota/example/models.json", body: Data(json.utf8))
    let manifest = try JSONDecoder().decode(ModelManifest.self, from: Data(json.utf8))
    let offer = try XCTUnwrap(manifest.flows["onboarding_upsell"]?.models.first)
    server.route(String(offer.url.dropFirst(server.url("").absoluteString.count)), body: PublishedManifest.model)
    let devices = (0..<1000).map { "device-\($0)" }
    let inside = try XCTUnwrap(
      devices.first { RolloutRule.bucket(salt: offer.salt, installID: $0) < offer.rolloutPercent })
    let outside = try XCTUnwrap(
      devices.first { RolloutRule.bucket(salt: offer.salt, installID: $0) >= offer.rolloutPercent })

    let taken = await ModelUpdater(
      channel: .legacyUnsigned(manifestURL: server.url("/ota/example/models.json")), configuration: configuration,
      installID: inside, settings: settings, sdkVersion: "2.4.0"
    ).update()
    XCTAssertNil(taken.error)
    XCTAssertEqual(taken.revision, manifest.revision)
    XCTAssertEqual(taken.flows["onboarding_upsell"]?.downloaded, offer.modelVersion)
    XCTAssertEqual(
      try Data(contentsOf: downloads.appendingPathComponent("onboarding_upsell/\(offer.modelVersion).mlmodel")),
      PublishedManifest.model)

    try FileManager.default.removeItem(at: downloads)
    let kept = await ModelUpdater(
      channel: .legacyUnsigned(manifestURL: server.url("/ota/example/models.json")), configuration: configuration,
      installID: outside, settings: settings, sdkVersion: "2.4.0"
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
    XCTAssertEqual(report.error, .manifestRejected(url: manifestURL, .notAnEnvelope))
    publishRaw(TestSigner.envelope(Data("<html>not found</html>".utf8), signedBy: [.rfc8032]))
    let signedGarbage = await update()
    guard case .manifestNotDecoded(manifestURL, _) = signedGarbage.error else {
      return XCTFail(String(describing: signedGarbage.error))
    }
    try publish(revision: 1, [try offer(74, v74, percent: 101)])
    let percent = await update()
    XCTAssertEqual(
      percent.error,
      .manifestRejected(url: manifestURL, .rolloutPercentOutOfRange(flowName: "onboarding_upsell", modelVersion: 74)))
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
    XCTAssertEqual(report.flows["onboarding_upsell"]?.retired, [72, 76])
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
    XCTAssertEqual(report.flows["onboarding_upsell"]?.retired, [73])
    XCTAssertEqual(report.flows["onboarding_upsell"]?.version, 74)
    XCTAssertEqual(files, ["74.mlmodel"])
  }

  func publishRaw(_ body: Data) {
    server.route("/ota/example/manifest.json", body: body)
  }
}

/// A build whose customer.json pins the test key, its signed manifest on this test's server.
enum SignedBuild: CustomerBuild {
  private static let lock = NSLock()
  nonisolated(unsafe) private static var manifestURL = ""

  static func serve(at url: URL) {
    lock.lock()
    manifestURL = url.absoluteString
    lock.unlock()
  }

  static var configuration: CustomerConfiguration {
    lock.lock()
    defer { lock.unlock() }
    return CustomerConfiguration(
      appID: "0000000A-0000-4000-8000-00000000000B", bundleIdentifiers: ["com.example.app"], sdkVersion: "2.4.0",
      models: [
        FlowModel(
          flowId: 8362, flowName: "onboarding_upsell", modelVersion: 73, sha256: "", inputNames: ["x"],
          specificationVersion: 4, resourceName: "onboarding_upsell_v73.mlmodel")
      ], modelManifestURL: "http://127.0.0.1:9/ota/example/models.json", customer: "example",
      trustedKeys: [TestSigner.rfc8032.trustedKey], manifestURL: manifestURL)
  }

  static func bundledModelURL(forFlow flowName: String) -> URL? { URL(fileURLWithPath: "/bundled.mlmodel") }
}

/// What a device believes of the signed channel, and what nobody who can only write the bucket
/// or the CDN can make it do. Each refusal leaves the device exactly as it was: its files, its
/// records, the revision it accepted and the model it runs.
extension ModelUpdaterTests {
  /// A build that pins keys follows its signed manifest (not its legacy one, whose server is
  /// down) and keeps the revision it accepted beside its install id.
  func testABuildThatPinsKeysFollowsItsSignedManifest() async throws {
    SignedBuild.serve(at: manifestURL)
    try publish(revision: 3, [try offer(74, v74)])
    let report = await SignedBuild.updateModels(settings)
    XCTAssertNil(report.error)
    XCTAssertEqual(report.revision, 3)
    XCTAssertEqual(
      SignedBuild.resolveModel(forFlow: "onboarding_upsell", downloadsDirectory: downloads)?.attribution.description,
      "onboarding_upsell@74/downloaded")
    XCTAssertEqual(
      try String(contentsOf: state.appendingPathComponent(ModelUpdater.revisionFileName), encoding: .utf8), "3")
    XCTAssertTrue(FileManager.default.fileExists(atPath: state.appendingPathComponent("install-id").path))
    try publish(revision: 4, try hostileOffers(), signers: [.stranger])
    let forged = await SignedBuild.updateModels(settings)
    XCTAssertEqual(forged.error, .manifestRejected(url: manifestURL, .untrustedKeys))
  }

  /// The device runs v74 from revision 5.
  private func acceptV74() async throws {
    try publish(revision: 5, [try offer(74, v74)])
    let report = await update()
    XCTAssertNil(report.error)
    XCTAssertEqual(resolved(), 74)
  }

  /// What an attacker wants: v74 retracted, their v75 on every device.
  private func hostileOffers() throws -> [[String: Any]] {
    [try offer(74, v74, percent: 0, status: "retracted"), try offer(75, v75)]
  }

  /// Updates once and checks it was refused for `expected`, with nothing changed.
  private func assertRefused(
    _ expected: ModelUpdateError, at now: Date = Date(), from url: URL? = nil, file: StaticString = #filePath,
    line: UInt = #line
  ) async {
    let before = deviceFiles()
    let modelRequests = server.requestedPaths.filter { $0.hasPrefix("/ota/models/") }.count
    let report = await update(at: now, from: url)
    XCTAssertEqual(report.error, expected, file: file, line: line)
    XCTAssertEqual(report.flows, [:], file: file, line: line)
    XCTAssertEqual(deviceFiles(), before, "the device keeps exactly what it had", file: file, line: line)
    XCTAssertEqual(resolved(), 74, file: file, line: line)
    XCTAssertEqual(
      server.requestedPaths.filter { $0.hasPrefix("/ota/models/") }.count, modelRequests, "nothing downloaded",
      file: file, line: line)
  }

  func testAManifestSignedByAnUnknownKeyChangesNothing() async throws {
    try await acceptV74()
    try publish(revision: 6, try hostileOffers(), signers: [.stranger])
    await assertRefused(.manifestRejected(url: manifestURL, .untrustedKeys))
  }

  func testAnUnsignedEnvelopeChangesNothing() async throws {
    try await acceptV74()
    try publish(revision: 6, try hostileOffers(), signers: [])
    await assertRefused(.manifestRejected(url: manifestURL, .unsigned))
    // Nor does a plain manifest, as the legacy channel serves it.
    publishRaw(try payload(revision: 6, try hostileOffers()))
    await assertRefused(.manifestRejected(url: manifestURL, .notAnEnvelope))
  }

  func testAPayloadChangedAfterSigningChangesNothing() async throws {
    try await acceptV74()
    let signed = try publish(revision: 6, [try offer(74, v74)])
    var envelope = try XCTUnwrap(try JSONSerialization.jsonObject(with: signed) as? [String: Any])
    envelope["payload"] = try payload(revision: 6, try hostileOffers()).base64EncodedString()
    publishRaw(try JSONSerialization.data(withJSONObject: envelope))
    await assertRefused(.manifestRejected(url: manifestURL, .badSignature))
  }

  /// An expired manifest (a frozen channel) is not followed: the device keeps what it runs.
  func testAnExpiredManifestChangesNothing() async throws {
    try await acceptV74()
    let expiry = Date().addingTimeInterval(3600)
    try publish(revision: 6, try hostileOffers(), expires: expiry)
    let expired = ModelUpdateError.manifestRejected(url: manifestURL, .expired(expires: Self.timestamp(expiry)))
    await assertRefused(expired, at: expiry.addingTimeInterval(ModelManifest.clockSkew + 1))
    await assertRefused(expired, at: expiry.addingTimeInterval(30 * 24 * 3600))
    // Without an expiry of the exact form: refused too.
    var manifest = try XCTUnwrap(
      try JSONSerialization.jsonObject(with: try payload(revision: 6, try hostileOffers())) as? [String: Any])
    manifest["expires"] = "2999-01-01T00:00:00.000Z"
    publishRaw(TestSigner.envelope(try JSONSerialization.data(withJSONObject: manifest), signedBy: [.rfc8032]))
    await assertRefused(.manifestRejected(url: manifestURL, .badExpiry))
  }

  /// After a rollback, the older manifest that still offers the rolled-back model, served
  /// again with its valid signature, does not bring it back.
  func testAReplayedLowerRevisionChangesNothing() async throws {
    try await acceptV74()
    let older = try publish(revision: 5, [try offer(74, v74)])
    let latest = try publish(revision: 6, [try offer(74, v74, percent: 0, status: "retracted")])
    let rollback = await update()
    XCTAssertNil(rollback.error)
    XCTAssertEqual(files, [])
    XCTAssertEqual(
      try String(contentsOf: state.appendingPathComponent(ModelUpdater.revisionFileName), encoding: .utf8), "6")
    publishRaw(older)
    let before = deviceFiles()
    let replay = await update()
    XCTAssertEqual(replay.error, .manifestRejected(url: manifestURL, .revisionRolledBack(found: 5, accepted: 6)))
    XCTAssertEqual(deviceFiles(), before)
    XCTAssertEqual(files, [])
    XCTAssertEqual(resolved(), 73)
    // The same revision again is followed (a device that missed nothing, polling twice).
    publishRaw(latest)
    let again = await update()
    XCTAssertNil(again.error)
  }

  /// Every customer's manifest is signed by the same keys: one made for another customer, valid
  /// as it is, is not followed here.
  func testAnotherCustomersValidManifestChangesNothing() async throws {
    try await acceptV74()
    try publish(revision: 9, try hostileOffers(), customer: "globex")
    await assertRefused(.manifestRejected(url: manifestURL, .otherCustomer))
    try publish(revision: 9, try hostileOffers(), appID: "00000000-0000-0000-0000-000000000000")
    await assertRefused(.manifestRejected(url: manifestURL, .otherApp))
  }

  /// `http://` only to this device itself: a manifest URL to another host is not fetched, and a
  /// signed manifest offering a model over `http://` from another host is refused as a whole.
  func testHTTPToAnotherHostIsNotFetched() async throws {
    try await acceptV74()
    let insecure = try XCTUnwrap(URL(string: "http://example.com/ota/example/manifest.json"))
    await assertRefused(.manifestNotFetched(url: insecure, .insecureURL), from: insecure)
    var model = try offer(75, v75)
    model["url"] = "http://example.com/ota/models/\(SHA256Digest.hex(of: v75)).mlmodel"
    try publish(revision: 6, [model])
    await assertRefused(
      .manifestRejected(url: manifestURL, .notHTTPURL(flowName: "onboarding_upsell", modelVersion: 75)))
  }

  /// Loopback is 127.0.0.0/8, ::1 and localhost, by address, not by a name that starts like one.
  func testOnlyLoopbackAddressesMayUseHTTP() async throws {
    for text in [
      "http://127.0.0.1.example.com/m.json", "http://128.0.0.1/m.json", "http://10.0.0.1/m.json",
      "http://localhost.example.com/m.json", "ftp://127.0.0.1/m.json", "file:///tmp/m.json",
    ] {
      let url = try XCTUnwrap(URL(string: text))
      let report = await update(from: url)
      XCTAssertEqual(report.error, .manifestNotFetched(url: url, .insecureURL), text)
    }
    // Nothing listens on port 1: these are fetched, and fail on the network.
    for text in [
      "http://127.0.0.1:1/m.json", "http://127.3.2.1:1/m.json", "http://[::1]:1/m.json", "http://localhost:1/m.json",
    ] {
      let url = try XCTUnwrap(URL(string: text))
      let report = await update(from: url)
      guard case .manifestNotFetched(_, .network) = report.error else {
        return XCTFail("\(text): \(String(describing: report.error))")
      }
    }
  }

  /// A redirect to another origin is not followed, for the manifest or a model; one within the
  /// origin is.
  func testARedirectToAnotherHostIsNotFollowed() async throws {
    try await acceptV74()
    let elsewhere = server.otherOriginURL("/ota/example/elsewhere.json")
    server.route(
      "/ota/example/elsewhere.json",
      body: TestSigner.envelope(try payload(revision: 6, try hostileOffers()), signedBy: [.rfc8032]))
    server.redirect("/ota/example/manifest.json", to: elsewhere.absoluteString)
    await assertRefused(.manifestNotFetched(url: manifestURL, .redirectRefused(to: elsewhere.absoluteString)))
    XCTAssertFalse(server.requestedPaths.contains("/ota/example/elsewhere.json"))

    // The model's URL redirects to another origin: not downloaded, v74 kept.
    var model = try offer(75, v75)
    server.redirect("/ota/redirected.mlmodel", to: server.otherOriginURL("/ota/models/x.mlmodel").absoluteString)
    model["url"] = server.url("/ota/redirected.mlmodel").absoluteString
    try publish(revision: 6, [try offer(74, v74), model])
    let report = await update()
    XCTAssertEqual(
      report.flows["onboarding_upsell"]?.error,
      .model(
        flowName: "onboarding_upsell", modelVersion: 75,
        .redirectRefused(to: server.otherOriginURL("/ota/models/x.mlmodel").absoluteString)))
    XCTAssertEqual(files, ["74.mlmodel"])
    XCTAssertEqual(resolved(), 74)

    // Within the origin: followed.
    server.route("/ota/example/manifest-7.json", body: try publish(revision: 7, [try offer(74, v74)]))
    server.redirect("/ota/example/manifest.json", to: server.url("/ota/example/manifest-7.json").absoluteString)
    let followed = await update()
    XCTAssertNil(followed.error)
    XCTAssertEqual(followed.revision, 7)
  }

  /// A model file put into the folder by something other than the updater is not run, nor one
  /// whose bytes changed after it was verified.
  func testADroppedInModelIsNotRun() async throws {
    try await acceptV74()
    let folder = downloads.appendingPathComponent("onboarding_upsell")
    try v75.write(to: folder.appendingPathComponent("80.mlmodel"))
    XCTAssertEqual(resolved(), 74)
    try v75.write(to: folder.appendingPathComponent("74.mlmodel"))
    XCTAssertEqual(resolved(), 73, "v74's bytes are not the ones verified")
    // The next update puts the published bytes back and drops the stranger.
    let report = await update()
    XCTAssertEqual(report.flows["onboarding_upsell"]?.downloaded, 74)
    XCTAssertEqual(report.flows["onboarding_upsell"]?.retired, [80])
    XCTAssertEqual(resolved(), 74)
  }

  /// Temporary downloads left by an app stopped mid-transfer go at the next update; a recent
  /// one (another update's, running now) stays.
  func testHalfDownloadedTemporaryFilesAreSwept() async throws {
    try await acceptV74()
    let folder = downloads.appendingPathComponent("onboarding_upsell")
    let stale = folder.appendingPathComponent(".\(UUID().uuidString).download")
    let recent = folder.appendingPathComponent(".\(UUID().uuidString).download")
    try Data(count: 100).write(to: stale)
    try Data(count: 100).write(to: recent)
    try FileManager.default.setAttributes(
      [.modificationDate: Date().addingTimeInterval(-3600)], ofItemAtPath: stale.path)
    _ = await update()
    XCTAssertEqual(files, [recent.lastPathComponent, "74.mlmodel"].sorted())
    XCTAssertEqual(resolved(), 74)
  }

  /// A model whose bytes fail their digest is not fetched on every update: once, then not
  /// again for a day.
  func testADownloadThatFailedItsDigestIsNotFetchedAgainForADay() async throws {
    try await acceptV74()
    let other = SHA256Digest.hex(of: Data("other".utf8))
    try publish(revision: 6, [try offer(74, v74), try offer(75, v75, sha256: other)])
    let path = "/ota/models/\(other).mlmodel"
    let start = Date()
    let first = await update(at: start)
    XCTAssertEqual(
      first.flows["onboarding_upsell"]?.error,
      .model(
        flowName: "onboarding_upsell", modelVersion: 75, .digest(found: SHA256Digest.hex(of: v75), expected: other)))
    let later = await update(at: start.addingTimeInterval(3600))
    XCTAssertEqual(
      later.flows["onboarding_upsell"]?.error,
      .model(
        flowName: "onboarding_upsell", modelVersion: 75,
        .backingOff(until: Self.timestamp(Date(timeIntervalSince1970: start.timeIntervalSince1970 + 24 * 3600)))))
    XCTAssertEqual(server.requestedPaths.filter { $0 == path }.count, 1)
    XCTAssertEqual(files, ["74.mlmodel"])
    XCTAssertEqual(resolved(), 74)
    _ = await update(at: start.addingTimeInterval(25 * 3600))
    XCTAssertEqual(server.requestedPaths.filter { $0 == path }.count, 2, "tried again after a day")
  }
}
