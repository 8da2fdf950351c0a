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
/// runs in its own process from its own checkout. The losing interleaving is forced rather than
/// hoped for: acme's publisher is held after it read index.json (`publish.customer-indexes-read`)
/// while bluebird's publishes completely, once into an empty destination (no index.json yet)
/// and once onto an index.json that exists; then both are started together, as CI does.
final class ConcurrentPublishEndToEndTests: XCTestCase {
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

  /// An index.json that lists no customer yet, so the first read finds one to replace.
  static let emptyIndex = #"{"customers": []}"#

  /// One round of the two publishers: with `forced`, the first (acme's) is held after reading
  /// index.json until the second (bluebird's) has published; otherwise both start together.
  private func race(
    _ checkouts: [(workspace: Workspace, customer: String)], forced: Bool, round: String,
    environment: [String: String] = [:], arguments: (Workspace) -> [String]
  ) throws {
    let gate = try TemporaryDirectory()
    let pause = ["RELEASE_PAUSE_AT": "publish.customer-indexes-read", "RELEASE_PAUSE_GATE": gate.url.path]
    var runs: [RunningBinary] = []
    for (position, checkout) in checkouts.enumerated() {
      let held = forced && position == 0
      runs.append(
        try RunningBinary(
          ["customer", checkout.customer] + arguments(checkout.workspace), in: checkout.workspace.root,
          environment: ReleaseBinary.environment(environment.merging(held ? pause : [:]) { $1 })))
      if held {
        XCTAssertTrue(
          runs[0].reachedPausePoint(gate: gate.url, timeout: 120), "\(round): acme read index.json")
      }
    }
    if forced {
      // bluebird's publisher, started after acme's was held, finishes before acme's goes on.
      let bluebird = runs[1].wait(timeout: 120)
      XCTAssertEqual(bluebird.exitCode, 0, "\(round): \(bluebird.allOutput)")
      _ = FileManager.default.createFile(atPath: gate.url.appendingPathComponent("open").path, contents: nil)
      let acme = runs[0].wait(timeout: 120)
      XCTAssertEqual(acme.exitCode, 0, "\(round): \(acme.allOutput)")
    } else {
      for run in runs.map({ $0.wait(timeout: 120) }) {
        XCTAssertEqual(run.exitCode, 0, "\(round): \(run.allOutput)")
      }
    }
  }

  func testTwoPublishersOfDifferentCustomersIntoOneDirectoryNeverDropEachOther() throws {
    let checkouts = try checkouts()
    let root = try TemporaryDirectory()
    for (round, forced, seeded) in [
      ("forced-no-index", true, false), ("forced", true, true), ("together", false, false),
    ] {
      let destination = root.url.appendingPathComponent(round)
      if seeded {
        try FileManager.default.createDirectory(at: destination, withIntermediateDirectories: true)
        try Self.emptyIndex.write(
          to: destination.appendingPathComponent("index.json"), atomically: true, encoding: .utf8)
      }
      try race(checkouts, forced: forced, round: round) { workspace in
        [
          "--skip-tests", "--allow-dirty", "--publish", "dir:\(destination.path)",
          "--cache", workspace.file("cache").path,
        ]
      }
      XCTAssertEqual(try customersInIndex(destination), ["acme", "bluebird"], round)
      for customer in ["acme", "bluebird"] {
        XCTAssertTrue(
          FileManager.default.fileExists(
            atPath: destination.appendingPathComponent("customers/\(customer)/index.json").path),
          "\(round): \(customer)")
      }
    }
  }

  /// The same race against moto_server, signatures checked: `If-Match` with the ETag read, and
  /// `If-None-Match: *` for an index that did not exist, make the loser read again and merge.
  func testTwoPublishersIntoOneBucketNeverDropEachOther() throws {
    let moto = try S3PublishEndToEndTests.moto()
    let checkouts = try checkouts()
    let bucket = try moto.makeBucket()
    let seed = try TemporaryDirectory()
    let emptyIndex = seed.url.appendingPathComponent("index.json")
    try Self.emptyIndex.write(to: emptyIndex, atomically: true, encoding: .utf8)
    for (round, forced, seeded) in [
      ("forced-no-index", true, false), ("forced", true, true), ("together", false, false),
    ] {
      if seeded {
        try moto.aws([
          "s3api", "put-object", "--bucket", bucket, "--key", "\(round)/index.json", "--body",
          emptyIndex.path,
        ])
      }
      try race(checkouts, forced: forced, round: round, environment: moto.credentials) { workspace in
        [
          "--skip-tests", "--allow-dirty", "--publish", "s3://\(bucket)/\(round)",
          "--s3-endpoint", moto.endpoint, "--cache", workspace.file("cache").path,
        ]
      }
      let (data, _) = try moto.getObject(bucket, "\(round)/index.json")
      let index = try jsonObject(data, "index.json")
      XCTAssertEqual(
        (index["customers"] as? [[String: Any]] ?? []).compactMap { $0["id"] as? String }.sorted(),
        ["acme", "bluebird"], round)
    }
  }

  /// Two publishers of one customer, its first release and the patch after it: the older one reads the customer index
  /// for the top-level index, then (held at that point) the newer one publishes completely,
  /// then the older one goes on. index.json must still say the patch is the latest.
  func testTwoPublishersOfOneCustomerNeverMoveLatestBack() throws {
    let older = try BuiltFixture.shared.get().copy()
    let newer = try BuiltFixture.shared.get().copy()
    // The newer checkout records the first release, then releases acme with another model: the
    // patch, built with a stand-in `swift` (`StandInSwift`): the race is in the indexes.
    let swift = try StandInSwift()
    XCTAssertEqual(newer.run(["customer", "acme", "--skip-tests"]).exitCode, 0)
    let manifest = try String(contentsOf: newer.file("customers.json"), encoding: .utf8)
    try manifest.replacingOccurrences(of: #""modelVersion": 73"#, with: #""modelVersion": 74"#).write(
      to: newer.file("customers.json"), atomically: true, encoding: .utf8)
    let built = newer.run(
      ["customer", "acme", "--skip-tests"] + swift.cacheArguments, environment: swift.environment)
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
