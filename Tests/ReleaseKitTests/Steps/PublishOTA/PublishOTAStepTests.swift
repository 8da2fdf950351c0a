import Foundation
import ReleaseSystem
import XCTest

@testable import ReleaseKit

/// `release ota publish` into a directory: a publish interrupted between the revision file and
/// the pointer, a pointer changed while a publish holds a revision, and what is published in
/// which order.
final class PublishOTAStepTests: XCTestCase {
  static let destination = ["--publish", "dir:published"]

  @discardableResult
  func succeed(
    _ workspace: Workspace, _ arguments: [String], file: StaticString = #filePath, line: UInt = #line
  ) -> Workspace.Run {
    let result = workspace.run(arguments)
    XCTAssertEqual(result.exitCode, 0, "\(arguments): \(result.allOutput)", file: file, line: line)
    return result
  }

  /// The published manifest of `customer` (the pointer, or one revision) as plain values.
  func manifest(_ workspace: Workspace, _ customer: String, revision: Int? = nil) throws -> [String: Any] {
    let name = revision.map { "models-\($0).json" } ?? "models.json"
    let url = workspace.file("published/ota/\(customer)/\(name)")
    return try jsonObject(Data(contentsOf: url), url.path)
  }

  /// The rollout percentage of acme's onboarding_upsell v74 in a published manifest.
  func percent(_ manifest: [String: Any]) throws -> Int {
    let flows = try XCTUnwrap(manifest["flows"] as? [String: Any])
    let flow = try XCTUnwrap(flows["onboarding_upsell"] as? [String: Any])
    let models = try XCTUnwrap(flow["models"] as? [[String: Any]])
    return try XCTUnwrap(models.first?["rolloutPercent"] as? Int)
  }

  func testAPublishKilledBetweenTheRevisionAndThePointerDoesNotJamLaterPublishes() throws {
    let workspace = try Workspace()
    let customers = try XCTUnwrap(
      try JSONSerialization.jsonObject(with: Data(contentsOf: workspace.file("customers.json")))
        as? [[String: Any]]
    ).compactMap { $0["id"] as? String }
    XCTAssertEqual(customers.first, "acme", "acme is published first, so a kill there leaves the others out")
    succeed(workspace, ["rollout", "acme", "onboarding_upsell", "74", "--percent", "10"])
    succeed(workspace, ["ota", "publish"] + Self.destination)
    XCTAssertEqual(try manifest(workspace, "acme")["revision"] as? Int, 1)

    // Killed after writing revision 2, before the pointer names it.
    succeed(workspace, ["rollout", "acme", "onboarding_upsell", "74", "--percent", "20"])
    let killed = try ReleaseBinary.run(
      ["ota", "publish"] + Self.destination, in: workspace.root,
      environment: ["RELEASE_KILL_AT": "ota.revision-created"])
    XCTAssertEqual(killed.signal, SIGKILL, killed.allOutput)
    let orphan = try Data(contentsOf: workspace.file("published/ota/acme/models-2.json"))
    XCTAssertEqual(try percent(try jsonObject(orphan, "models-2.json")), 20)
    XCTAssertEqual(
      try manifest(workspace, "acme")["revision"] as? Int, 1, "the pointer still names revision 1")

    // The offer changes again before anyone reruns: the orphan's revision is taken, the next
    // free one is published, and the orphan stays as it was.
    succeed(workspace, ["rollout", "acme", "onboarding_upsell", "74", "--percent", "30"])
    let rerun = succeed(workspace, ["ota", "publish"] + Self.destination)
    let pointer = try manifest(workspace, "acme")
    XCTAssertEqual(pointer["revision"] as? Int, 3, rerun.allOutput)
    XCTAssertEqual(try percent(pointer), 30)
    XCTAssertEqual(
      try Data(contentsOf: workspace.file("published/ota/acme/models-3.json")),
      try Data(contentsOf: workspace.file("published/ota/acme/models.json")))
    XCTAssertEqual(try Data(contentsOf: workspace.file("published/ota/acme/models-2.json")), orphan)
    // Every customer after acme, left out by the killed run, is published now.
    for customer in customers {
      XCTAssertEqual(try manifest(workspace, customer)["customer"] as? String, customer)
    }

    // And publishing goes on from there.
    succeed(workspace, ["rollout", "acme", "onboarding_upsell", "74", "--percent", "40"])
    succeed(workspace, ["ota", "publish"] + Self.destination)
    XCTAssertEqual(try manifest(workspace, "acme")["revision"] as? Int, 4)
    XCTAssertEqual(try percent(try manifest(workspace, "acme")), 40)
  }

  func testARerunAfterAKillWithTheSameOfferPublishesTheRevisionTheKilledRunWrote() throws {
    let workspace = try Workspace()
    succeed(workspace, ["rollout", "acme", "onboarding_upsell", "74", "--percent", "10"])
    let killed = try ReleaseBinary.run(
      ["ota", "publish"] + Self.destination, in: workspace.root,
      environment: ["RELEASE_KILL_AT": "ota.revision-created"])
    XCTAssertEqual(killed.signal, SIGKILL, killed.allOutput)
    XCTAssertFalse(
      FileManager.default.fileExists(atPath: workspace.file("published/ota/acme/models.json").path))
    let written = try Data(contentsOf: workspace.file("published/ota/acme/models-1.json"))
    succeed(workspace, ["ota", "publish"] + Self.destination)
    XCTAssertEqual(try Data(contentsOf: workspace.file("published/ota/acme/models.json")), written)
    XCTAssertFalse(
      FileManager.default.fileExists(atPath: workspace.file("published/ota/acme/models-2.json").path))
  }
}

