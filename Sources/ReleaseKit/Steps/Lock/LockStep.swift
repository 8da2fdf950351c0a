import Foundation
import ReleaseSystem

/// Takes the run's locks before anything is written: one on the cache (build slots are
/// shared) and one on `dist/`. A second `release` on the same directories fails at once with
/// the holder's pid; the kernel frees the locks if a run dies.
struct LockStep: Step {
  let name = "lock"
  let changesState = true

  func dryRunDescription(_ context: ReleaseContext) -> [String] { [] }

  func run(_ context: ReleaseContext) throws {
    context.locks = [
      try FileLock(context.cacheDirectory.appendingPathComponent("release.lock")),
      try FileLock(context.distDirectory.appendingPathComponent(".release.lock")),
    ]
  }
}
