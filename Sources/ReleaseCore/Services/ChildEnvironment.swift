import Foundation

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