/// The pointer's compare-and-replace: a publish held after writing its revision file while
/// another one publishes on top of it; then the held one's replace (If-Match on S3, the lock in
/// a directory) finds the pointer changed, reads it again and fails with one line naming the
/// revision there now. Nothing is overwritten, and its rerun publishes the next revision.
final class OTAPointerRaceTests: XCTestCase {
  override class func tearDown() {
    S3PublishTests.shutDownMoto()
    super.tearDown()
  }

  func testDirectory() throws {
    let published = try TemporaryDirectory()
    try assertAHeldPublishLosesToAChangedPointer(
      destination: ["--publish", "dir:\(published.url.path)"], environment: [:],
      location: "\(published.url.path)/ota/acme/models.json"
    ) { key in try Data(contentsOf: published.url.appendingPathComponent(key)) }
  }

  func testS3() throws {
    let moto = try S3PublishTests.moto()
    let bucket = try moto.makeBucket()
    try assertAHeldPublishLosesToAChangedPointer(
      destination: ["--publish", "s3://\(bucket)/sdk", "--s3-endpoint", moto.endpoint],
      environment: moto.credentials, location: "s3://\(bucket)/sdk/ota/acme/models.json"
    ) { key in try moto.getObject(bucket, "sdk/" + key).data }
  }

  private func assertAHeldPublishLosesToAChangedPointer(
    destination: [String], environment: [String: String], location: String, read: (String) throws -> Data
  ) throws {
    func revision(_ key: String) throws -> (revision: Int, percent: Int) {
      let manifest = try jsonObject(try read(key), key)
      let flows = try XCTUnwrap(manifest["flows"] as? [String: Any])
      let models = try XCTUnwrap(
        (flows["onboarding_upsell"] as? [String: Any])?["models"] as? [[String: Any]])
      return (
        try XCTUnwrap(manifest["revision"] as? Int), try XCTUnwrap(models.first?["rolloutPercent"] as? Int)
      )
    }
    let held = try Workspace()
    let other = try Workspace()
    for (workspace, arguments) in [
      (held, ["rollout", "acme", "onboarding_upsell", "74", "--percent", "10"]),
      (held, ["ota", "publish"] + destination),
      (held, ["rollout", "acme", "onboarding_upsell", "74", "--percent", "20"]),
      (other, ["rollout", "acme", "onboarding_upsell", "74", "--percent", "30"]),
    ] {
      let result = workspace.run(arguments, environment: environment)
      XCTAssertEqual(result.exitCode, 0, "\(arguments): \(result.allOutput)")
    }
    XCTAssertEqual(try revision("ota/acme/models.json").revision, 1)

    let gate = try TemporaryDirectory()
    let running = try RunningBinary(
      ["ota", "publish"] + destination, in: held.root,
      environment: ReleaseBinary.environment(
        environment.merging(["RELEASE_PAUSE_AT": "ota.revision-created", "RELEASE_PAUSE_GATE": gate.url.path])
        {
          $1
        }))
    let deadline = Date().addingTimeInterval(60)
    func reached() -> Bool {
      ((try? FileManager.default.contentsOfDirectory(atPath: gate.url.path)) ?? []).contains {
        $0.hasPrefix("reached-")
      }
    }
    while !reached() && running.isRunning && Date() < deadline { usleep(20_000) }
    XCTAssertTrue(reached(), "the held publish wrote its revision file")
    XCTAssertEqual(try revision("ota/acme/models-2.json").percent, 20)

    // Revision 2 is the held publish's, unnamed: the other takes 3 and moves the pointer.
    let meanwhile = other.run(["ota", "publish"] + destination, environment: environment)
    XCTAssertEqual(meanwhile.exitCode, 0, meanwhile.allOutput)
    let pointer = try read("ota/acme/models.json")
    XCTAssertEqual(try revision("ota/acme/models.json").revision, 3)

    _ = FileManager.default.createFile(atPath: gate.url.appendingPathComponent("open").path, contents: nil)
    let lost = running.wait(timeout: 120)
    XCTAssertEqual(lost.exitCode, 1, lost.allOutput)
    XCTAssertEqual(
      lost.standardErrorLines.filter { $0.contains("error:") },
      [
        "error: publish over the air: \(location): changed while this publish held revision 1: it now holds revision 3 (another rollout was published); nothing was overwritten: rerun 'release ota publish' to publish on top of it"
      ], lost.allOutput)
    XCTAssertEqual(try read("ota/acme/models.json"), pointer, "the other's revision is not overwritten")
    XCTAssertEqual(try revision("ota/acme/models-2.json").percent, 20)

    // Its rerun publishes on top: every revision kept, the pointer at the newest.
    let rerun = held.run(["ota", "publish"] + destination, environment: environment)
    XCTAssertEqual(rerun.exitCode, 0, rerun.allOutput)
    XCTAssertEqual(try revision("ota/acme/models.json").revision, 4)
    XCTAssertEqual(try revision("ota/acme/models.json").percent, 20)
    XCTAssertEqual(try revision("ota/acme/models-3.json").percent, 30)
    XCTAssertEqual(try read("ota/acme/models-4.json"), try read("ota/acme/models.json"))
  }
}
