import Foundation
import ReleaseSystem

/// Runs every customer that is not up to date through generate → build and test → archive →
/// stage, `--jobs` at a time, then moves each job's log to `dist/logs/<id>.log`.
struct BuildCustomersStep: Step {
  let name = "build customers"
  let changesState = true

  func skipReason(_ context: ReleaseContext) -> String? {
    context.jobs.contains { $0.status == .pending } ? nil : "every selected customer is up to date"
  }

  func dryRunDescription(_ context: ReleaseContext) -> [String] {
    context.jobs.filter { $0.status == .pending }.map { job in
      // What the package will hold, so a dry run shows what the customer receives.
      let features = job.features.map(\.name)
      let models = job.customer.customModels.map(\.reference.description)
      return
        "would build \(job.id) \(job.version) (features \(features.joined(separator: ", ")); models \(models.joined(separator: ", "))) -> \(context.options.distPath)/\(job.id)/\(job.version)/\(job.archiveName)"
    }
  }

  func run(_ context: ReleaseContext) throws {
    let slots = BuildSlots(
      root: context.cacheDirectory.appendingPathComponent("slots"), count: context.options.jobs)
    let pipeline = CustomerPipeline([
      GenerateStep(), SwiftBuildStep(slots: slots), ArchiveStep(), StageStep(),
    ])
    let scratchLogs = context.cacheDirectory.appendingPathComponent("logs")
    for job in context.jobs where job.status == .pending {
      let log = scratchLogs.appendingPathComponent("\(job.id).log")
      try? FileManager.default.removeItem(at: log)
      job.logFile = log
    }
    // Customers with the same features one after another on a worker: its warm slot then
    // keeps its build plan and modules (see BuildSlots).
    pipeline.run(
      context.jobs, context, affinity: \.slotAffinity, worthJoining: BuildSlots.customersWorthASwitch
    ) { job in
      // Logs are streams, so they are written in scratch space and only moved into dist/
      // once the job is over, whatever its outcome.
      guard let log = job.logFile, FileManager.default.fileExists(atPath: log.path) else { return }
      let final = context.logsDirectory.appendingPathComponent("\(job.id).log")
      try? AtomicFile.createDirectory(context.logsDirectory)
      // move, not rename: dist/ may be on another file system than the cache.
      if (try? AtomicFile.move(log, to: final)) != nil { job.logFile = final }
    }
  }
}
