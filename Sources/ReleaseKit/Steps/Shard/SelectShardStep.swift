import Foundation
import ReleaseSystem

/// `release all --shard k/N`: after the plan of every customer, keeps only shard k's jobs
/// (`ShardPlan`), so N machines each build their part of one plan. The other customers are
/// not this run's: they are neither built, reported nor recorded here.
struct SelectShardStep: Step {
  let name = "select shard"

  func skipReason(_ context: ReleaseContext) -> String? {
    context.options.shard == nil ? "not a sharded run (--shard)" : nil
  }

  func run(_ context: ReleaseContext) throws {
    guard let selection = context.options.shard, let inputs = context.inputs else { return }
    let plan = try ShardPlan.make(for: context, count: selection.count)
    let mine = Set(plan.shards[selection.index - 1].customers)
    let all = context.jobs.count
    context.jobs = context.jobs.filter { mine.contains($0.id) }
    context.shard = ShardRecord(
      planDigest: plan.planDigest, shard: selection.index, shards: selection.count,
      toolchain: inputs.toolchain,
      customers: mine.sorted(), failed: [:])
    let building = context.jobs.filter { $0.status == .pending }.count
    context.reporter.report(
      .info(
        "shard \(selection): \(mine.count) of \(all) customers (\(building) to build), plan \(plan.planDigest.prefix(12))"
      ))
  }
}

/// Writes `dist/shard.json` at the end of a sharded run, whatever its outcome: the merge
/// needs to know which plan and shard this dist/ is, and which customers failed and why.
struct WriteShardRecordStep: Step {
  let name = "record shard"
  let changesState = true

  func skipReason(_ context: ReleaseContext) -> String? {
    context.shard == nil ? "not a sharded run (--shard)" : nil
  }

  func dryRunDescription(_ context: ReleaseContext) -> [String] {
    ["would write \(context.options.distPath)/\(ShardRecord.fileName)"]
  }

  func run(_ context: ReleaseContext) throws {
    guard var record = context.shard else { return }
    for job in context.jobs {
      if case .failed(let step, let reason) = job.status { record.failed[job.id] = "\(step): \(reason)" }
      if job.status == .cancelled { record.failed[job.id] = "cancelled (--fail-fast)" }
    }
    try AtomicFile.write(
      try record.encoded(), to: context.distDirectory.appendingPathComponent(ShardRecord.fileName))
  }
}
