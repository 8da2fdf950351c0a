import Foundation
import ReleaseArchive
import ReleaseSystem
import XCTest

@testable import ReleaseKit

/// Issue 10's proof: a release published to a directory served over HTTP on 127.0.0.1, a
/// challenger rolled out to 10% and published over the air, and the real SDK of the release's
/// archive updating 2,000 devices against it: the devices the device rule picks — computed here
/// independently, with the tool's libcrypto SHA-256 — and only those take the challenger, with
/// exactly the published bytes; after a rollback every device is back on the bundled model and
/// the challenger's file is gone.
final class OverTheAirEndToEndTests: XCTestCase {
  override class func tearDown() {
    S3PublishTests.shutDownMoto()
    super.tearDown()
  }

  static let manifest = """
    [{"id": "acme", "name": "Acme Fitness", "bundle_identifiers": ["com.acme.fitness"],
      "app_id": "3f2b8c1e-6d4a-4e9b-9a51-0c7d2e8f4a10",
      "customModels": [{"flowId": 8362, "flowName": "onboarding_upsell", "modelVersion": 73}]}]
    """
  static let devices = 2_000

  @discardableResult
  private func run(
    _ workspace: Workspace, _ arguments: [String], file: StaticString = #filePath, line: UInt = #line
  )
    -> Workspace.Run
  {
    let result = workspace.run(arguments)
    XCTAssertEqual(result.exitCode, 0, "\(arguments): \(result.allOutput)", file: file, line: line)
    return result
  }

  /// Builds the probe against the SDK package of the release archive; returns its executable.
  private func buildProbe(sdkArchive: URL, in scratch: URL) throws -> URL {
    let sdk = try ZipReader.extract(sdkArchive, into: scratch.appendingPathComponent("sdk"))
    let probe = scratch.appendingPathComponent("probe")
    let fixture = RepositoryRoot.url.appendingPathComponent("Tests/Fixtures/OTA/Probe")
    try FileManager.default.createDirectory(
      at: probe.appendingPathComponent("Sources"), withIntermediateDirectories: true)
    try FileManager.default.copyItem(
      at: fixture.appendingPathComponent("Sources/OTAProbe"),
      to: probe.appendingPathComponent("Sources/OTAProbe"))
    let manifest = try String(contentsOf: fixture.appendingPathComponent("Package.swift.in"), encoding: .utf8)
      .replacingOccurrences(of: "{{sdkPath}}", with: sdk.path)
      .replacingOccurrences(of: "{{sdkPackage}}", with: sdk.lastPathComponent)
    try manifest.write(to: probe.appendingPathComponent("Package.swift"), atomically: true, encoding: .utf8)
    let build = try SystemProcessRunner().run(
      ProcessInvocation("swift", ["build"], in: probe, timeLimit: 900))
    XCTAssertEqual(build.exitCode, 0, build.standardOutput + build.standardError)
    let bin = try SystemProcessRunner().run(
      ProcessInvocation("swift", ["build", "--show-bin-path"], in: probe))
    return URL(fileURLWithPath: bin.standardOutput.trimmingCharacters(in: .whitespacesAndNewlines))
      .appendingPathComponent("OTAProbe")
  }

  /// Device → (version or "bundled", SHA-256 of the file in use), from the probe's output.
  private func probe(_ executable: URL, root: URL) throws -> [String: (version: String, sha256: String)] {
    let result = try SystemProcessRunner().run(
      ProcessInvocation(executable.path, [root.path, String(Self.devices)], timeLimit: 900))
    XCTAssertEqual(result.exitCode, 0, result.standardError)
    var devices: [String: (String, String)] = [:]
    for line in result.standardOutput.split(separator: "\n") {
      let fields = line.split(separator: " ").map(String.init)
      XCTAssertEqual(fields.count, 4, String(line))
      XCTAssertNotEqual(fields[1], "error", String(line))
      if fields.count == 4 { devices[fields[0]] = (fields[2], fields[3]) }
    }
    XCTAssertEqual(devices.count, Self.devices)
    return devices
  }

