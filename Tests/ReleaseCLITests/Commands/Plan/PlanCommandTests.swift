import Foundation
import ReleaseCLITestSupport
import ReleaseManifest
import ReleaseTestSupport
import XCTest

/// `release plan --shards N`: what a CI matrix is built from. Every customer in exactly one
/// shard, each customer's features named, the same plan digest a shard run makes, and nothing
/// written.
final class PlanCommandTests: XCTestCase {
  func testThePlanNamesEveryCustomerOnceWithItsFeaturesAndTheDigestAShardRunMakes() throws {
    let workspace = try Workspace()
    // Every customer a run plans.
    let dryRun = workspace.run(["all", "--dry-run", "--json"])
    let planned = try XCTUnwrap(
      dryRun.events.first { $0["event"] as? String == "plan" }?["customers"] as? [[String: Any]],
      dryRun.allOutput)
    let ids = planned.compactMap { $0["id"] as? String }
    XCTAssertEqual(ids.count, 7)
    // Only the store's digest cache may be written (scratch, like every cache).
    let before = Workspace.snapshot(workspace.root).filter { !$0.key.hasPrefix(".release-cache/") }

    let json = workspace.run(["plan", "--shards", "3", "--json"])
    XCTAssertEqual(json.exitCode, 0, json.allOutput)
    let document = try XCTUnwrap(
      try JSONSerialization.jsonObject(with: Data(json.standardOutput.joined().utf8)) as? [String: Any])
    let shards = try XCTUnwrap(document["shards"] as? [[String: Any]])
    XCTAssertEqual(shards.compactMap { $0["shard"] as? Int }, [1, 2, 3])
    let assigned = shards.flatMap { ($0["customers"] as? [String]) ?? [] }
    XCTAssertEqual(assigned.sorted(), ids.sorted(), "every customer of customers.json, once")
    let features = try XCTUnwrap(document["features"] as? [String: [String]])
    XCTAssertEqual(Set(features.keys), Set(ids))
    // As customers.json lists them.
    XCTAssertEqual(features["harbor"], ["att"])
    XCTAssertEqual(features["fjord-travel"], ["att", "conversion"])

    // The digest a shard of this checkout records, so a merge accepts the shards.
    let digest = try XCTUnwrap(document["planDigest"] as? String)
    let shard = workspace.run(["all", "--shard", "2/3", "--dry-run"])
    XCTAssertEqual(shard.exitCode, 0, shard.allOutput)
    XCTAssertTrue(
      shard.standardOutput.contains { $0.contains("shard 2/3:") && $0.contains("plan \(digest.prefix(12))") },
      shard.allOutput)

    // As text: a line per shard, with the feature sets its machine builds.
    let text = workspace.run(["plan", "--shards", "3"])
    XCTAssertEqual(text.exitCode, 0, text.allOutput)
    XCTAssertEqual(text.standardOutput.count, 4, text.allOutput)
    let harborLine = try XCTUnwrap(
      text.standardOutput.first { $0.contains("harbor (build)") }, text.allOutput)
    XCTAssertTrue(
      harborLine.contains("[att") || harborLine.contains(", att]") || harborLine.contains(" att,"), harborLine
    )
    XCTAssertEqual(
      Workspace.snapshot(workspace.root).filter { !$0.key.hasPrefix(".release-cache/") }, before,
      "planning writes nothing")
  }
}
