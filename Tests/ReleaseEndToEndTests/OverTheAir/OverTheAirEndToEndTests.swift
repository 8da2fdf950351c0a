import Foundation
import ReleaseCLITestSupport
import ReleaseEvaluation
import ReleaseSigning
import ReleaseSystem
import ReleaseTestSupport
import XCTest

/// Issue 10's proof: a release published to a directory served over HTTP on 127.0.0.1, a
/// challenger rolled out to 10% and published over the air, and the real SDK of the release's
/// archive updating 200 devices against it (through Scripts/ota-devices, as the README's
/// walkthrough does): the devices the device rule picks — computed here
/// independently, with the tool's libcrypto SHA-256 — and only those take the challenger, with
/// exactly the published bytes; after a rollback every device is back on the bundled model and
/// the challenger's file is gone at their next launch.
final class OverTheAirEndToEndTests: XCTestCase {
  override class func tearDown() {
    try? FileManager.default.removeItem(at: probeWork)
    super.tearDown()
  }

  /// One `--work` directory for Scripts/ota-devices across the class's tests (they run one
  /// after another): the probe is built once, and each test's package (the same Swift, its own
  /// customer.json) is an incremental build of it. Each test's devices keep their downloads in
  /// its own workspace.
  static let probeWork = FileManager.default.temporaryDirectory.appendingPathComponent(
    "ota-devices-\(UUID().uuidString)")

  static let manifest = EndToEndManifests.acme
  /// The devices run through the SDK. Their checks are exact (each device against the rule
  /// computed here, the summary's counts), so they hold for any number of devices; 200 at 10%
  /// are about 20 challengers. The directory test runs them all.
  static let devices = 200
  /// The devices of the other tests (the bucket's, the judged and the attacked channel's): with
  /// the fixed salt the rule picks 5 of install-0 … install-59 (each test asserts some, not all),
  /// and every device is one more request through python, moto and the signing proxy.
  static let fewerDevices = 60
  /// The salt every test's rollout is given in place of the drawn one (rollouts.json is a
  /// committed input), so the devices the rule picks are the same on every run.
  static let fixedSalt = "00000000000000000000000000000001"
  /// The install ids the device rule's share is measured on (in process, not through the
  /// SDK): with the fixed salt, about 10%, within 8–12%.
  static let ruleSample = 2_000

  /// acme released signed into `published/`, served over HTTP on 127.0.0.1, with a challenger
  /// (v74) rolled out to 10% and published over the air. The caller shuts the server down.
  private struct ServedChallenger {
    let workspace: Workspace
    let published: URL
    let server: StaticHTTPServer
    /// `--publish` and `--public-url` of every publishing run.
    let destination: [String]
    /// The environment that signs (`RELEASE_SIGNING_KEY`).
    let signer: [String: String]

    init(_ test: OverTheAirEndToEndTests) throws {
      workspace = try Workspace(manifest: OverTheAirEndToEndTests.manifest)
      published = workspace.file("published")
      try FileManager.default.createDirectory(at: published, withIntermediateDirectories: true)
      server = try StaticHTTPServer(directory: published)
      destination = ["--publish", "dir:published", "--public-url", server.baseURL]
      signer = try workspace.trustSigningKey()
      try GitFixture.commitAll(workspace.root)
      try test.release(workspace, destination, environment: signer)
      test.run(workspace, ["rollout", "acme", "onboarding_upsell", "74", "--percent", "10"])
      try OverTheAirEndToEndTests.fixSalt(workspace)
      test.run(workspace, ["ota", "publish"] + destination, environment: signer)
    }
  }

  /// Replaces the salt `release rollout` drew in rollouts.json with `fixedSalt`.
  static func fixSalt(_ workspace: Workspace) throws {
    let rollouts = workspace.file("rollouts.json")
    let drawn = try XCTUnwrap(
      try String(contentsOf: rollouts, encoding: .utf8).firstMatch(of: /"salt" : "([0-9a-f]+)"/)?.1)
    try String(contentsOf: rollouts, encoding: .utf8)
      .replacingOccurrences(of: String(drawn), with: fixedSalt)
      .write(to: rollouts, atomically: true, encoding: .utf8)
  }

