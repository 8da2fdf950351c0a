import Foundation
import ReleaseTestSupport

extension Workspace {
  /// `release <arguments>` in this process, as `run` does, but with `swift build` and `swift
  /// test` stood in for (`ProgramShims`, `compiles: false`) and the workspace's own cache
  /// (`.release-cache`), so the stand-in never leaves the shared build slots looking built.
  /// For tests that need a release's archive rather than a compiled package: the archive is
  /// the generated package either way, and the test's own real build of it (`release verify`,
  /// the over-the-air devices' probe) is what proves it compiles.
  package func runWithoutCompiling(_ arguments: [String], environment: [String: String] = [:]) throws -> Run {
    let shims = try ProgramShims(["swift"], compiles: false)
    defer { try? FileManager.default.removeItem(at: shims.directory) }
    return run(
      arguments + ["--cache", file(".release-cache").path],
      environment: environment.merging(["PATH": shims.path]) { $1 })
  }
}
