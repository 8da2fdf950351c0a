import Foundation
import ReleasePipeline

/// `release plan --shards N [--json]`: which customers each of N machines builds, without
/// building or writing anything. A CI matrix runs `release all --shard k/N` on each machine
/// (which makes the same plan from the same inputs) and `release merge` on their dist/s.
package enum PlanRun {
  /// What `release plan` is asked for.
  package struct Request: Sendable {
    /// How many machines share the work.
    package var shards: Int
    package var json: Bool

    package init(shards: Int, json: Bool) {
      self.shards = shards
      self.json = json
    }
  }

  /// The steps of `release plan`: the inputs and the plan of a release run, cut into shards.
  package static func pipeline(_ request: Request, _ pipeline: Pipeline) throws {
    let inputs = try pipeline.run(AlignModelsStep(), try pipeline.run(LoadInputsStep(), ()))
    let release = try pipeline.run(PlanStep(), .init(inputs: inputs))
    let planned = try pipeline.run(PlanShardsStep(count: request.shards), release)
    try pipeline.run(ReportShardPlanStep(json: request.json), planned)
  }
}
