import Foundation
import ReleaseCore
import ReleasePipeline
import ReleaseSystem

/// Records each released customer's version and source digest in the committed state file:
/// when every customer of the run succeeded, or with `--publish-passed` those that passed (a
/// failed run otherwise changes no versions). It records what shipped: after publishing.
struct WriteStateStep: Step {
  let name = "write state"
  let changesState = true

  func skipReason(_ release: ShippedRelease, _ context: ReleaseContext) -> String? {
    let results = release.results
    if let reason = results.nothingShipsReason("recorded") { return reason }
    return updatedState(results) == results.inputs.state ? "no version changed" : nil
  }

  func dryRunDescription(_ release: ShippedRelease, _ context: ReleaseContext) -> [String] {
    let results = release.results
    return results.inputs.unrecorded(results.customers.map(\.job)).flatMap { job in
      ["would record \(job.id) \(job.version) in \(context.settings.inputs.statePath), with release notes:"]
        + job.releaseNotes.note.changes.flatMap { change in
          ["  \(change.summary)"] + (change.sdkChanges ?? []).map { "    \($0)" }
        }
    }
  }

  enum StateError: Error, CustomStringConvertible {
    case changedMeanwhile(path: String, customer: String, found: String, expected: String)

    var description: String {
      switch self {
      case .changedMeanwhile(let path, let customer, let found, let expected):
        return
          "\(path): another run recorded \(customer) \(found) while this one released \(expected); nothing was overwritten, rerun to record it"
      }
    }
  }

  /// Runs with other `--dist`/`--cache` hold other run locks and may write the same state file:
  /// it has a lock of its own, and under it the file is read again and this run's records
  /// merged into what is there now, so no run drops another's record. A record another run
  /// changed since this one read the file is not overwritten. Returns the state written.
  func run(_ release: ShippedRelease, _ context: ReleaseContext) throws -> ReleaseState {
    let read = release.results.inputs.state
    let url = context.services.resolve(context.settings.inputs.statePath)
    let lock = try ReleaseState.lock(url)
    return try withExtendedLifetime(lock) {
      var current = try ReleaseState.load(from: url, displayPath: context.settings.inputs.statePath)
      for job in release.releases.map(\.job) {
        let now = current.customers[job.id]
        let ours = job.releaseNotes.recorded(after: read.customers[job.id], sourceDigest: job.digest.source)
        if now != read.customers[job.id] && now != ours, let now {
          throw StateError.changedMeanwhile(
            path: context.settings.inputs.statePath, customer: job.id, found: now.version.description,
            expected: job.version.description)
        }
        current.customers[job.id] = ours
      }
      try AtomicFile.produce(url) { temporary in
        try current.encoded().write(to: temporary)
        FaultPoint.reach("state.partial")
      }
      return current
    }
  }

  private func updatedState(_ results: RunResults) -> ReleaseState {
    var state = results.inputs.state
    for job in results.shipping.map(\.job) {
      state.customers[job.id] = job.releaseNotes.recorded(
        after: state.customers[job.id], sourceDigest: job.digest.source)
    }
    return state
  }
}