  @discardableResult
  fileprivate func run(
    _ workspace: Workspace, _ arguments: [String], environment: [String: String] = [:],
    file: StaticString = #filePath, line: UInt = #line
  )
    -> Workspace.Run
  {
    let result = workspace.run(arguments, environment: environment)
    XCTAssertEqual(result.exitCode, 0, "\(arguments): \(result.allOutput)", file: file, line: line)
    return result
  }

  /// `release all --publish …` of the workspace, made without compiling: the devices' probe
  /// builds the released package for real (as the app that depends on it would), so the
  /// release run's own build of it would show nothing more.
  fileprivate func release(
    _ workspace: Workspace, _ destination: [String], environment: [String: String],
    file: StaticString = #filePath, line: UInt = #line
  ) throws {
    let result = try workspace.runWithoutCompiling(
      ["all", "--skip-tests", "--allow-dirty"] + destination, environment: environment)
    XCTAssertEqual(result.exitCode, 0, result.allOutput, file: file, line: line)
  }

  /// `Scripts/ota-devices` (the README's walkthrough) for every device: it builds its probe
  /// against the customer's package in the workspace's dist/ and runs the SDK's updater as
  /// each device. Device → (version or "bundled", SHA-256 of the file in use), from its
  /// per-device lines; and its summary lines.
  private func devices(
    _ workspace: Workspace, downloads: URL, count: Int
  ) throws
    -> (
      devices: [String: (version: String, sha256: String)], summary: [String]
    )
  {
    let result = try otaDevices(workspace, downloads: downloads, count: count)
    XCTAssertEqual(result.exitCode, 0, result.standardOutput.suffix(2000) + result.standardError)
    var devices: [String: (String, String)] = [:]
    var summary: [String] = []
    for line in result.standardOutput.split(separator: "\n").map(String.init) {
      guard line.hasPrefix("install-") else {
        summary.append(line)
        continue
      }
      let fields = line.split(separator: " ").map(String.init)
      XCTAssertEqual(fields.count, 4, line)
      XCTAssertNotEqual(fields[1], "error", line)
      if fields.count == 4 { devices[fields[0]] = (fields[2], fields[3]) }
    }
    XCTAssertEqual(devices.count, count)
    return (devices, summary)
  }

  /// `Scripts/ota-devices acme --list` for `count` devices, with the class's probe build and
  /// the test's own downloads folder.
  private func otaDevices(_ workspace: Workspace, downloads: URL, count: Int) throws -> ProcessResult {
    try SystemProcessRunner().run(
      ProcessInvocation(
        RepositoryRoot.url.appendingPathComponent("Scripts/ota-devices").path,
        [
          "acme", "--devices", String(count), "--list", "--work", Self.probeWork.path, "--downloads",
          downloads.path,
        ], in: workspace.root, timeLimit: 900))
  }

  /// `Scripts/ota-devices` against a manifest every device must refuse: it exits 1, each device
  /// reports why on its line, and keeps what it had. The refusals, and the install ids whose
  /// downloads folder holds `flow`'s `version` afterwards (read from disk, not from the tool).
  private func refusingDevices(
    _ workspace: Workspace, downloads: URL, count: Int, flow: String = "onboarding_upsell",
    version: Int = 74
  ) throws -> (refusals: [String], holding: Set<String>) {
    let result = try otaDevices(workspace, downloads: downloads, count: count)
    XCTAssertEqual(result.exitCode, 1, result.standardOutput.suffix(2000) + result.standardError)
    let refusals = result.standardOutput.split(separator: "\n").map(String.init).filter {
      $0.hasPrefix("install-") && $0.split(separator: " ").dropFirst().first == "error"
    }
    let holding = Set(
      (0..<count).map { "install-\($0)" }.filter { device in
        FileManager.default.fileExists(
          atPath: downloads.appendingPathComponent("\(device)/\(flow)/\(version).mlmodel").path)
      })
    return (refusals, holding)
  }

