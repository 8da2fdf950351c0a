import ReleaseTestSupport
import XCTest

@testable import ReleaseCore

/// What a child process (`swift`, `git`) inherits: the user's environment minus anything that
/// looks like a credential, the signing key included (RELEASE_SIGNING_KEY holds private keys).
final class ChildEnvironmentTests: XCTestCase {
  func testCredentialsAndSigningKeysAreDroppedAndTheRestIsKept() {
    let secrets = [
      "AWS_SECRET_ACCESS_KEY", "AWS_SESSION_TOKEN", "GITHUB_TOKEN", "DB_PASSWORD", "NPM_API_KEY",
      "SSH_PRIVATE_KEY", "RELEASE_SIGNING_KEY", "OTA_SIGNING_KEY", "release_signing_key",
    ]
    let kept = ["PATH", "HOME", "LANG", "SOURCE_DATE_EPOCH", "GITHUB_ACTIONS", "SWIFT_EXEC"]
    var environment: [String: String] = [:]
    for name in secrets + kept { environment[name] = "value of \(name)" }

    let child = ChildEnvironment.withoutSecrets(environment)

    XCTAssertEqual(Set(child.keys), Set(kept), "secrets: \(secrets.filter { child[$0] != nil })")
    for name in kept { XCTAssertEqual(child[name], environment[name]) }
  }
}
