import Testing

@testable import ReleaseKit

/// A private signing key in the environment (`RELEASE_SIGNING_KEY`, or any `…_SIGNING_KEY`)
/// must never reach a child process: `swift build` logs, a generated package's tests and git
/// hooks all run with `ChildEnvironment.withoutSecrets`.
///
/// Known issue until `ChildEnvironment.isSecret` (Steps/Build/SwiftBuildStep.swift) also
/// matches names ending in `_SIGNING_KEY`; when it does, `withKnownIssue` fails here: remove
/// the wrapper then.
@Suite struct ChildEnvironmentSigningKeyTests {
  @Test func signingKeyVariablesAreDropped() {
    withKnownIssue("ChildEnvironment.isSecret does not match *_SIGNING_KEY yet (SwiftBuildStep.swift)") {
      let environment = [
        "RELEASE_SIGNING_KEY": "-----BEGIN PRIVATE KEY-----", "OTA_SIGNING_KEY": "x",
        "release_signing_key": "x",
        "PATH": "/usr/bin",
      ]
      #expect(ChildEnvironment.withoutSecrets(environment) == ["PATH": "/usr/bin"])
    }
  }

  @Test func otherVariablesStay() {
    let environment = ["PATH": "/usr/bin", "SIGNING_KEYCHAIN": "login", "HOME": "/root"]
    #expect(ChildEnvironment.withoutSecrets(environment) == environment)
  }
}
