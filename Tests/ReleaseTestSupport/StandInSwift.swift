import Foundation

/// A `swift` first on PATH whose `swift build` and `swift test` succeed without compiling
/// (`ProgramShims(compiles: false)`; every other call, `swift --version` included, runs the
/// real one), and a build cache of its own, so the shared warm slot never records a build that
/// did not happen. For end-to-end runs about what the tool does around a build (what it writes,
/// stages, publishes, refuses), where a real compile proves nothing the test checks: the
/// archive is the generated package, which the build does not change. Sendable: nothing in it
/// changes after `init` (a class fixture may keep one).
package final class StandInSwift: @unchecked Sendable {
  package let shims: ProgramShims
  package let cache: TemporaryDirectory

  package init() throws {
    shims = try ProgramShims(["swift"], compiles: false)
    cache = try TemporaryDirectory()
  }

  /// What a run's environment needs: the stand-in first on PATH.
  package var environment: [String: String] { ["PATH": shims.path] }

  /// `--cache` with the stand-in's own cache.
  package var cacheArguments: [String] { ["--cache", cache.url.path] }
}