  func testAChallengerAt10PercentReachesExactlyItsDevicesAndARollbackTakesItBack() throws {
    let workspace = try Workspace(manifest: Self.manifest)
    let published = workspace.file("published")
    try FileManager.default.createDirectory(at: published, withIntermediateDirectories: true)
    let server = try StaticHTTPServer(directory: published)
    defer { server.shutDown() }
    try assertAChallengerReachesItsDevicesAndARollbackTakesItBack(
      workspace, devices: Self.devices,
      destination: ["--publish", "dir:published", "--public-url", server.baseURL],
      environment: try workspace.trustSigningKey()
    ) { key in try Data(contentsOf: published.appendingPathComponent(key)) }
  }

  /// Issue 20's proof: a challenger at 10%, a worse outcome export (seeded simulation) judged
  /// by `ota evaluate --apply --publish`, and every device back on the bundled model.
  func testAWorseChallengerJudgedByItsOutcomesIsRolledBackOnEveryDevice() throws {
    let served = try ServedChallenger(self)
    defer { served.server.shutDown() }
    let (workspace, destination, signer) = (served.workspace, served.destination, served.signer)
    let downloads = workspace.file("ota-devices/devices")
    let count = Self.fewerDevices
    let (before, _) = try devices(workspace, downloads: downloads, count: count)
    XCTAssertTrue(before.values.contains { $0.version == "74" }, "some devices took the challenger")

    // Fourteen days up to today (the rollout's `since` is today: --since takes the whole export).
    let start = OutcomeDate(utcDayOf: Date()).adding(days: -13)
    try OutcomesSimulation(challengerRate: 0.04, start: start, seed: 7).csv()
      .write(to: workspace.file("outcomes.csv"), atomically: true, encoding: .utf8)
    let evaluation = run(
      workspace,
      ["ota", "evaluate", "--outcomes", "outcomes.csv", "--since", start.description, "--apply"]
        + destination,
      environment: signer)
    XCTAssertTrue(evaluation.standardOutput.contains("  decision     rollback"), evaluation.allOutput)
    let (after, summary) = try devices(workspace, downloads: downloads, count: count)
    let everyone = String(format: "%d of %d devices (%.1f%%)", count, count, 100.0)
    XCTAssertEqual(
      summary, ["onboarding_upsell: \(everyone) on the bundled model", "model files on the devices: 0"])
    XCTAssertTrue(after.values.allSatisfy { $0.version == "bundled" })
  }

