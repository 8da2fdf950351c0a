import Foundation
import ReleaseTestSupport

extension Workspace {
  /// `release <arguments>` in this process, as `run` does, but with a `StandInSwift` first on
  /// PATH and the workspace's own cache (`.release-cache`), so the stand-in never leaves the
  /// shared build slots looking built, and the workspace's runs share their cache as a
  /// checkout's do. For tests that need a release's archive rather than a compiled package:
  /// the archive is the generated package either way, and the test's own real build of it
  /// (`release verify`, the over-the-air devices' probe) is what proves it compiles.
  package func runWithoutCompiling(_ arguments: [String], environment: [String: String] = [:]) throws -> Run {
    let swift = try StandInSwift()
    return run(
      arguments + ["--cache", file(".release-cache").path],
      environment: environment.merging(swift.environment) { $1 })
  }
}
