import Foundation
import ReleaseTestSupport
import XCTest

@testable import ReleasePipeline

/// The shard plan: every customer in exactly one shard, building customers kept together with
/// those of their feature set and spread by cost (a customer each, and `featureSetCost` for
/// each further feature set a shard meets), up-to-date ones spread too, and the same input
/// always gives the same plan.
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
      // Never costlier than cutting into equal numbers: the largest cost at most that of the
      // largest equal run, which meets at most every set (3 here).
      let equalRun = (building + count - 1) / count
      let costs = plan.shards.map { shard in
        shard.customers.filter { $0.hasPrefix("b") }.count
          + ShardPlan.featureSetCost
          * (Set(
            shard.customers.filter { $0.hasPrefix("b") }.map { id in input.first { $0.id == id }!.features }
          )
          .count - 1)
      }
      XCTAssertLessThanOrEqual(costs.max() ?? 0, equalRun + 2 * ShardPlan.featureSetCost, "\(builds)")
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

  /// Customers of one feature set are spread evenly: counts differ by at most one, the first
  /// shards taking one more.
  func testCustomersOfOneFeatureSetAreSpreadEvenly() {
    let input = (0..<20).map { (id: String(format: "b%03d", $0), builds: true, features: "conversion") }
    XCTAssertEqual(
      ShardPlan.make(input, count: 6, planDigest: "d").shards.map(\.building), [4, 4, 3, 3, 3, 3])
    XCTAssertEqual(ShardPlan.make(input, count: 3, planDigest: "d").shards.map(\.building), [7, 7, 6])
  }

  /// A further feature set costs a shard about as much as 90 customers of a set it already
  /// builds: on the bench's mix (8 `att`, 40 `att` and `conversion`, 72 `conversion`) over 6
  /// shards, every shard meets one set, and the largest shard is one of three of the 72
  /// (by hand: 8 alone, 40 over two, 72 over three).
  func testAShardMeetsOneFeatureSetWhenTheSetsCanBeCutSo() {
    let sets = [("a", 8), ("b", 40), ("c", 72)]
    let input = sets.flatMap { set, size in
      (0..<size).map { (id: String(format: "\(set)%03d", $0), builds: true, features: set) }
    }
    let plan = ShardPlan.make(input, count: 6, planDigest: "d")
    XCTAssertEqual(plan.shards.map(\.building).max(), 24)
    XCTAssertEqual(plan.shards.map(\.building).reduce(0, +), 120)
    XCTAssertEqual(
      plan.shards.map { Set($0.customers.map { $0.prefix(1) }).sorted() },
      [["a"], ["b"], ["b"], ["c"], ["c"], ["c"]])
  }

  /// Two sets of 200 over three shards: shards of one set each would cost 200 (one set in one
  /// shard); cutting the middle shard across both costs less, and that shard gets fewer
  /// customers by about a feature set's cost (by hand: x = m + 90 and 2x + m = 400, so the
  /// middle shard gets m of about 73 and the others about 163).
  func testAShardMeetingTwoFeatureSetsGetsFewerCustomers() throws {
    let input = [("a", 200), ("b", 200)].flatMap { set, size in
      (0..<size).map { (id: String(format: "\(set)%03d", $0), builds: true, features: set) }
    }
    let plan = ShardPlan.make(input, count: 3, planDigest: "d")
    let sets = plan.shards.map { Set($0.customers.map { $0.prefix(1) }).count }
    XCTAssertEqual(sets, [1, 2, 1])
    for shard in [plan.shards[0], plan.shards[2]] {
      XCTAssertEqual(
        Double(plan.shards[1].building + ShardPlan.featureSetCost), Double(shard.building), accuracy: 2)
    }
  }

  /// A shard's machine builds each feature set it meets in a build slot of its own: a slot
  /// switching sets compiles the features again. Spread one by one, every shard would get every
  /// set.
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
