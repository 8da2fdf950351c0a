import Foundation
import XCTest

@testable import ReleaseKit

/// The shard plan: every customer in exactly one shard, building customers spread evenly
/// (counts differ by at most one) and kept together with those of their feature set,
/// up-to-date ones spread too, and the same input always gives the same plan.
final class ShardPlanTests: XCTestCase {
  func jobs(building: Int, upToDate: Int) -> [(id: String, builds: Bool, features: String)] {
    (0..<building).map { (String(format: "b%03d", $0), true, "set\($0 / 5 % 3)") }
      + (0..<upToDate).map { (String(format: "u%03d", $0), false, "set\($0 % 3)") }
  }

  func testEveryCustomerIsInExactlyOneShardAndBuildingOnesAreSpreadEvenly() {
    for (building, upToDate, count) in [(120, 0, 6), (7, 13, 3), (0, 5, 4), (5, 0, 8), (1, 1, 1), (37, 2, 5)]
    {
      let input = jobs(building: building, upToDate: upToDate)
      let plan = ShardPlan.make(input, count: count, planDigest: "d")
      XCTAssertEqual(plan.shards.map(\.shard), Array(1...count))
      let assigned = plan.shards.flatMap(\.customers)
      XCTAssertEqual(assigned.count, input.count, "\(building)/\(upToDate)/\(count)")
      XCTAssertEqual(Set(assigned), Set(input.map(\.id)), "\(building)/\(upToDate)/\(count)")
      let builds = plan.shards.map(\.building)
      XCTAssertEqual(builds.reduce(0, +), building)
      XCTAssertLessThanOrEqual((builds.max() ?? 0) - (builds.min() ?? 0), 1, "\(builds)")
      let sizes = plan.shards.map(\.customers.count)
      XCTAssertLessThanOrEqual((sizes.max() ?? 0) - (sizes.min() ?? 0), 2, "\(sizes)")
      for shard in plan.shards {
        XCTAssertEqual(shard.building, shard.customers.filter { $0.hasPrefix("b") }.count)
        XCTAssertEqual(shard.customers, shard.customers.sorted())
      }
    }
  }

  func testTheSameInputGivesTheSamePlanWhateverItsOrder() {
    let input = jobs(building: 23, upToDate: 9)
    let plan = ShardPlan.make(input, count: 4, planDigest: "d")
    XCTAssertEqual(ShardPlan.make(input.reversed(), count: 4, planDigest: "d"), plan)
    XCTAssertEqual(ShardPlan.make(input.shuffled(), count: 4, planDigest: "d"), plan)
    XCTAssertEqual(plan.shard(of: "b000"), 1)
    XCTAssertNil(plan.shard(of: "nobody"))
  }

  /// A shard's machine builds each feature set it meets in a build slot of its own: a slot
  /// switching sets costs about 2.5 s. Spread one by one, every shard would get every set.
  func testCustomersWithTheSameFeaturesShareAShard() {
    let input = jobs(building: 120, upToDate: 0)
    let plan = ShardPlan.make(input, count: 6, planDigest: "d")
    let features = Dictionary(uniqueKeysWithValues: input.map { ($0.id, $0.features) })
    for shard in plan.shards {
      XCTAssertEqual(shard.building, 20)
      XCTAssertLessThanOrEqual(Set(shard.customers.map { features[$0]! }).count, 2, "\(shard)")
    }
    // Three sets of 40 over three shards: one set each.
    let three = ShardPlan.make(input, count: 3, planDigest: "d")
    XCTAssertEqual(three.shards.map { Set($0.customers.map { features[$0]! }).count }, [1, 1, 1])
  }
}
