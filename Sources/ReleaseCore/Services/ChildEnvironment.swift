import Foundation
import ReleaseSystem

/// The environment for child processes: the user's, minus anything that looks like a
/// credential (`SecretEnvironment.isSecret`: by its name, or a URL with user info), so a build
/// log or a generated package's test can never echo a secret.
package enum ChildEnvironment {
  package static func withoutSecrets(_ environment: [String: String]) -> [String: String] {
    environment.filter { !SecretEnvironment.isSecret(name: $0.key, value: $0.value) }
  }
}