  func testAChallengerAt10PercentReachesExactlyItsDevicesAndARollbackTakesItBack() throws {
    let workspace = try Workspace(manifest: Self.manifest)
    let published = workspace.file("published")
    try FileManager.default.createDirectory(at: published, withIntermediateDirectories: true)
    let server = try StaticHTTPServer(directory: published)
    defer { server.shutDown() }
    try GitFixture.commitAll(workspace.root)
    let destination = ["--publish", "dir:published", "--public-url", server.baseURL]
    run(workspace, ["all", "--skip-tests", "--allow-dirty"] + destination)
    run(workspace, ["rollout", "acme", "onboarding_upsell", "74", "--percent", "10"])
    // The rollout drew a random salt; a fixed one (rollouts.json is a committed input) makes the
    // share of devices the same on every run of this test.
    let rollouts = workspace.file("rollouts.json")
    let drawn = try XCTUnwrap(
      try String(contentsOf: rollouts, encoding: .utf8).firstMatch(of: /"salt" : "([0-9a-f]+)"/)?.1)
    try String(contentsOf: rollouts, encoding: .utf8)
      .replacingOccurrences(of: String(drawn), with: "00000000000000000000000000000001")
      .write(to: rollouts, atomically: true, encoding: .utf8)
    run(workspace, ["ota", "publish"] + destination)

    // What was published, read back from the directory (not from the tool).
    let manifest = try jsonObject(
      Data(contentsOf: published.appendingPathComponent("ota/acme/models.json")), "models.json")
    let flows = try XCTUnwrap(manifest["flows"] as? [String: Any])
    let upsell = try XCTUnwrap(flows["onboarding_upsell"] as? [String: Any])
    let offer = try XCTUnwrap((upsell["models"] as? [[String: Any]])?.first)
    let salt = try XCTUnwrap(offer["salt"] as? String)
    let challengerSHA = try XCTUnwrap(offer["sha256"] as? String)
    XCTAssertEqual(
      try SHA256Digest.hex(ofFileAt: published.appendingPathComponent("ota/models/\(challengerSHA).mlmodel")),
      challengerSHA)
    let bundledSHA = try SHA256Digest.hex(ofFileAt: workspace.file("models/onboarding_upsell/73.mlmodel"))

    let scratch = workspace.file("probe-scratch")
    let archive = try XCTUnwrap(
      FileManager.default.enumerator(atPath: workspace.dist.path)?.allObjects.compactMap { $0 as? String }
        .first { $0.hasSuffix(".zip") })
    let executable = try buildProbe(sdkArchive: workspace.dist.appendingPathComponent(archive), in: scratch)
    let root = scratch.appendingPathComponent("devices")

    // The device rule, computed independently of the SDK.
    func bucket(_ installID: String) -> Int {
      Int(UInt32(SHA256Digest.hex(of: Data("\(salt):\(installID)".utf8)).prefix(8), radix: 16)! % 100)
    }
    let chosen = Set((0..<Self.devices).map { "install-\($0)" }.filter { bucket($0) < 10 })
    let share = Double(chosen.count) / Double(Self.devices)
    XCTAssertTrue((0.08...0.12).contains(share), "the rule itself picks \(share * 100)%")

    let rolledOut = try probe(executable, root: root)
    let challengers = Set(rolledOut.filter { $0.value.version == "74" }.keys)
    XCTAssertEqual(challengers, chosen, "exactly the devices the rule picks take the challenger")
    for (device, state) in rolledOut {
      XCTAssertEqual(state.sha256, chosen.contains(device) ? challengerSHA : bundledSHA, device)
      if !chosen.contains(device) { XCTAssertEqual(state.version, "bundled", device) }
    }
    print("OverTheAirEndToEndTests: \(challengers.count) of \(Self.devices) devices took the challenger")

    run(workspace, ["rollback", "acme", "onboarding_upsell", "74"])
    run(workspace, ["ota", "publish"] + destination)
    let rolledBack = try probe(executable, root: root)
    XCTAssertTrue(rolledBack.values.allSatisfy { $0.version == "bundled" && $0.sha256 == bundledSHA })
    let leftovers =
      FileManager.default.enumerator(atPath: root.path)?.allObjects.compactMap { $0 as? String }
      .filter { $0.hasSuffix(".mlmodel") || $0.hasSuffix(".download") } ?? []
    XCTAssertEqual(leftovers, [], "the challenger's files are deleted")
  }

  /// Two rollouts published into one bucket at the same moment (moto_server, signatures
  /// checked): one wins, the other fails with a clear line and overwrites nothing; no revision
  /// is lost, and the loser's rerun publishes on top of the winner's.
  func testConcurrentPublishesIntoOneBucketLoseNoRevision() throws {
    let moto = try S3PublishTests.moto()
    let bucket = try moto.makeBucket()
    let checkouts = try [10, 20].map { percent -> Workspace in
      let workspace = try Workspace(manifest: Self.manifest)
      run(workspace, ["rollout", "acme", "onboarding_upsell", "74", "--percent", String(percent)])
      return workspace
    }
    let destination = ["--publish", "s3://\(bucket)/sdk", "--s3-endpoint", moto.endpoint]
    var revisions = 0
    for round in 1...3 {
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
      let (data, _) = try moto.getObject(bucket, "sdk/ota/acme/models.json")
      let pointer = try jsonObject(data, "models.json")
      let revision = try XCTUnwrap(pointer["revision"] as? Int)
      XCTAssertGreaterThan(revision, revisions, "round \(round)")
      revisions = revision
      // Every revision up to the pointer's is kept, and the pointer is its newest.
      for number in 1...revision {
        _ = try moto.getObject(bucket, "sdk/ota/acme/models-\(number).json")
      }
      let (newest, _) = try moto.getObject(bucket, "sdk/ota/acme/models-\(revision).json")
      XCTAssertEqual(newest, data)
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