  /// Issue 19's proof, on the signed channel: a pointer forged with another key moves no
  /// device, and after a rollback the older signed revision served as the pointer (a replay)
  /// puts the rolled-back model back on none.
  func testAForgedOrReplayedSignedManifestMovesNoDevice() throws {
    let count = Self.fewerDevices
    let served = try ServedChallenger(self)
    defer { served.server.shutDown() }
    let (workspace, published, destination, signer) = (
      served.workspace, served.published, served.destination, served.signer
    )
    let state = try ReleaseStateFile.channels(workspace)
    let channel = try XCTUnwrap(state["acme"])
    let pointer = published.appendingPathComponent("ota/\(channel)/manifest.json")
    // The release published revision 1 (nothing offered), the rollout revision 2.
    let genuine = try Data(contentsOf: pointer)
    XCTAssertEqual(
      genuine, try Data(contentsOf: published.appendingPathComponent("ota/\(channel)/manifest-2.json")))

    let downloads = workspace.file("ota-devices/devices")
    let (rolledOut, _) = try devices(workspace, downloads: downloads, count: count)
    let challengers = Set(rolledOut.filter { $0.value.version == "74" }.keys)
    XCTAssertFalse(challengers.isEmpty, "some devices took the challenger")
    XCTAssertLessThan(challengers.count, count)

    // The same manifest offering v74 to every device, signed by a key no package pins.
    let envelope = try jsonObject(genuine, "manifest.json")
    XCTAssertEqual(
      try jsonObject(
        try XCTUnwrap(Data(base64Encoded: try XCTUnwrap(envelope["payload"] as? String))), "payload")[
          "revision"]
        as? Int, 2)
    var payload = try jsonObject(
      try XCTUnwrap(Data(base64Encoded: try XCTUnwrap(envelope["payload"] as? String))), "payload")
    var flows = try XCTUnwrap(payload["flows"] as? [String: Any])
    var upsell = try XCTUnwrap(flows["onboarding_upsell"] as? [String: Any])
    var models = try XCTUnwrap(upsell["models"] as? [[String: Any]])
    models[0]["rolloutPercent"] = 100
    upsell["models"] = models
    flows["onboarding_upsell"] = upsell
    payload["flows"] = flows
    payload["revision"] = 99
    let forger = try SigningKey.generate()
    let forged = try DSSEEnvelope.sign(
      payload: try JSONSerialization.data(withJSONObject: payload, options: [.sortedKeys]),
      payloadType: "application/vnd.contextsdk.ota-manifest+json", with: [forger])
    try forged.jsonData().write(to: pointer)
    let forgery = try refusingDevices(workspace, downloads: downloads, count: count)
    XCTAssertEqual(forgery.refusals.count, count, "every device refused the forgery")
    XCTAssertEqual(forgery.holding, challengers, "the forgery moved no device")

    // Back to the genuine pointer; roll back and publish: every device on the bundled model.
    try genuine.write(to: pointer)
    run(workspace, ["rollback", "acme", "onboarding_upsell", "74"])
    run(workspace, ["ota", "publish"] + destination, environment: signer)
    XCTAssertNotEqual(try Data(contentsOf: pointer), genuine)
    let (rolledBack, _) = try devices(workspace, downloads: downloads, count: count)
    XCTAssertTrue(rolledBack.values.allSatisfy { $0.version == "bundled" })

    // The older revision, validly signed and not expired, replayed as the pointer.
    try genuine.write(to: pointer)
    let replay = try refusingDevices(workspace, downloads: downloads, count: count)
    XCTAssertEqual(replay.refusals.count, count, "every device refused the replay")
    XCTAssertEqual(replay.holding, [], "the rolled-back model is back on no device")
    print(
      "OverTheAirEndToEndTests: \(challengers.count) of \(count) devices on the challenger; forged pointer: \(forgery.refusals.count) refusals; replayed revision: \(replay.refusals.count) refusals, first: \(replay.refusals.first ?? "-")"
    )
  }

  /// The same against moto_server with signatures checked: the release and the manifests are
  /// published to a bucket, and the devices read it through a "CDN" that signs every request
  /// to moto (Tests/Fixtures/Network/signing_proxy.py), as a CDN with origin access does.
  func testTheSameThroughABucketWithSignaturesChecked() throws {
    let moto = try SharedMoto.shared.moto()
    let bucket = try moto.makeBucket()
    let proxy = try SigningProxy(moto: moto, bucket: bucket, prefix: "sdk")
    defer { proxy.shutDown() }
    let workspace = try Workspace(manifest: Self.manifest)
    try assertAChallengerReachesItsDevicesAndARollbackTakesItBack(
      workspace, devices: Self.fewerDevices,
      destination: [
        "--publish", "s3://\(bucket)/sdk", "--s3-endpoint", moto.endpoint, "--public-url", proxy.baseURL,
      ], environment: moto.credentials.merging(try workspace.trustSigningKey()) { $1 }
    ) { key in try moto.getObject(bucket, "sdk/" + key).data }
  }

