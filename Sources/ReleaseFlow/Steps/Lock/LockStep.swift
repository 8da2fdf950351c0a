import Foundation
import ReleasePipeline
import ReleaseSystem

/// Takes the run's locks before anything is written: one on the cache (build slots are
/// shared) and one on `dist/`. A second `release` on the same directories fails at once with
/// the holder's pid; the kernel frees the locks if a run dies. The run holds the returned
/// value to its end, and the build requires it.
struct LockStep: PhaseStep {
  let name = "lock"
  let changesState = true

  /// A dry run writes nothing, so it takes no lock; its build is only previewed.
  func notRun(_: Void, _ context: ReleaseContext) -> RunLock { RunLock(locks: []) }

  func run(_: Void, _ context: ReleaseContext) throws -> RunLock {
    let lock = RunLock(locks: [
      try FileLock(context.cacheDirectory.appendingPathComponent("release.lock")),
      try FileLock(context.distDirectory.appendingPathComponent(".release.lock")),
    ])
    // Under the locks no other run writes here: temporaries of dead runs (killed mid-way)
    // are leftovers, never read, and removed.
    let dist = context.distDirectory
    let customers = ((try? FileManager.default.contentsOfDirectory(atPath: dist.path)) ?? []).filter {
      !$0.hasPrefix(".")
    }
    for directory in [dist] + customers.map({ dist.appendingPathComponent($0) }) {
      AtomicFile.removeAbandonedTemporaries(in: directory)
    }
    let state = context.services.resolve(context.settings.inputs.statePath)
    AtomicFile.removeAbandonedTemporaries(in: state.deletingLastPathComponent(), of: state.lastPathComponent)
    return lock
  }
}
