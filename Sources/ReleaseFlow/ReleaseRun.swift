import Foundation
import ReleaseBuild
import ReleaseCore
import ReleasePipeline
import ReleaseReporting
import ReleaseSettings
import ReleaseSystem
import ReleaseVerification

/// `release all`, `customer` and `merge`: the release pipeline, from loading the inputs to
/// publishing, tagging and recording what shipped.
package enum ReleaseRun {
  /// The steps of a release, each taking what the one before returned. A merge joins shards
  /// instead of building; a shard builds its part and records which part it was instead of
  /// publishing. `record` keeps what the summary reports: the customers' latest results, and
  /// the run's lock once taken.
  static func pipeline(_ pipeline: Pipeline, _ record: inout RunRecord) throws {
    let settings = pipeline.context.settings
    // A publishing run that must sign and cannot ends before anything is read or built; a dry
    // run (usually previewed where the CI secret is not) shows the refusal and goes on.
    do { try ReleaseSignature.checkCanSign(settings) } catch let error as ReleaseError where settings.dryRun {
      pipeline.context.reporter.report(.wouldRefuse(step: PublishStep().name, error.lines))
    }
    let inputs = try pipeline.run(AlignModelsStep(), try pipeline.run(LoadInputsStep(), ()))
    switch settings.mode {
    case .all, .customers: try build(inputs, pipeline, &record)
    case .shard(let selection): try shard(selection, inputs, pipeline, &record)
    case .merge(let sources): try merge(sources, inputs, pipeline, &record)
    }
  }

  /// `release all` and `customer`: plan, build what changed, release what ships.
  private static func build(_ inputs: ReleaseInputs, _ pipeline: Pipeline, _ record: inout RunRecord) throws {
    let ota = try pipeline.run(CheckOTAStep(for: .releaseRun), inputs)
    var plan = try pipeline.run(PlanStep(), .init(inputs: inputs))
    let tags = try pipeline.run(TagCheckStep(), plan)
    if let tags { plan = tags.plan }
    record.customers = plan.customers
    let lock = try pipeline.run(LockStep(), ())
    record.lock = lock
    let customers = try pipeline.run(BuildCustomersStep(), .init(plan: plan, lock: lock)) ?? plan.customers
    record.customers = customers
    try release(
      RunResults(inputs: inputs, customers: customers, settings: pipeline.context.settings), ota: ota,
      tags: tags?.tags, pipeline)
  }

  /// `release all --shard k/N`: builds its part of the plan and records which part it was
  /// instead of publishing.
  private static func shard(
    _ selection: ShardSelection, _ inputs: ReleaseInputs, _ pipeline: Pipeline, _ record: inout RunRecord
  ) throws {
    let plan = try pipeline.run(PlanStep(), .init(inputs: inputs))
    let shard = try pipeline.run(SelectShardStep(selection: selection), plan)
    record.customers = shard.plan.customers
    let lock = try pipeline.run(LockStep(), ())
    record.lock = lock
    let customers =
      try pipeline.run(BuildCustomersStep(), .init(plan: shard.plan, lock: lock)) ?? shard.plan.customers
    record.customers = customers
    let results = RunResults(inputs: inputs, customers: customers, settings: pipeline.context.settings)
    let checked = try pipeline.run(CheckArtifactsStep(), results)
    try pipeline.run(WriteArtifactListStep(), checked)
    try pipeline.run(WriteShardRecordStep(), .init(record: shard.record, customers: customers))
  }

  /// `release merge`: joins the shards' releases instead of building, then releases them.
  private static func merge(
    _ sources: [String], _ inputs: ReleaseInputs, _ pipeline: Pipeline, _ record: inout RunRecord
  ) throws {
    let ota = try pipeline.run(CheckOTAStep(for: .releaseRun), inputs)
    let origins = try pipeline.run(LoadShardsStep(sources: sources), ())
    var plan = try pipeline.run(PlanStep(), .init(inputs: inputs, origins: origins))
    plan = try pipeline.run(CheckShardsStep(), .init(plan: plan, origins: origins))
    let tags = try pipeline.run(TagCheckStep(), plan)
    if let tags { plan = tags.plan }
    record.customers = plan.customers
    let lock = try pipeline.run(LockStep(), ())
    record.lock = lock
    let customers =
      try pipeline.run(CopyShardReleasesStep(), .init(plan: plan, origins: origins, lock: lock))
      ?? plan.customers
    record.customers = customers
    try release(
      RunResults(inputs: inputs, customers: customers, settings: pipeline.context.settings), ota: ota,
      tags: tags?.tags, pipeline)
  }

  /// What a run does with its customers' releases once they are in dist/: checked, then
  /// published (to no destination too), then tagged and recorded; each phase requires the
  /// one before (`ReleaseTail.swift`).
  static func release(_ results: RunResults, ota: OTAPlan?, tags: TagPlan?, _ pipeline: Pipeline) throws {
    let checked = try pipeline.run(CheckArtifactsStep(), results)
    try pipeline.run(WriteArtifactListStep(), checked)
    let shipped = try pipeline.run(PublishStep(), checked)
    try pipeline.run(PublishOTAStep(), .init(ota: ota, inputs: results.inputs, results: shipped.results))
    try pipeline.run(TagStep(), .init(release: shipped, checked: tags))
    try pipeline.run(WriteStateStep(), shipped)
  }

  package static func run(settings: RunSettings, services: Services, reporter: Reporter) throws {
    let context = ReleaseContext(services: services, settings: settings, reporter: reporter)
    var record = RunRecord()
    // The reporters finish (dist/report.xml, the step summary) while the run still holds its
    // locks.
    defer { withExtendedLifetime(record.lock) { reporter.finish() } }
    let start = services.clock.monotonicSeconds()
    func summarize() {
      let shipping = Set(RunResults.shipping(record.customers, settings).shipping.map(\.id))
      let outcomes = record.customers.map {
        $0.outcome(relativeTo: services.root, shipped: shipping.contains($0.id))
      }
      reporter.report(.summary(outcomes, seconds: services.clock.monotonicSeconds() - start))
    }
    do {
      try pipeline(Pipeline(context), &record)
    } catch {
      // Past the lock step the run did work (input checks are behind it): the summary and
      // report.xml still say what was built before the step that failed.
      if !settings.dryRun && record.lock != nil { summarize() }
      throw error
    }
    // A dry run's plan lines already say everything; the summary is for runs that did work.
    if settings.dryRun { return }
    summarize()
    let failed = record.customers.filter { $0.isFailed || $0.status == .cancelled }
    if !failed.isEmpty { throw ReleaseError.customersFailed(failed.map(\.id)) }
  }
}