  /// Publishes a release with `destination`, rolls out a challenger to 10% and publishes it
  /// over the air, runs `count` devices, rolls back, publishes, runs them again. `read` gives
  /// the bytes of a published key, read back from the destination, not from the tool.
  private func assertAChallengerReachesItsDevicesAndARollbackTakesItBack(
    _ workspace: Workspace, devices count: Int, destination: [String], environment: [String: String],
    read: (String) throws -> Data
  ) throws {
    try GitFixture.commitAll(workspace.root)
    try release(workspace, destination, environment: environment)
    run(workspace, ["rollout", "acme", "onboarding_upsell", "74", "--percent", "10"])
    // The rollout drew a random salt; a fixed one makes the share of devices the same on every
    // run of this test.
    try Self.fixSalt(workspace)
    run(workspace, ["ota", "publish"] + destination, environment: environment)

    // What was published, read back from the destination (not from the tool): the signed
    // pointer's payload (acme's only package pins keys, so it has no legacy manifest).
    let channel = try XCTUnwrap(try ReleaseStateFile.channels(workspace)["acme"])
    let envelope = try jsonObject(try read("ota/\(channel)/manifest.json"), "manifest.json")
    let manifest = try jsonObject(
      try XCTUnwrap(Data(base64Encoded: try XCTUnwrap(envelope["payload"] as? String))), "payload")
    XCTAssertFalse(
      FileManager.default.fileExists(atPath: workspace.file("published/ota/acme/models.json").path),
      "no legacy manifest")
    let flows = try XCTUnwrap(manifest["flows"] as? [String: Any])
    let upsell = try XCTUnwrap(flows["onboarding_upsell"] as? [String: Any])
    let offer = try XCTUnwrap((upsell["models"] as? [[String: Any]])?.first)
    let salt = try XCTUnwrap(offer["salt"] as? String)
    let challengerSHA = try XCTUnwrap(offer["sha256"] as? String)
    XCTAssertEqual(SHA256Digest.hex(of: try read("ota/models/\(challengerSHA).mlmodel")), challengerSHA)
    let bundledSHA = try SHA256Digest.hex(ofFileAt: workspace.file("models/onboarding_upsell/73.mlmodel"))

    let root = workspace.file("ota-devices/devices")

    // The device rule, computed independently of the SDK.
    func bucket(_ installID: String) -> Int {
      Int(UInt32(SHA256Digest.hex(of: Data("\(salt):\(installID)".utf8)).prefix(8), radix: 16)! % 100)
    }
    let sample = (0..<Self.ruleSample).map { "install-\($0)" }.filter { bucket($0) < 10 }
    let picked = Double(sample.count) / Double(Self.ruleSample)
    XCTAssertTrue((0.08...0.12).contains(picked), "the rule itself picks \(picked * 100)%")
    let chosen = Set((0..<count).map { "install-\($0)" }.filter { bucket($0) < 10 })
    XCTAssertFalse(chosen.isEmpty, "the rule picks some of the devices")
    XCTAssertLessThan(chosen.count, count, "the rule leaves some devices out")

    let (rolledOut, summary) = try devices(workspace, downloads: root, count: count)
    let challengers = Set(rolledOut.filter { $0.value.version == "74" }.keys)
    XCTAssertEqual(challengers, chosen, "exactly the devices the rule picks take the challenger")
    for (device, state) in rolledOut {
      XCTAssertEqual(state.sha256, chosen.contains(device) ? challengerSHA : bundledSHA, device)
      if !chosen.contains(device) { XCTAssertEqual(state.version, "bundled", device) }
    }
    let share = { (share: Int) in
      String(
        format: "%d of %d devices (%.1f%%)", share, count, 100 * Double(share) / Double(count))
    }
    XCTAssertEqual(
      summary,
      [
        "onboarding_upsell: \(share(chosen.count)) on v74, \(share(count - chosen.count)) on the bundled model",
        "model files on the devices: \(chosen.count)",
      ])
    print("OverTheAirEndToEndTests: \(challengers.count) of \(count) devices took the challenger")

    run(workspace, ["rollback", "acme", "onboarding_upsell", "74"])
    run(workspace, ["ota", "publish"] + destination, environment: environment)
    let (rolledBack, after) = try devices(workspace, downloads: root, count: count)
    XCTAssertEqual(
      after,
      ["onboarding_upsell: \(share(count)) on the bundled model", "model files on the devices: 0"])
    XCTAssertTrue(rolledBack.values.allSatisfy { $0.version == "bundled" && $0.sha256 == bundledSHA })
    // The challenger's files stay until each device's next launch (the app may still run the
    // model): the next run deletes them.
    _ = try devices(workspace, downloads: root, count: count)
    let leftovers =
      FileManager.default.enumerator(atPath: root.path)?.allObjects.compactMap { $0 as? String }
      .filter { $0.hasSuffix(".mlmodel") || $0.hasSuffix(".download") } ?? []
    XCTAssertEqual(leftovers, [], "the challenger's files are deleted")
  }

