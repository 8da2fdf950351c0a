import Foundation
import ReleaseNetwork
import XCTest

final class S3CredentialsTests: XCTestCase {
  private let secret = "PLANTED-SECRET-credentials-51a0"
  private let token = "PLANTED-TOKEN-credentials-77c2"

  func testEveryRenderingRedactsSecretAndToken() throws {
    let credentials = S3Credentials(accessKeyID: "AKIDEXAMPLE", secretAccessKey: secret, sessionToken: token)
    var dumped = ""
    dump(credentials, to: &dumped)
    let client = try S3Client(
      endpoint: URL(string: "https://example.r2.cloudflarestorage.com")!, bucket: "releases", region: "auto",
      credentials: credentials)
    var dumpedClient = ""
    dump(client, to: &dumpedClient)
    let renderings = [
      "\(credentials)", String(describing: credentials), String(reflecting: credentials), dumped,
      "\(client)", String(reflecting: client), dumpedClient, "\([credentials])",
    ]
    for rendering in renderings {
      XCTAssertFalse(rendering.contains(secret), rendering)
      XCTAssertFalse(rendering.contains(token), rendering)
    }
    XCTAssertEqual(
      "\(credentials)",
      "S3Credentials(accessKeyID: AKIDEXAMPLE, secretAccessKey: <redacted>, sessionToken: <redacted>)")
  }

  func testReadsTheStandardVariables() throws {
    let credentials = try S3Credentials.fromEnvironment([
      "AWS_ACCESS_KEY_ID": "AKIDEXAMPLE", "AWS_SECRET_ACCESS_KEY": secret, "AWS_SESSION_TOKEN": "",
    ])
    XCTAssertEqual(credentials.accessKeyID, "AKIDEXAMPLE")
    XCTAssertEqual("\(credentials)", "S3Credentials(accessKeyID: AKIDEXAMPLE, secretAccessKey: <redacted>)")
  }

  func testMissingVariableIsNamed() {
    XCTAssertThrowsError(try S3Credentials.fromEnvironment(["AWS_ACCESS_KEY_ID": "AKIDEXAMPLE"])) { error in
      XCTAssertEqual(error as? NetworkError, .missingEnvironmentVariable(name: "AWS_SECRET_ACCESS_KEY"))
    }
    XCTAssertThrowsError(try S3Credentials.fromEnvironment(["AWS_SECRET_ACCESS_KEY": secret])) { error in
      XCTAssertEqual(error as? NetworkError, .missingEnvironmentVariable(name: "AWS_ACCESS_KEY_ID"))
      XCTAssertFalse("\(error)".contains(secret))
    }
  }

  func testRegionPrefersAWSRegion() {
    let both = S3Credentials.region(fromEnvironment: [
      "AWS_REGION": "eu-west-1", "AWS_DEFAULT_REGION": "us-east-1",
    ])
    XCTAssertEqual(both?.region, "eu-west-1")
    XCTAssertEqual(both?.variable, "AWS_REGION")
    let older = S3Credentials.region(fromEnvironment: ["AWS_DEFAULT_REGION": "us-east-1"])
    XCTAssertEqual(older?.region, "us-east-1")
    XCTAssertEqual(older?.variable, "AWS_DEFAULT_REGION")
    XCTAssertNil(S3Credentials.region(fromEnvironment: [:]))
  }

  func testEndpointsAndBucketsAreValidated() {
    let credentials = S3Credentials(accessKeyID: "AKIDEXAMPLE", secretAccessKey: secret)
    func client(_ endpoint: String, _ bucket: String = "releases") throws -> S3Client {
      try S3Client(endpoint: URL(string: endpoint)!, bucket: bucket, region: "auto", credentials: credentials)
    }
    XCTAssertThrowsError(try client("ftp://example.com"))
    XCTAssertThrowsError(try client("https://user:\(secret)@example.com")) { error in
      XCTAssertFalse("\(error)".contains(secret), "\(error)")
    }
    XCTAssertThrowsError(try client("https://example.com", "Upper")) { error in
      XCTAssertEqual(error as? NetworkError, .invalidBucketName(name: "Upper"))
    }
    XCTAssertThrowsError(try client("https://example.com", "ab"))
    XCTAssertEqual(
      try client("https://example.com/").url(for: "sdk/1.0.0/sdk.zip").absoluteString,
      "https://example.com/releases/sdk/1.0.0/sdk.zip")
  }

  func testURLsInMessagesLoseUserInfoAndQueryValues() {
    let url = URL(string: "https://user:pw@example.com/b/k?X-Amz-Signature=abc&versionId=1")!
    XCTAssertEqual(
      NetworkError.displayString(for: url),
      "https://example.com/b/k?X-Amz-Signature=redacted&versionId=redacted")
  }
}
