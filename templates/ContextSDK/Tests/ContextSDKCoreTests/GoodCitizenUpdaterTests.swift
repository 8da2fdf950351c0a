import Foundation
import XCTest

@testable import ContextSDKCore

/// What the updater costs the device and the app: transfers that stop when the app cancels
/// them, one session, conditional requests, a least interval between checks, no Low Data Mode,
/// models in a purgeable folder and the state in one that is kept (out of backups), and a model
/// the app may be running never deleted under it.
extension ModelUpdaterTests {
  func testACancelledUpdateStopsItsDownloadAtOnce() async throws {
    // 16 MiB sent 64 KiB every 10 ms: about 2.6 seconds were it read to the end.
    let large = CoreMLTestModel.bytes(specificationVersion: 4) + Data(count: 16 * 1024 * 1024)
    let entry = try offer(74, large, paced: true)
    try publish(revision: 1, [entry])
    let modelPath = String((entry["url"] as? String ?? "").dropFirst(server.url("").absoluteString.count))
    let updater = ModelUpdater(
      channel: .signed(
        manifestURL: manifestURL, customer: "example", trustedKeys: [TestSigner.rfc8032.trustedKey]),
      configuration: configuration, installID: device, settings: settings, sdkVersion: "2.4.0",
      launchID: launch)
    let update = Task { await updater.update() }
    for _ in 0..<500 where !server.requestedPaths.contains(modelPath) {
      try await Task.sleep(nanoseconds: 10_000_000)
    }
    XCTAssertTrue(server.requestedPaths.contains(modelPath), "the download started")
    let cancelled = Date()
    update.cancel()
    let report = await update.value
    let took = Date().timeIntervalSince(cancelled)
    XCTAssertLessThan(took, 1.5, "the update returned \(took) s after the cancellation")
    XCTAssertEqual(
      report.flows["onboarding_upsell"]?.error,
      .model(flowName: "onboarding_upsell", modelVersion: 74, .cancelled))
    XCTAssertLessThan(
      try XCTUnwrap(server.bytesSent(modelPath, within: 5)), large.count, "the transfer stopped")
    XCTAssertEqual(files, [], "no model and no temporary file")
    XCTAssertEqual(SharedSession.shared.transfersInFlight, 0)
    // The interrupted update does not count as a check: the next one fetches at once (a
    // revision offering the small model, so the test does not wait for the paced one).
    try publish(revision: 2, [try offer(74, v74)])
    let again = await self.update(settings: settings(interval: 3600))
    XCTAssertEqual(again.check, .fetched)
  }

  func testEveryTransferGoesThroughTheOneSharedSession() async throws {
    try publish(revision: 1, [try offer(74, v74)])
    let session = SharedSession.session
    for _ in 0..<3 { _ = await update() }
    XCTAssertTrue(SharedSession.session === session)
    XCTAssertEqual(SharedSession.shared.transfersInFlight, 0, "every transfer left the session's table")
    XCTAssertEqual(resolved(), 74)
  }

  func testTheManifestIsFetchedAgainOnlyWhenItChanged() async throws {
    let first = TestSigner.envelope(try payload(revision: 1, [try offer(74, v74)]), signedBy: [.rfc8032])
    server.route("/ota/example/manifest.json", body: first, entityTag: "\"r1\"")
    let fetched = await update()
    XCTAssertEqual(fetched.check, .fetched)
    let unchanged = await update()
    XCTAssertEqual(unchanged.check, .notModified)
    XCTAssertNil(unchanged.error)
    XCTAssertEqual(unchanged.revision, 1)
    XCTAssertEqual(server.ifNoneMatchValues.filter { $0 != nil }, ["\"r1\""])
    XCTAssertEqual(resolved(), 74)

    // A cached manifest changed on the device is checked like one from the network.
    let cacheFile = downloads.appendingPathComponent(ManifestCache.fileName)
    var cache = try JSONDecoder().decode(ManifestCache.self, from: Data(contentsOf: cacheFile))
    cache.manifest = Data("{}".utf8)
    try JSONEncoder().encode(cache).write(to: cacheFile)
    let tampered = await update()
    XCTAssertEqual(tampered.error, .manifestRejected(url: manifestURL, .notAnEnvelope))
    XCTAssertEqual(resolved(), 74, "the device keeps what it runs")

    let second = TestSigner.envelope(try payload(revision: 2, [try offer(75, v75)]), signedBy: [.rfc8032])
    server.route("/ota/example/manifest.json", body: second, entityTag: "\"r2\"")
    let changed = await update()
    XCTAssertEqual(changed.check, .fetched)
    XCTAssertEqual(changed.revision, 2)
    XCTAssertEqual(resolved(), 75)
  }

  func testChecksComeNoOftenerThanTheMinimumInterval() async throws {
    try publish(revision: 1, [try offer(74, v74)])
    let start = Date()
    let hourly = settings(interval: 3600)
    let first = await update(at: start, settings: hourly)
    XCTAssertEqual(first.check, .fetched)
    let requests = server.requestedPaths.count
    let soon = await update(at: start.addingTimeInterval(60), settings: hourly)
    XCTAssertEqual(
      soon.check, .notDue(until: Date(timeIntervalSince1970: start.timeIntervalSince1970 + 3600)))
    XCTAssertEqual(server.requestedPaths.count, requests, "no request")
    let due = await update(at: start.addingTimeInterval(3601), settings: hourly)
    XCTAssertEqual(due.check, .fetched)
    // A clock moved back is no reason to wait.
    let movedBack = await update(at: start.addingTimeInterval(-600), settings: hourly)
    XCTAssertEqual(movedBack.check, .fetched)
  }