  /// Two rollouts published into one bucket at the same moment (moto_server, signatures
  /// checked): one wins, the other fails with a clear line and overwrites nothing; no revision
  /// is lost, and the loser's rerun publishes on top of the winner's.
  func testConcurrentPublishesIntoOneBucketLoseNoRevision() throws {
    let moto = try SharedMoto.shared.moto()
    let bucket = try moto.makeBucket()
    let checkouts = try [10, 20].map { percent -> Workspace in
      let workspace = try Workspace(manifest: Self.manifest)
      run(workspace, ["rollout", "acme", "onboarding_upsell", "74", "--percent", String(percent)])
      return workspace
    }
    let destination = ["--publish", "s3://\(bucket)/sdk", "--s3-endpoint", moto.endpoint]
    var revisions = 0
    // Round 1 races to create the channel, round 2 to move an existing pointer; a further
    // round would race the same way as the second.
    for round in 1...2 {
      // Both are held just after reading the pointer, then let go together: a certain race.
      let gate = try TemporaryDirectory()
      let environment = moto.credentials.merging([
        "RELEASE_PAUSE_AT": "ota.pointer-read", "RELEASE_PAUSE_GATE": gate.url.path,
      ]) { $1 }
      let started = try checkouts.map { workspace in
        try RunningBinary(
          ["ota", "publish"] + destination, in: workspace.root,
          environment: ReleaseBinary.environment(environment))
      }
      let deadline = Date().addingTimeInterval(60)
      func reached() -> Int {
        ((try? FileManager.default.contentsOfDirectory(atPath: gate.url.path)) ?? []).filter {
          $0.hasPrefix("reached-")
        }
        .count
      }
      while reached() < 2 && Date() < deadline { usleep(20_000) }
      XCTAssertEqual(reached(), 2, "both publishers read the pointer")
      _ = FileManager.default.createFile(atPath: gate.url.appendingPathComponent("open").path, contents: nil)
      let runs = started.map { $0.wait(timeout: 120) }
      let winners = runs.filter { $0.exitCode == 0 }
      let losers = runs.filter { $0.exitCode != 0 }
      XCTAssertEqual(winners.count, 1, runs.map(\.allOutput).joined(separator: "\n"))
      XCTAssertEqual(losers.count, 1)
      for loser in losers {
        XCTAssertEqual(loser.exitCode, 1, loser.allOutput)
        // Whether it lost at the revision file (the winner's, named by the pointer by then) or
        // at the pointer's If-Match, it says the pointer moved past what it read.
        XCTAssertTrue(
          loser.standardError.contains(
            "ota/acme/models.json: changed while this publish held revision \(revisions): it now holds revision \(revisions + 1) (another rollout was published); nothing was overwritten"
          ), loser.allOutput)
      }
      // The bucket read back in one `aws s3 sync`.
      let objects = try moto.objects(bucket)
      let data = try XCTUnwrap(objects["sdk/ota/acme/models.json"], "round \(round): no pointer")
      let pointer = try jsonObject(data, "models.json")
      let revision = try XCTUnwrap(pointer["revision"] as? Int)
      XCTAssertGreaterThan(revision, revisions, "round \(round)")
      revisions = revision
      // Every revision up to the pointer's is kept, and the pointer is its newest.
      for number in 1...revision {
        XCTAssertNotNil(objects["sdk/ota/acme/models-\(number).json"], "round \(round): revision \(number)")
      }
      XCTAssertEqual(objects["sdk/ota/acme/models-\(revision).json"], data)
      // The loser publishes on top of the winner once it runs again.
      let loserIndex = runs.firstIndex { $0.exitCode != 0 } ?? 0
      let rerun = checkouts[loserIndex].run(["ota", "publish"] + destination, environment: moto.credentials)
      XCTAssertEqual(rerun.exitCode, 0, rerun.allOutput)
      let (after, _) = try moto.getObject(bucket, "sdk/ota/acme/models.json")
      revisions = try XCTUnwrap(try jsonObject(after, "models.json")["revision"] as? Int)
      XCTAssertEqual(revisions, revision + 1)
      // Alternate the two offers, so each round has something new to publish.
      for (index, workspace) in checkouts.enumerated() {
        run(
          workspace,
          ["rollout", "acme", "onboarding_upsell", "74", "--percent", String(10 * (round + 1) + index)])
      }
    }
  }
}
