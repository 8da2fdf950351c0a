import Foundation
import ReleaseCLITestSupport
import ReleaseSystem
import ReleaseTestSupport
import XCTest

/// The release after a customer's first when only its models or entry changed.
private let nextPatch = Workspace.sdkVersion(plusPatches: 1)

/// Issue 12, "indexes with two publishers": two machines publishing different customers into
/// one destination at the same moment. Each reads index.json, adds its customer and writes it
/// back; without a compare-and-replace the later write drops the earlier customer. Each publish
/// here runs in its own process from its own checkout, started together, twenty times over.
final class ConcurrentPublishEndToEndTests: XCTestCase {
  override class func tearDown() {
    S3PublishEndToEndTests.shutDownMoto()
    super.tearDown()
  }

  /// Two checkouts, one releasing acme and one bluebird, each built and committed once.
  private func checkouts() throws -> [(workspace: Workspace, customer: String)] {
    try ["acme", "bluebird"].map { customer in
      let workspace = try BuiltFixture.shared.get().copy()
      try GitFixture.commitAll(workspace.root)
      return (workspace, customer)
    }
  }

  private func customersInIndex(_ destination: URL) throws -> [String] {
    let index = try jsonObject(
      Data(contentsOf: destination.appendingPathComponent("index.json")), "index.json")
    return (index["customers"] as? [[String: Any]] ?? []).compactMap { $0["id"] as? String }.sorted()
  }

  func testTwoPublishersOfDifferentCustomersIntoOneDirectoryNeverDropEachOther() throws {
    let checkouts = try checkouts()
    let root = try TemporaryDirectory()
    for round in 1...20 {
      let destination = root.url.appendingPathComponent("round-\(round)")
      let runs = try checkouts.map { checkout in
        try RunningBinary(
          [
            "customer", checkout.customer, "--skip-tests", "--allow-dirty", "--publish",
            "dir:\(destination.path)",
            "--cache", checkout.workspace.file("cache").path,
          ], in: checkout.workspace.root, environment: ReleaseBinary.environment())
      }
      for run in runs.map({ $0.wait(timeout: 120) }) {
        XCTAssertEqual(run.exitCode, 0, "round \(round): \(run.allOutput)")
      }
      XCTAssertEqual(try customersInIndex(destination), ["acme", "bluebird"], "round \(round)")
      for customer in ["acme", "bluebird"] {
        XCTAssertTrue(
          FileManager.default.fileExists(
            atPath: destination.appendingPathComponent("customers/\(customer)/index.json").path),
          "round \(round): \(customer)")
      }
    }
  }

  /// The same race against moto_server, signatures checked: `If-Match` with the ETag read, and
  /// `If-None-Match: *` for an index that did not exist, make the loser read again and merge.
  func testTwoPublishersIntoOneBucketNeverDropEachOther() throws {
    let moto = try S3PublishEndToEndTests.moto()
    let checkouts = try checkouts()
    let bucket = try moto.makeBucket()
    for round in 1...5 {
      let prefix = "round-\(round)"
      let runs = try checkouts.map { checkout in
        try RunningBinary(
          [
            "customer", checkout.customer, "--skip-tests", "--allow-dirty", "--publish",
            "s3://\(bucket)/\(prefix)",
            "--s3-endpoint", moto.endpoint, "--cache", checkout.workspace.file("cache").path,
          ], in: checkout.workspace.root, environment: ReleaseBinary.environment(moto.credentials))
      }
      for run in runs.map({ $0.wait(timeout: 120) }) {
        XCTAssertEqual(run.exitCode, 0, "round \(round): \(run.allOutput)")
      }
      let (data, _) = try moto.getObject(bucket, "\(prefix)/index.json")
      let index = try jsonObject(data, "index.json")
      XCTAssertEqual(
        (index["customers"] as? [[String: Any]] ?? []).compactMap { $0["id"] as? String }.sorted(),
        ["acme", "bluebird"], "round \(round)")
    }
  }

  /// Two publishers of one customer, its first release and the patch after it: the older one reads the customer index
  /// for the top-level index, then (held at that point) the newer one publishes completely,
  /// then the older one goes on. index.json must still say the patch is the latest.
  func testTwoPublishersOfOneCustomerNeverMoveLatestBack() throws {
    let older = try BuiltFixture.shared.get().copy()
    let newer = try BuiltFixture.shared.get().copy()
    // The newer checkout records the first release, then releases acme with another model: the patch.
    XCTAssertEqual(newer.run(["customer", "acme", "--skip-tests"]).exitCode, 0)
    let manifest = try String(contentsOf: newer.file("customers.json"), encoding: .utf8)
    try manifest.replacingOccurrences(of: #""modelVersion": 73"#, with: #""modelVersion": 74"#).write(
      to: newer.file("customers.json"), atomically: true, encoding: .utf8)
    let built = newer.run(["customer", "acme", "--skip-tests"])
    XCTAssertEqual(built.exitCode, 0, built.allOutput)
    XCTAssertTrue(
      FileManager.default.fileExists(atPath: newer.file("dist/acme/\(nextPatch)/release.json").path))
    try GitFixture.commitAll(newer.root)
    let destination = try TemporaryDirectory()
    func arguments(_ workspace: Workspace) -> [String] {
      [
        "customer", "acme", "--skip-tests", "--allow-dirty", "--publish", "dir:\(destination.url.path)",
        "--cache", workspace.file("cache").path,
      ]
    }
    let gate = try TemporaryDirectory()
    let first = try RunningBinary(
      arguments(older), in: older.root,
      environment: ReleaseBinary.environment([
        "RELEASE_PAUSE_AT": "publish.customer-indexes-read", "RELEASE_PAUSE_GATE": gate.url.path,
      ]))
    XCTAssertTrue(
      first.reachedPausePoint(gate: gate.url, timeout: 120), "the older publisher read the customer index")
    let second = try ReleaseBinary.run(arguments(newer), in: newer.root, timeout: 120)
    XCTAssertEqual(second.exitCode, 0, second.allOutput)
    _ = FileManager.default.createFile(atPath: gate.url.appendingPathComponent("open").path, contents: nil)
    let run = first.wait(timeout: 120)
    XCTAssertEqual(run.exitCode, 0, run.allOutput)

    let index = try jsonObject(
      Data(contentsOf: destination.url.appendingPathComponent("index.json")), "index.json")
    let acme = (index["customers"] as? [[String: Any]] ?? []).first { $0["id"] as? String == "acme" }
    XCTAssertEqual(acme?["latest"] as? String, "\(nextPatch)", "\(index)")
    let customer = try jsonObject(
      Data(contentsOf: destination.url.appendingPathComponent("customers/acme/index.json")), "acme")
    XCTAssertEqual(customer["latest"] as? String, "\(nextPatch)")
  }
}
