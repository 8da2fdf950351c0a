import Foundation
import ReleaseSystem
import XCTest

@testable import ReleaseKit

/// Issue 12, "indexes with two publishers": two machines publishing different customers into
/// one destination at the same moment. Each reads index.json, adds its customer and writes it
/// back; without a compare-and-replace the later write drops the earlier customer. Each publish
/// here runs in its own process from its own checkout, started together, twenty times over.
final class ConcurrentPublishTests: XCTestCase {
  override class func tearDown() {
    S3PublishTests.shutDownMoto()
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
    let moto = try S3PublishTests.moto()
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
}
