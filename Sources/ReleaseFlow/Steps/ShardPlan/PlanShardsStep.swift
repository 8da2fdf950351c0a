import Foundation
import ReleasePipeline

/// `release plan --shards N`: which customers each of N machines builds (`ShardPlan`), from
/// the plan of every customer, as each `release all --shard k/N` of the same inputs makes it.
package struct PlanShardsStep: RequiredStep {
  package let name = "plan shards"
  /// How many machines share the work.
  let count: Int

  package init(count: Int) { self.count = count }

  package struct Planned: Sendable {
    /// The plan of every customer: which build and which are up to date.
    package var release: ReleasePlan
    package var shards: ShardPlan
  }

  package func run(_ release: ReleasePlan, _ context: ReleaseContext) throws -> Planned {
    Planned(release: release, shards: try ShardPlan.make(for: release, count: count, context))
  }
}
