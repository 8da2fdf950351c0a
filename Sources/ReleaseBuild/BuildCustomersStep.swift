import Foundation
import ReleasePipeline
import ReleaseSystem

/// Runs every customer that is not up to date through generate → build and test → archive →
/// stage, `--jobs` at a time, then moves each job's log to `dist/logs/<id>.log`. Returns every
/// customer of the plan with its result. It builds under the run's locks (`RunLock`): build
/// slots and dist/ are shared with any other run.
package struct BuildCustomersStep: Step {
  package let name = "build customers"
  package let changesState = true

  package init() {}

  package struct Input: Sendable {
    var plan: ReleasePlan
    /// Held by the run to its end; required here so that nothing builds before it is taken.
    var lock: RunLock

    package init(plan: ReleasePlan, lock: RunLock) {
      self.plan = plan
      self.lock = lock
    }
  }

  package func skipReason(_ input: Input, _ context: ReleaseContext) -> String? {
    input.plan.customers.contains { $0.status == .pending } ? nil : "every selected customer is up to date"
  }

  package func dryRunDescription(_ input: Input, _ context: ReleaseContext) -> [String] {
    input.plan.customers.filter { $0.status == .pending }.map { result in
      let job = result.job
      // What the package will hold, so a dry run shows what the customer receives.
      let features = job.features.map(\.name)
      let models = job.customer.customModels.map(\.reference.description)
      return
        "would build \(job.id) \(job.version) (features \(features.joined(separator: ", ")); models \(models.joined(separator: ", "))) -> \(context.settings.inputs.distPath)/\(job.id)/\(job.version)/\(job.archiveName)"
    }
  }

  package func run(_ input: Input, _ context: ReleaseContext) throws -> [CustomerResult] {
    let plan = input.plan
    let slots = BuildSlots(
      root: context.cacheDirectory.appendingPathComponent("slots"), count: context.settings.build.jobs,
      moduleCache: BuildSlots.moduleCache(
        environment: context.services.environment, resolve: context.services.resolve))
    // A key is proven again in every run (its binary is only trusted after this run's proof), so
    // the binaries an earlier run kept are only space.
    let compiledDirectory = context.cacheDirectory.appendingPathComponent("compiled")
    try? FileManager.default.removeItem(at: compiledDirectory)
    let compiled = CompiledTests(directory: compiledDirectory)
    let inputs = plan.inputs
    let pipeline = CustomerPipeline { job, steps in
      let package = try steps.run(GenerateStep(inputs: inputs), job)
      let tested = try steps.run(
        SwiftBuildStep(slots: slots, compiled: compiled, toolchain: plan.toolchain), package)
      return try steps.afterTests(ran: tested.testCount, by: tested.testedBy) {
        let archived = try steps.run(ArchiveStep(), tested)
        return try steps.run(StageStep(inputs: inputs), archived)
      }
    }
    let customers = plan.customers.map { planned in
      guard planned.status == .pending else { return planned }
      var result = planned
      let log = planned.job.scratchLog(in: context.cacheDirectory)
      try? FileManager.default.removeItem(at: log)
      result.logFile = log
      return result
    }
    // Customers with the same features one after another on a worker: its warm slot then
    // keeps its build plan and modules (see BuildSlots). Only the first customer of a compile
    // key takes a slot unless every customer is built (`--full-build`): a worker done with its
    // set then joins another at once.
    let everyCustomerBuilds = context.settings.build.fullBuild
    return pipeline.run(
      customers, context, affinity: \.slotAffinity,
      worthJoining: everyCustomerBuilds ? BuildSlots.customersWorthASwitch : 1
    ) { result in
      // Logs are streams, so they are written in scratch space and only moved into dist/
      // once the job is over, whatever its outcome.
      guard let log = result.logFile, FileManager.default.fileExists(atPath: log.path) else { return }
      let final = context.logsDirectory.appendingPathComponent("\(result.id).log")
      try? AtomicFile.createDirectory(context.logsDirectory)
      // move, not rename: dist/ may be on another file system than the cache.
      if (try? AtomicFile.move(log, to: final)) != nil { result.logFile = final }
    }
  }
}
