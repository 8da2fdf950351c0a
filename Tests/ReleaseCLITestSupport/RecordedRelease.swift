import Foundation
import ReleaseSystem
import ReleaseTestSupport

/// A customer release built once per test process (`release customer … --skip-tests` in a
/// workspace), whose `dist/` and `release-state.json` later workspaces copy: they then hold a
/// recorded, up-to-date release without building it again.
package final class RecordedRelease: Sendable {
  package let workspace: Workspace
  package let customers: [String]

  private static let built = Locked<[String: Result<RecordedRelease, Error>]>([:])

  /// The release of `customers` (default manifest), built on first use.
  package static func of(_ customers: [String]) throws -> RecordedRelease {
    let key = customers.joined(separator: " ")
    return try built.withLock { built in
      if built[key] == nil {
        built[key] = Result { try RecordedRelease(customers) }
        if built.count == 1 {
          atexit {
            for case .success(let release) in RecordedRelease.built.value.values {
              try? FileManager.default.removeItem(at: release.workspace.root)
            }
          }
        }
      }
      return built[key]!
    }.get()
  }

  private init(_ customers: [String]) throws {
    self.customers = customers
    workspace = try Workspace()
    let run = workspace.run(["customer"] + customers + ["--skip-tests"], environment: TestGit.environment)
    guard run.exitCode == 0 else {
      throw GitSetupError(
        description: "building \(customers) failed (exit \(run.exitCode)):\n\(run.allOutput)")
    }
  }

  /// A new workspace with this release's dist/ and state file, committed in a new git
  /// repository (dist/ ignored): a clean checkout that records the release.
  package func checkout() throws -> Workspace {
    let copy = try Workspace()
    try FileManager.default.copyItem(at: workspace.dist, to: copy.dist)
    try? FileManager.default.removeItem(at: copy.dist.appendingPathComponent(".release.lock"))
    try FileManager.default.removeItem(at: copy.file("release-state.json"))
    try FileManager.default.copyItem(
      at: workspace.file("release-state.json"), to: copy.file("release-state.json"))
    try TestGit.initialize(copy.root)
    return copy
  }
}
