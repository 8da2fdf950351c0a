import Foundation
import ReleasePipeline
import ReleaseSettings
import ReleaseSystem

/// `release all --shard k/N`: after the plan of every customer, keeps only shard k's jobs
/// (`ShardPlan`), so N machines each build their part of one plan. The other customers are
/// not this run's: they are neither built, reported nor recorded here.
package struct SelectShardStep: RequiredStep {
  package let name = "select shard"
  let selection: ShardSelection

  package init(selection: ShardSelection) { self.selection = selection }

  package struct Selected: Sendable {
    /// The plan narrowed to this shard's customers.
    package var plan: ReleasePlan
    /// What `dist/shard.json` says at the end of the run (the failures added then).
    package var record: ShardRecord
  }

  package func run(_ plan: ReleasePlan, _ context: ReleaseContext) throws -> Selected {
    let shards = try ShardPlan.make(for: plan, count: selection.count, context)
    let mine = Set(shards.shards[selection.index - 1].customers)
    var selected = plan
    selected.customers = plan.customers.filter { mine.contains($0.id) }
    let record = ShardRecord(
      planDigest: shards.planDigest, shard: selection.index, shards: selection.count,
      toolchain: plan.toolchain, customers: mine.sorted(), failed: [:])
    let building = selected.customers.filter { $0.status == .pending }.count
    context.reporter.report(
      .info(
        "shard \(selection): \(mine.count) of \(plan.customers.count) customers (\(building) to build), plan \(shards.planDigest.prefix(12))"
      ))
    return Selected(plan: selected, record: record)
  }
}

/// Writes `dist/shard.json` at the end of a sharded run, whatever its outcome: the merge
/// needs to know which plan and shard this dist/ is, and which customers failed and why.
package struct WriteShardRecordStep: Step {
  package let name = "record shard"
  package let changesState = true

  package struct Input: Sendable {
    var record: ShardRecord
    var customers: [CustomerResult]

    package init(record: ShardRecord, customers: [CustomerResult]) {
      self.record = record
      self.customers = customers
    }
  }

  package func dryRunDescription(_ input: Input, _ context: ReleaseContext) -> [String] {
    ["would write \(context.settings.inputs.distPath)/\(ShardRecord.fileName)"]
  }

  package func run(_ input: Input, _ context: ReleaseContext) throws {
    var record = input.record
    for result in input.customers {
      if case .failed(let step, let reason) = result.status {
        record.failed[result.id] = "\(step): \(reason)"
      }
      if result.status == .cancelled { record.failed[result.id] = "cancelled (--fail-fast)" }
    }
    try AtomicFile.write(
      try record.encoded(), to: context.distDirectory.appendingPathComponent(ShardRecord.fileName))
  }
}
