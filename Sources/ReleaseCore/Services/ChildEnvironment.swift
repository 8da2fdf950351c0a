import Foundation
import ReleaseSystem

/// The environment for child processes: the user's, minus anything that looks like a
/// credential, so a build log or a generated package's test can never echo a secret.
package enum ChildEnvironment {
  package static func withoutSecrets(_ environment: [String: String]) -> [String: String] {
    environment.filter { key, _ in !isSecret(key) }
  }

  static func isSecret(_ key: String) -> Bool {
    let upper = key.uppercased()
    return upper.hasPrefix("AWS_")
      || ["SECRET", "TOKEN", "PASSWORD", "CREDENTIAL", "PRIVATE_KEY", "SIGNING_KEY", "API_KEY"]
        .contains { upper.contains($0) }
  }
}

extension ProcessRunning {
  /// Runs `invocation` with TMPDIR set to a directory of its own, removed when the child ends
  /// (and with the run's other temporaries on an interrupt). The Swift toolchain's programs
  /// leave `TemporaryDirectory.*` folders in their temp dir on every call and never remove them
  /// (six for a warm `swift build`): on a CI machine that releases on every merge they would
  /// pile up in /tmp by the thousand.
  package func runWithOwnTemporaryDirectory(_ invocation: ProcessInvocation) throws -> ProcessResult {
    let directory = try TemporaryFiles.shared.makeDirectory(prefix: "release-child")
    defer {
      try? FileManager.default.removeItem(at: directory)
      TemporaryFiles.shared.unregister(directory)
    }
    var invocation = invocation
    var environment = invocation.environment ?? ProcessInfo.processInfo.environment
    environment["TMPDIR"] = directory.path
    invocation.environment = environment
    return try run(invocation)
  }
}
