import Foundation

/// `release plan --shards N [--json]`: which customers each of N machines builds, without
/// building or writing anything. A CI matrix runs `release all --shard k/N` on each machine
/// (which makes the same plan from the same inputs) and `release merge` on their dist/s.
enum PlanCommand {
  static func run(_ invocation: CommandInvocation) throws {
    var options = try ReleaseCommand.options(
      command: "plan", arguments: invocation.arguments, services: invocation.services)
    // Planning reads dist/ (what is up to date) and writes nothing.
    options.dryRun = true
    options.publish = []
    options.tag = false
    let context = ReleaseContext(
      services: invocation.services, options: options, reporter: DiscardingReporter())
    try Pipeline([LoadInputsStep(), AlignModelsStep(), PlanStep()]).run(context)
    let plan = ShardPlan.make(
      context.jobs.map { ($0.id, $0.status == .pending, $0.slotAffinity) }, count: options.planShards ?? 1,
      planDigest: try PlanDigest.compute(context))
    let output = invocation.services.output
    if options.json {
      let encoder = JSONEncoder()
      encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
      output.write(line: String(decoding: try encoder.encode(plan), as: UTF8.self), to: .standardOutput)
      return
    }
    let building = plan.shards.map(\.building).reduce(0, +)
    output.write(
      line:
        "plan \(plan.planDigest.prefix(12)): \(context.jobs.count) customers, \(building) to build, over \(plan.shards.count) shards",
      to: .standardOutput)
    let builds = Set(context.jobs.filter { $0.status == .pending }.map(\.id))
    for shard in plan.shards {
      let customers = shard.customers.map { "\($0) (\(builds.contains($0) ? "build" : "up to date"))" }
      output.write(
        line: "shard \(shard.shard)/\(plan.shards.count): "
          + (customers.isEmpty ? "nothing" : customers.joined(separator: ", ")),
        to: .standardOutput)
    }
  }
}

/// Drops every event: for commands that run pipeline steps only to compute something (their
/// errors still reach the user through the command's own reporter, which reports what is thrown).
final class DiscardingReporter: Reporter {
  func report(_ event: ReleaseEvent) {}
}
