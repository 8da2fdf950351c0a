import Foundation
import ReleaseSystem
import ReleaseTestSupport

/// One `release all --skip-tests` run of the two fixture customers per test process, with
/// planted AWS secrets in its environment, made without compiling (`runWithoutCompiling`):
/// its tests are about what the tool publishes, stages, refuses or prints around a release, and
/// the archive is the generated package either way. Tests copy its `dist/` instead of running
/// again.
package final class BuiltFixture: Sendable {
  package let workspace: Workspace
  package let run: Workspace.Run

  package static let shared: Result<BuiltFixture, Error> = Result {
    let fixture = try BuiltFixture()
    // Static, so never deinitialised: remove its workspace when the test process exits.
    atexit {
      if case .success(let fixture) = BuiltFixture.shared {
        try? FileManager.default.removeItem(at: fixture.workspace.root)
      }
    }
    return fixture
  }

  private init() throws {
    workspace = try Workspace(manifest: PublishFixtures.manifest)
    run = try workspace.runWithoutCompiling(
      ["all", "--skip-tests", "--json"],
      environment: [
        "AWS_ACCESS_KEY_ID": "AKIAPLANTEDFORTESTS", "AWS_SECRET_ACCESS_KEY": PublishFixtures.plantedSecret,
        "AWS_SESSION_TOKEN": PublishFixtures.plantedToken,
      ])
    guard run.exitCode == 0 else {
      throw PublishSetupError(description: "fixture build failed (exit \(run.exitCode)):\n\(run.allOutput)")
    }
  }

  /// A new workspace holding a copy of the fixture's dist/ (so every customer is up to date),
  /// as a git repository with one commit (publishing runs tag it).
  package func copy() throws -> Workspace {
    let copy = try Workspace(manifest: PublishFixtures.manifest)
    try FileManager.default.copyItem(at: workspace.dist, to: copy.dist)
    try? FileManager.default.removeItem(at: copy.dist.appendingPathComponent(".release.lock"))
    try GitFixture.commitAll(copy.root)
    return copy
  }
}