  func testNothingIsDownloadedInLowDataModeAndCellularIsTheAppsChoice() {
    let policy = ModelUpdateConfiguration().transferPolicy
    XCTAssertFalse(policy.allowsConstrainedNetworkAccess)
    XCTAssertTrue(policy.allowsExpensiveNetworkAccess)
    let wifiOnly = ModelUpdateConfiguration(allowsExpensiveNetworkAccess: false).transferPolicy
    XCTAssertFalse(wifiOnly.allowsExpensiveNetworkAccess)
    XCTAssertFalse(wifiOnly.allowsConstrainedNetworkAccess)
  }

  func testModelsGoToCachesAndTheStateStaysOutOfBackups() async throws {
    XCTAssertTrue(ModelUpdateConfiguration.defaultModelsDirectory.path.hasSuffix("/ContextSDK/Models"))
    XCTAssertNotEqual(
      ModelUpdateConfiguration.defaultModelsDirectory.deletingLastPathComponent(),
      ModelUpdateConfiguration.defaultStateDirectory)
    let group = ModelUpdateConfiguration.inContainer(URL(fileURLWithPath: "/group"))
    XCTAssertEqual(group.modelsDirectory.path, "/group/Library/Caches/ContextSDK/Models")
    XCTAssertEqual(group.stateDirectory.path, "/group/Library/Application Support/ContextSDK")

    SignedBuild.serve(at: manifestURL)
    try publish(revision: 1, [try offer(74, v74)])
    let excluded = ExcludedFolders()
    let report = await SignedBuild.updateModels(settings, backup: BackupExclusion { excluded.add($0) })
    XCTAssertNil(report.error)
    XCTAssertEqual(excluded.urls, [state])
    for name in ["install-id", ModelUpdater.revisionFileName, ModelUpdater.payloadFileName] {
      XCTAssertTrue(FileManager.default.fileExists(atPath: state.appendingPathComponent(name).path), name)
      XCTAssertFalse(
        FileManager.default.fileExists(atPath: downloads.appendingPathComponent(name).path), name)
    }
    XCTAssertEqual(files, ["74.mlmodel"])
  }

  func testARetiredModelIsKeptUntilTheNextLaunchButNeverResolvedAgain() async throws {
    try publish(revision: 1, [try offer(74, v74)])
    _ = await update()
    XCTAssertEqual(resolved(), 74)
    try publish(revision: 2, [try offer(74, v74, percent: 0, status: "retracted")])
    let report = await update()
    XCTAssertEqual(report.flows["onboarding_upsell"]?.retired, [74])
    XCTAssertEqual(resolved(), 73, "never resolved again")
    XCTAssertEqual(retiredFiles, ["74.mlmodel"], "the app may still run it")
    _ = await update()
    XCTAssertEqual(retiredFiles, ["74.mlmodel"], "kept for the rest of this launch")
    launch = "launch-2"
    let later = await update(from: server.url("/nothing-here"))
    XCTAssertNotNil(later.error, "deleted whatever the manifest's fate")
    XCTAssertEqual(retiredFiles + files, [])
  }

  func testDownloadsOfFlowsThatLeftTheManifestOrTheBuildAreRemoved() async throws {
    try publish(revision: 1, [try offer(74, v74)])
    _ = await update()
    let gone = downloads.appendingPathComponent("flow_of_an_older_build", isDirectory: true)
    try FileManager.default.createDirectory(at: gone, withIntermediateDirectories: true)
    try v75.write(to: gone.appendingPathComponent("5.mlmodel"))
    try Data("the app's".utf8).write(to: gone.appendingPathComponent("notes.txt"))

    var manifest = try XCTUnwrap(
      JSONSerialization.jsonObject(with: try payload(revision: 2, [])) as? [String: Any])
    manifest["flows"] = [String: Any]()
    server.route(
      "/ota/example/manifest.json",
      body: TestSigner.envelope(try JSONSerialization.data(withJSONObject: manifest), signedBy: [.rfc8032]))
    let report = await update()
    XCTAssertNil(report.error)
    XCTAssertEqual(report.flows["onboarding_upsell"]?.retired, [74])
    XCTAssertEqual(resolved(), 73)
    XCTAssertEqual(
      try FileManager.default.contentsOfDirectory(atPath: gone.path), ["notes.txt"],
      "a flow this build lacks: its models go, nothing else")
    launch = "launch-2"
    _ = await update()
    XCTAssertEqual(retiredFiles + files, [])
  }

  func testAnEntryWithAStatusThisSDKDoesNotKnowIsNotOffered() async throws {
    try publish(revision: 1, [try offer(74, v74), try offer(75, v75, status: "withdrawn")])
    let report = await update()
    XCTAssertNil(report.error, "the manifest is followed")
    XCTAssertEqual(report.flows["onboarding_upsell"]?.version, 74)
    XCTAssertEqual(resolved(), 74)
  }

  func settings(interval: TimeInterval) -> ModelUpdateConfiguration {
    var settings = self.settings
    settings.minimumCheckInterval = interval
    return settings
  }
}

/// The folders an update excluded from backups.
private final class ExcludedFolders: @unchecked Sendable {
  // @unchecked: `excluded` is touched only while holding `lock`.
  private let lock = NSLock()
  private var excluded: [URL] = []

  func add(_ url: URL) {
    lock.lock()
    excluded.append(url)
    lock.unlock()
  }

  var urls: [URL] {
    lock.lock()
    defer { lock.unlock() }
    return excluded
  }
}
