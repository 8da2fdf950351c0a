import Foundation
import ReleaseSystem

/// Records each released customer's version and source digest in the committed state file:
/// when every customer of the run succeeded, or with `--publish-passed` those that passed (a
/// failed run otherwise changes no versions).
struct WriteStateStep: Step {
  let name = "write state"
  let changesState = true

  func skipReason(_ context: ReleaseContext) -> String? {
    if let reason = context.nothingShipsReason("recorded") { return reason }
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
    for job in context.shippingJobs {
      state.customers[job.id] = .init(version: job.version, sourceDigest: job.digest.source)
    }
    return state
  }
}
