import Foundation
import XCTest

@testable import ReleaseSystem

#if canImport(Glibc)
  import Glibc
#elseif canImport(Darwin)
  import Darwin
#endif

/// Which variables count as secrets, and what taking the environment does to the process: a
/// secret's bytes are overwritten where they were, not only unlinked from `environ`, which is
/// what `/proc/<pid>/environ` of another process would still show.
final class SecretEnvironmentTests: XCTestCase {
  func testSecretsAreNamedByTheirNameOrByACredentialInAURL() {
    let secrets = [
      ("AWS_SECRET_ACCESS_KEY", "x"), ("AWS_ACCESS_KEY_ID", "x"), ("aws_session_token", "x"),
      ("RELEASE_SIGNING_KEY", "x"), ("GITHUB_TOKEN", "x"), ("NPM_API_KEY", "x"), ("DB_PASSWORD", "x"),
      ("MODELS_URL", "https://user:pass@models.example/store"), ("MIRROR", "https://token@host/r.git"),
      ("DATABASE_URL", "postgres://app:pass@db.example/app"), ("URLS", "x https://a@b.example y"),
      // libcurl's proxies get them from the run (CurlProxies), not from the process.
      ("https_proxy", "http://user:pass@proxy.example:3128"), ("HTTPS_PROXY", "http://token@proxy.example"),
      ("all_proxy", "socks5://user:pass@proxy.example:1080"),
    ]
    for (name, value) in secrets {
      XCTAssertTrue(SecretEnvironment.isSecret(name: name, value: value), name)
    }
    let plain = [
      ("PATH", "/usr/bin:/bin"), ("HOME", "/root"), ("PUBLIC_URL", "https://cdn.example/ota"),
      ("GIT_REMOTE", "git@github.com:org/repo.git"), ("EMAIL", "a@example.com"),
      ("RELEASES_REMOTE", "ssh://git@github.com/org/releases.git"),
      ("https_proxy", "http://proxy.example:3128"), ("no_proxy", "localhost,127.0.0.1,.internal.example"),
    ]
    for (name, value) in plain {
      XCTAssertFalse(SecretEnvironment.isSecret(name: name, value: value), name)
    }
  }

  func testTakingTheEnvironmentOverwritesASecretWhereItWas() throws {
    let name = "RELEASE_TEST_SCRUB_\(UInt32.random(in: 0...UInt32.max))"
    let value = "RELEASE-TEST-SECRET-\(UUID().uuidString)"
    XCTAssertEqual(setenv(name, value, 1), 0)
    let entry = try XCTUnwrap(getenv(name))
    let length = strlen(entry)
    XCTAssertEqual(length, value.utf8.count)

    let taken = SecretEnvironment.take(keepingSecrets: true) { variable, _ in variable == name }
    XCTAssertEqual(taken[name], value, "the run still has the value it read")
    XCTAssertNil(getenv(name), "gone from environ")
    XCTAssertNil(ProcessInfo.processInfo.environment[name])
    XCTAssertEqual(taken["PATH"], ProcessInfo.processInfo.environment["PATH"], "other variables stay")
    #if os(Linux)
      // glibc never frees a string setenv made, so the old bytes can be looked at.
      XCTAssertTrue((0..<length).allSatisfy { entry[$0] == 0 }, "the secret's bytes were overwritten")
    #endif
  }

  func testWithoutSecretsTheValueIsNeverReturned() {
    let name = "RELEASE_TEST_SCRUB_\(UInt32.random(in: 0...UInt32.max))"
    XCTAssertEqual(setenv(name, "RELEASE-TEST-SECRET", 1), 0)
    let taken = SecretEnvironment.take(keepingSecrets: false) { variable, _ in variable == name }
    XCTAssertNil(taken[name])
    XCTAssertNil(getenv(name))
    XCTAssertNotNil(taken["PATH"])
  }
}
