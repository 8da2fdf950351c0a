import Foundation
import ReleaseSystem

/// Records each released customer's version and source digest in the committed state file,
/// only when every customer of the run succeeded (a failed run changes no versions).
struct WriteStateStep: Step {
  let name = "write state"
  let changesState = true

  func skipReason(_ context: ReleaseContext) -> String? {
    if context.jobs.contains(where: { if case .failed = $0.status { return true } else { return false } }) {
      return "a customer failed; versions are not recorded"
    }
    return updatedState(context) == context.state ? "no version changed" : nil
  }

  func dryRunDescription(_ context: ReleaseContext) -> [String] {
    context.unrecordedJobs.map { job in
      "would record \(job.id) \(job.version) in \(context.options.statePath)"
    }
  }

  func run(_ context: ReleaseContext) throws {
    guard let state = updatedState(context) else { return }
    let url = context.services.resolve(context.options.statePath)
    try AtomicFile.produce(url) { temporary in
      try state.encoded().write(to: temporary)
      FaultPoint.reach("state.partial")
    }
    context.state = state
  }

  private func updatedState(_ context: ReleaseContext) -> ReleaseState? {
    guard var state = context.state else { return nil }
    // Under --dry-run, pending jobs are shown as if they succeeded.
    let released: Set<CustomerJob.Status> =
      context.options.dryRun ? [.succeeded, .upToDate, .pending] : [.succeeded, .upToDate]
    for job in context.jobs where released.contains(job.status) {
      state.customers[job.id] = .init(version: job.version, sourceDigest: job.digest.source)
    }
    return state
  }
}
