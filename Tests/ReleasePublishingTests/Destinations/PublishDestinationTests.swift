import Foundation
import ReleaseSystem
import ReleaseTestSupport
import XCTest

@testable import ReleaseCore
@testable import ReleasePublishing

/// Destinations and S3 settings as parsed and resolved, without a server: public URLs,
/// regions, endpoints, and credential errors that name the variable and never its value.
final class PublishDestinationTests: XCTestCase {
  let credentials = [
    "AWS_ACCESS_KEY_ID": "AKIAEXAMPLE", "AWS_SECRET_ACCESS_KEY": "secret-\(UUID().uuidString)",
  ]

  func store(
    _ text: String, endpoint: String? = nil, region: String? = nil, publicURL: String? = nil,
    audience: StoreAudience = .customers, environment: [String: String]
  ) throws -> S3ObjectStore {
    let destination = try PublishDestination.parse(
      text, s3Endpoint: endpoint, region: region, baseURL: publicURL)
    guard case .s3(let bucket, let prefix, let endpoint, let region, let baseURL, _) = destination else {
      throw PublishSetupError(description: "\(text) did not parse as s3")
    }
    let made = try S3ObjectStore.make(
      bucket: bucket, prefix: prefix, endpoint: endpoint, region: region, baseURL: baseURL,
      environment: environment, audience: audience, http: TestHTTP.Unreachable())
    return try XCTUnwrap(made as? S3ObjectStore)
  }

  func testPublicURLsRegionsAndKeys() throws {
    // AWS S3 by default, in the region from the environment, path-style.
    let aws = try store(
      "s3://releases/sdk/", environment: credentials.merging(["AWS_REGION": "eu-west-1"]) { $1 })
    XCTAssertEqual(aws.client.region, "eu-west-1")
    XCTAssertEqual(
      aws.publicURL(for: "artifacts/a/1.0.0/A.zip"),
      "https://s3.eu-west-1.amazonaws.com/releases/sdk/artifacts/a/1.0.0/A.zip")
    XCTAssertEqual(aws.key("index.json"), "sdk/index.json")
    XCTAssertEqual(aws.displayName, "s3://releases/sdk")

    // An explicit endpoint and region (R2) and a public URL for a CDN in front of the
    // over-the-air prefix, which devices read.
    let r2 = try store(
      "s3://releases", endpoint: "https://acct.r2.cloudflarestorage.com/", region: "auto",
      publicURL: "https://sdk.example.com/", audience: .devices, environment: credentials)
    XCTAssertEqual(r2.client.region, "auto")
    XCTAssertEqual(r2.client.endpoint.absoluteString, "https://acct.r2.cloudflarestorage.com/")
    XCTAssertEqual(r2.publicURL(for: "index.json"), "https://sdk.example.com/index.json")
    XCTAssertEqual(r2.key("index.json"), "index.json")
    XCTAssertEqual(r2.audience.immutableCacheControl, "public, max-age=31536000, immutable")

    // A release destination is private: its indexes name the objects' S3 URLs, whatever the
    // public URL, and nothing it writes is marked public.
    let releases = try store(
      "s3://releases/sdk", endpoint: "https://acct.r2.cloudflarestorage.com/", region: "auto",
      publicURL: "https://sdk.example.com/", environment: credentials)
    XCTAssertEqual(
      releases.publicURL(for: "index.json"), "https://acct.r2.cloudflarestorage.com/releases/sdk/index.json")
    XCTAssertEqual(releases.audience.immutableCacheControl, "private, max-age=31536000, immutable")
    XCTAssertEqual(releases.audience.mutableCacheControl, "private, no-cache")

    let fallback = try store("s3://releases/a/b", environment: credentials)
    XCTAssertEqual(fallback.client.region, "us-east-1")
    XCTAssertEqual(fallback.key("x"), "a/b/x")
  }

  func testBadSettingsAreUsageErrorsNamingTheArgument() throws {
    let cases: [(String, String?, String?, String)] = [
      ("s3://releases/a//b", nil, nil, "--publish s3://releases/a//b: the prefix may not have empty"),
      (
        "s3://releases/a/../b", nil, nil,
        "--publish s3://releases/a/../b: the prefix may not have empty, '.' or '..'"
      ),
      (
        "s3://releases", "ftp://example.com", nil,
        "--s3-endpoint ftp://example.com: use an http or https URL"
      ),
      (
        "s3://releases", nil, "sdk.example.com", "--public-url sdk.example.com: expected an http or https URL"
      ),
    ]
    for (text, endpoint, publicURL, expected) in cases {
      XCTAssertThrowsError(
        try store(text, endpoint: endpoint, publicURL: publicURL, environment: credentials), text
      ) {
        guard case ReleaseError.usage(let message) = $0 else { return XCTFail("\(text): \($0)") }
        XCTAssertTrue(message.hasPrefix(expected), message)
      }
    }
  }

  func testMissingCredentialsNameTheVariableNeverAValue() throws {
    for (name, environment) in [
      ("AWS_ACCESS_KEY_ID", ["AWS_SECRET_ACCESS_KEY": credentials["AWS_SECRET_ACCESS_KEY"]!]),
      ("AWS_SECRET_ACCESS_KEY", ["AWS_ACCESS_KEY_ID": "AKIAEXAMPLE", "AWS_SECRET_ACCESS_KEY": ""]),
    ] {
      XCTAssertThrowsError(try store("s3://releases/sdk", environment: environment)) { error in
        guard case ReleaseError.invalidInput(let message) = error else { return XCTFail("\(error)") }
        XCTAssertEqual((error as? ReleaseError)?.exitCode, 2)
        XCTAssertTrue(message.hasPrefix("--publish s3://releases/sdk: \(name) is not set"), message)
        XCTAssertFalse(message.contains(credentials["AWS_SECRET_ACCESS_KEY"]!), message)
        XCTAssertEqual(message.split(separator: "\n").count, 1)
      }
    }
    // The store never shows the secret, whatever prints it.
    let made = try store("s3://releases/sdk", environment: credentials)
    var dumped = ""
    dump(made, to: &dumped)
    XCTAssertFalse(
      "\(made) \(String(reflecting: made)) \(dumped)".contains(credentials["AWS_SECRET_ACCESS_KEY"]!))
  }
}
