import Foundation
import ReleaseCLITestSupport
import ReleaseSystem
import ReleaseTestSupport
import XCTest

/// A refused value names where it came from: the flag that gave it, or the release.config.json
/// key, since a message naming a flag nobody typed sends the reader to the wrong place (issue 12
/// audit). Each refusal is one line, exit 2, nothing written, no secret printed.
final class SettingOriginTests: XCTestCase {
  private let secret = "SECRET-\(UUID().uuidString.prefix(8))"
  private let keys = [
    "AWS_ACCESS_KEY_ID": "AKIDTEST", "AWS_SECRET_ACCESS_KEY": "secret-for-tests",
    "AWS_SESSION_TOKEN": "temporary-token",
  ]

  private func assertRefused(
    _ arguments: [String], config: String? = nil, environment: [String: String] = [:], expected: String,
    file: StaticString = #filePath, line: UInt = #line
  ) throws {
    let workspace = try Workspace(manifest: PublishFixtures.manifest)
    if let config {
      try config.write(to: workspace.file("release.config.json"), atomically: true, encoding: .utf8)
    }
    let before = Workspace.snapshot(workspace.root)
    let run = workspace.run(arguments, environment: environment)
    XCTAssertEqual(run.exitCode, 2, run.allOutput, file: file, line: line)
    XCTAssertEqual(run.standardError.count, 1, run.allOutput, file: file, line: line)
    XCTAssertEqual(run.standardError.first, "error: " + expected, run.allOutput, file: file, line: line)
    XCTAssertFalse(
      run.allOutput.contains(secret), "the secret was printed: \(run.allOutput)", file: file, line: line)
    XCTAssertEqual(Workspace.snapshot(workspace.root), before, "nothing written", file: file, line: line)
  }

  func testRefusedConfigurationValuesNameTheirKey() throws {
    try assertRefused(
      ["all", "--publish", "dir:out"],
      config: #"{"publish": {"publicURL": "https://user:\#(secret)@cdn.example/sdk"}}"#,
      expected:
        "release.config.json: publish.publicURL: https://user:***@cdn.example/sdk: a credential in a URL ends up in every package and index; serve the destination without one"
    )
    try assertRefused(
      ["all"], config: #"{"models": "https://\#(secret)@models.example/store"}"#,
      expected:
        "release.config.json: models: https://***@models.example/store: a credential in a URL shows in the process list and in messages; a model store URL must not carry one (use s3:// with the AWS_* variables for a private store)"
    )
    try assertRefused(
      ["all"], config: #"{"models": "http://models.example.com/store"}"#,
      expected:
        "release.config.json: models: http://models.example.com/store: plain http only to 127.0.0.1, ::1 or localhost; a model store elsewhere must be https"
    )
    try assertRefused(
      ["all", "--publish", "s3://bucket-one/sdk"],
      config: #"{"publish": {"s3Endpoint": "http://s3.example.com"}}"#,
      environment: keys,
      expected:
        "release.config.json: publish.s3Endpoint: http://s3.example.com: plain http with AWS_SESSION_TOKEN set would send the token in clear text; use https (plain http only to 127.0.0.1, ::1 or localhost)"
    )
    try assertRefused(
      ["all", "--publish", "s3://bucket-one/sdk"],
      config: #"{"publish": {"s3Region": "us-east-1.evil.example/x"}}"#,
      environment: keys,
      expected:
        "release.config.json: publish.s3Region: us-east-1.evil.example/x: not a region name; expected lower-case letters, digits and '-' (e.g. us-east-1, or auto for R2)"
    )
    try assertRefused(
      ["all", "--publish", "s3://bucket-one/sdk"],
      config: #"{"publish": {"publicURL": "ftp://cdn.example/sdk"}}"#,
      environment: keys,
      expected:
        "release.config.json: publish.publicURL: ftp://cdn.example/sdk: expected an http or https URL, e.g. https://sdk.example.com/releases"
    )
    // The environment's region is named as such.
    try assertRefused(
      ["all", "--publish", "s3://bucket-one/sdk"],
      environment: keys.merging(["AWS_REGION": "us-east-1.evil.example"]) { $1 },
      expected:
        "AWS_REGION us-east-1.evil.example: not a region name; expected lower-case letters, digits and '-' (e.g. us-east-1, or auto for R2)"
    )
  }

  /// S3 credentials come from the environment only: an endpoint carrying one is refused, and
  /// the secret is not printed.
  func testAnEndpointWithACredentialIsRefused() throws {
    let expected =
      "https://AK:***@s3.example.com: a credential in a URL shows in the process list and in messages; S3 credentials come from AWS_ACCESS_KEY_ID and AWS_SECRET_ACCESS_KEY (and AWS_SESSION_TOKEN)"
    try assertRefused(
      ["all", "--publish", "s3://bucket-one/sdk", "--s3-endpoint", "https://AK:\(secret)@s3.example.com"],
      environment: keys, expected: "--s3-endpoint " + expected)
    try assertRefused(
      ["all", "--publish", "s3://bucket-one/sdk"],
      config: #"{"publish": {"s3Endpoint": "https://AK:\#(secret)@s3.example.com"}}"#, environment: keys,
      expected: "release.config.json: publish.s3Endpoint: " + expected)
  }
}
