import Foundation
import ReleasePipeline
import ReleaseSystem

/// `release plan`, last step: writes the shard plan, as a line per shard with what its
/// machine builds, or (`--json`) as one document a CI matrix is built from.
package struct ReportShardPlanStep: RequiredStep {
  package let name = "report shard plan"
  let json: Bool

  package init(json: Bool) { self.json = json }

  /// `--json`: the plan, and each customer's features (what its shard's machine builds).
  struct JSONOutput: Encodable {
    var planDigest: String
    var shards: [ShardPlan.Shard]
    var features: [String: [String]]
  }

  package func run(_ planned: PlanShardsStep.Planned, _ context: ReleaseContext) throws {
    let output = context.services.output
    let (release, plan) = (planned.release, planned.shards)
    let features = Dictionary(uniqueKeysWithValues: release.jobs.map { ($0.id, $0.features.map(\.name)) })
    if json {
      let document = JSONOutput(planDigest: plan.planDigest, shards: plan.shards, features: features)
      output.write(line: String(decoding: StableJSON.canonical(document), as: UTF8.self), to: .standardOutput)
      return
    }
    let building = plan.shards.map(\.building).reduce(0, +)
    output.write(
      line:
        "plan \(plan.planDigest.prefix(12)): \(release.customers.count) customers, \(building) to build, over \(plan.shards.count) shards",
      to: .standardOutput)
    let builds = Set(release.customers.filter { $0.status == .pending }.map(\.id))
    for shard in plan.shards {
      let customers = shard.customers.map { "\($0) (\(builds.contains($0) ? "build" : "up to date"))" }
      // The feature sets its machine builds: each costs a build slot's first build or a switch.
      let sets = Set(shard.customers.filter(builds.contains).map { features[$0]!.joined(separator: "+") })
      output.write(
        line: "shard \(shard.shard)/\(plan.shards.count)"
          + (sets.isEmpty ? "" : " [\(sets.sorted().joined(separator: ", "))]") + ": "
          + (customers.isEmpty ? "nothing" : customers.joined(separator: ", ")),
        to: .standardOutput)
    }
  }
}
