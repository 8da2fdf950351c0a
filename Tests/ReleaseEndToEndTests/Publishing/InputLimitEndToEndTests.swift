import Foundation
import ReleaseCLITestSupport
import ReleaseNetwork
import ReleaseSystem
import ReleaseTestSupport
import XCTest

@testable import ReleasePublishing

/// Issue 12, "names" and "S3 permissions": versions stay within what the state file reads back,
/// the region cannot inject a host, a session token never goes over plain http off this
/// machine, a git remote from the command line is never an option, and a 403 for a missing
/// object says which permission is missing. Each refusal is one line, exit 2, nothing written.
final class InputLimitEndToEndTests: XCTestCase {
  private func assertRefused(
    _ workspace: Workspace, _ arguments: [String], environment: [String: String] = [:], expected: String,
    file: StaticString = #filePath, line: UInt = #line
  ) {
    let before = Workspace.snapshot(workspace.root)
    let run = workspace.run(arguments, environment: environment)
    XCTAssertEqual(run.exitCode, 2, run.allOutput, file: file, line: line)
    XCTAssertTrue(run.standardError.last?.contains(expected) == true, run.allOutput, file: file, line: line)
    XCTAssertEqual(Workspace.snapshot(workspace.root), before, "nothing written", file: file, line: line)
  }

  /// A patch release past <sdk>.999999999 would write <sdk>.1000000000, which the state reader
  /// refuses: every later run would fail until the file is edited by hand (measured).
  func testAPatchReleaseBeyondTheLargestVersionIsRefusedBeforeAnythingIsWritten() throws {
    let largestPatch = "\(Workspace.sdk.major).\(Workspace.sdk.minor).999999999"
    let workspace = try Workspace(
      manifest: PublishFixtures.manifest,
      state: #"{"sdkVersion": "\#(Workspace.sdk)", "customers": "#
        + #"{"acme": {"version": "\#(largestPatch)", "sourceDigest": "old"}}}"#)
    assertRefused(
      workspace, ["all", "--skip-tests"],
      expected:
        "release-state.json: customers.acme: \(largestPatch) cannot take another patch release (each part has at most 9 digits); release a new SDK version (release bump minor)"
    )
    try #"{"sdkVersion": "2.999999999.0", "customers": {}}"#.write(
      to: workspace.file("release-state.json"), atomically: true, encoding: .utf8)
    assertRefused(
      workspace, ["bump", "minor"],
      expected:
        "release-state.json: sdkVersion 2.999999999.0 cannot take another minor release (each part has at most 9 digits)"
    )
  }

  func testARegionCannotInjectAHostAndATokenNeverGoesOverPlainHTTP() throws {
    let workspace = try Workspace(manifest: PublishFixtures.manifest)
    let keys = ["AWS_ACCESS_KEY_ID": "AKIDTEST", "AWS_SECRET_ACCESS_KEY": "secret-for-tests"]
    assertRefused(
      workspace, ["all", "--publish", "s3://bucket-one/sdk", "--s3-region", "us-east-1.evil.example/x"],
      environment: keys,
      expected:
        "--s3-region us-east-1.evil.example/x: not a region name; expected lower-case letters, digits and '-' (e.g. us-east-1, or auto for R2)"
    )
    assertRefused(
      workspace, ["all", "--publish", "s3://bucket-one/sdk", "--s3-endpoint", "http://s3.example.com"],
      environment: keys.merging(["AWS_SESSION_TOKEN": "temporary-token"]) { $1 },
      expected:
        "--s3-endpoint http://s3.example.com: plain http with AWS_SESSION_TOKEN set would send the token in clear text; use https (plain http only to 127.0.0.1, ::1 or localhost)"
    )
  }

  /// `127.attacker.example` starts like a loopback address but is anyone's host.
  func testATokenNeverGoesOverPlainHTTPToAHostThatOnlyLooksLikeLoopback() throws {
    let workspace = try Workspace(manifest: PublishFixtures.manifest)
    let keys = [
      "AWS_ACCESS_KEY_ID": "AKIDTEST", "AWS_SECRET_ACCESS_KEY": "secret-for-tests",
      "AWS_SESSION_TOKEN": "temporary-token",
    ]
    for endpoint in [
      "http://127.attacker.example", "http://localhost.attacker.example:9000", "http://2130706433",
    ] {
      assertRefused(
        workspace, ["all", "--publish", "s3://bucket-one/sdk", "--s3-endpoint", endpoint], environment: keys,
        expected:
          "--s3-endpoint \(endpoint): plain http with AWS_SESSION_TOKEN set would send the token in clear text; use https (plain http only to 127.0.0.1, ::1 or localhost)"
      )
    }
  }

  func testARemoteIsNeverAGitOption() throws {
    let workspace = try Workspace(manifest: PublishFixtures.manifest)
    for remote in ["--upload-pack=touch /tmp/pwned", "-x", ""] {
      assertRefused(
        workspace, ["all", "--tag", "--push", "--remote", remote],
        expected: "--remote \(remote): not a git remote name or URL; expected e.g. origin")
    }
  }

  /// S3 answers 403 rather than 404 for a missing key to credentials without s3:ListBucket.
  /// An S3 store whose every request is answered 403 with `code` (S3's error document).
  private func storeAnsweringForbidden(_ code: String, _ message: String) throws -> ObjectStore {
    struct Forbidden: HTTPClient {
      let code: String
      let message: String
      func send(_ request: HTTPRequest) throws -> HTTPResponse {
        throw NetworkError.unexpectedStatus(
          method: request.method.rawValue, url: request.url.absoluteString, status: 403, expected: "2xx",
          serverCode: code, serverMessage: message, attempts: 1)
      }
    }
    return try S3ObjectStore.make(
      bucket: "bucket-one", prefix: "sdk", endpoint: "http://127.0.0.1:9", region: nil, baseURL: nil,
      environment: ["AWS_ACCESS_KEY_ID": "AKIDTEST", "AWS_SECRET_ACCESS_KEY": "secret-for-tests"],
      http: Forbidden(code: code, message: message))
  }

  func testAForbiddenReadOfAMissingObjectNamesThePermission() throws {
    let store = try storeAnsweringForbidden("AccessDenied", "Access Denied")
    let expected =
      "s3://bucket-one/sdk/index.json: access denied (403) reading it. If it does not exist yet, S3 answers 403 instead of 404 to credentials without s3:ListBucket on the bucket: grant s3:ListBucket, s3:GetObject and s3:PutObject to these keys"
    XCTAssertThrowsError(try store.read("index.json")) { XCTAssertEqual("\($0)", expected) }
    XCTAssertThrowsError(try store.digest(of: "index.json")) { XCTAssertEqual("\($0)", expected) }
  }

  /// A 403 that names its own cause (a wrong secret, a clock off by minutes) is that cause,
  /// not a missing permission: the message must not send the user to the bucket policy.
  func testAForbiddenAnswerWithItsOwnCauseIsReportedAsIs() throws {
    let store = try storeAnsweringForbidden("SignatureDoesNotMatch", "The signature does not match")
    for attempt in [{ _ = try store.read("index.json") }, { _ = try store.digest(of: "index.json") }] {
      XCTAssertThrowsError(try attempt()) {
        XCTAssertTrue("\($0)".contains("HTTP 403"), "\($0)")
        XCTAssertTrue("\($0)".contains("SignatureDoesNotMatch"), "\($0)")
        XCTAssertFalse("\($0)".contains("ListBucket"), "\($0)")
      }
    }
  }
}
