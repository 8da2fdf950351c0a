import Foundation
import ReleaseCore
import ReleaseFlow
import ReleasePipeline
import ReleaseReporting
import ReleaseSettings
import ReleaseSystem

/// `release plan --shards N [--json]`: which customers each of N machines builds, without
/// building or writing anything. A CI matrix runs `release all --shard k/N` on each machine
/// (which makes the same plan from the same inputs) and `release merge` on their dist/s.
enum PlanCommand {
  static func run(_ request: PlanOptions, _ invocation: CommandInvocation) throws {
    var settings = request.release
    // Planning reads dist/ (what is up to date) and writes nothing but the cache of the
    // store's digests.
    settings.dryRun = true
    settings.publishing.destinations = []
    settings.publishing.tag = false
    let context = ReleaseContext(
      services: invocation.services, settings: settings, reporter: DiscardingReporter())
    let pipeline = Pipeline(context)
    let inputs = try pipeline.run(AlignModelsStep(), try pipeline.run(LoadInputsStep(), ()))
    let release = try pipeline.run(PlanStep(), .init(inputs: inputs))
    let plan = try ShardPlan.make(for: release, count: request.shards, context)
    let output = invocation.services.output
    let features = Dictionary(uniqueKeysWithValues: release.jobs.map { ($0.id, $0.features.map(\.name)) })
    if settings.json {
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

  /// `--json`: the plan, and each customer's features (what its shard's machine builds).
  struct JSONOutput: Encodable {
    var planDigest: String
    var shards: [ShardPlan.Shard]
    var features: [String: [String]]
  }
}

/// `release plan`'s options: how many shards, and the release's options, which say which
/// customers are up to date (and so cost a shard nothing).
struct PlanOptions: Equatable {
  var shards: Int
  let release: RunSettings

  init(_ parsed: Arguments, _ invocation: CommandInvocation) throws {
    try RunSettings.refusingPositionals(parsed, command: "plan")
    guard let shards = try parsed.integer(Options.shards, in: 1...256) else {
      throw ReleaseError.usage("plan: --shards <n> is required (how many machines share the work)")
    }
    self.shards = shards
    release = try SettingsResolution(parsed, invocation).run(.all)
  }
}

/// Drops every event: for commands that run pipeline steps only to compute something (their
/// errors still reach the user through the command's own reporter, which reports what is thrown).
final class DiscardingReporter: Reporter {
  func report(_ event: ReleaseEvent) {}
}
