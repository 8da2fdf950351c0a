import Foundation
import ReleaseCLITestSupport
import ReleaseFlow
import ReleaseGeneration
import ReleaseSystem
import ReleaseTestSupport
import XCTest

@testable import ReleaseCLI
@testable import ReleasePipeline

/// `release share` against moto: links to the published objects with the requested expiry and
/// a signature botocore computes the same, that download the zip's bytes; refusals in one line.
final class ShareCommandEndToEndTests: XCTestCase {
  nonisolated(unsafe) private static var server: Result<Moto, Error>?
  /// The bucket holding the published fixture, made once for the class: `share` only reads
  /// it (the first test checks that it changes nothing).
  nonisolated(unsafe) private static var published: Result<String, Error>?
  private var moto: Moto!
  private var bucket = ""
  private var directory: TemporaryDirectory!
  private var root: URL { directory.url }
  /// The published bytes of acme 2.4.1's zip and its signature.
  private let zip = Data((0..<20_000).map { UInt8(truncatingIfNeeded: $0 &* 7 &+ 3) })
  private let signature = Data("-----BEGIN SSH SIGNATURE-----\nU1NIU0lH\n-----END SSH SIGNATURE-----\n".utf8)

  override class func tearDown() {
    if case .success(let moto) = server { moto.shutDown() }
    server = nil
    published = nil
  }

  override func setUpWithError() throws {
    if Self.server == nil { Self.server = Result { try Moto(checkingSignatures: false) } }
    moto = try Self.server!.get()
    if Self.published == nil {
      Self.published = Result {
        bucket = try moto.makeBucket()
        try publishFixture()
        return bucket
      }
    }
    bucket = try Self.published!.get()
    directory = try TemporaryDirectory()
    try write(
      "release.config.json",
      #"{"publish": {"destinations": ["dir:out", "s3://\#(bucket)/sdk"], "s3Endpoint": "\#(moto.endpoint)"}}"#
    )
    try write(
      "release-state.json",
      #"{"sdkVersion": "1.0.0", "customers": {"acme": {"version": "2.4.1", "sourceDigest": "x"}, "bluebird": {"version": "1.0.0", "sourceDigest": "y"}}}"#
    )
  }

  override func tearDown() {
    directory = nil
  }

  private func write(_ path: String, _ text: String) throws {
    try text.write(to: root.appendingPathComponent(path), atomically: true, encoding: .utf8)
  }

  /// acme 2.4.0 (published before signing: no .sig) and 2.4.1 (signed), laid out as the
  /// publisher lays them out below the prefix `sdk`, with the index the publisher writes.
  private func publishFixture() throws {
    func version(_ version: String, sha256: String, size: Int) -> CustomerIndex.Version {
      CustomerIndex.Version(
        version: version, sdkVersion: "1.0.0", minimumSDKVersion: "1.0.0",
        url: "https://sdk.example.com/sdk/artifacts/acme/\(version)/ContextSDK_Acme-\(version).zip",
        sha256: sha256,
        size: Int64(size), models: [], releaseNotes: nil)
    }
    let old = Data("old release".utf8)
    let index = CustomerIndex(
      id: "acme", name: "Acme", packageName: "ContextSDK_Acme", latest: "2.4.1",
      versions: [
        version("2.4.0", sha256: SHA256Digest.hex(of: old), size: old.count),
        version("2.4.1", sha256: SHA256Digest.hex(of: zip), size: zip.count),
      ])
    try moto.put(bucket, "sdk/customers/acme/index.json", try StableJSON.encode(index))
    try moto.put(bucket, "sdk/artifacts/acme/2.4.0/ContextSDK_Acme-2.4.0.zip", old)
    try moto.put(bucket, "sdk/artifacts/acme/2.4.1/ContextSDK_Acme-2.4.1.zip", zip)
    try moto.put(bucket, "sdk/artifacts/acme/2.4.1/ContextSDK_Acme-2.4.1.zip.sig", signature)
  }

  private func share(_ arguments: [String], environment: [String: String] = [:]) -> InProcessCLI.Run {
    InProcessCLI.run(
      ["share"] + arguments, root: root, environment: moto.credentials.merging(environment) { $1 })
  }

  private func download(_ url: String) throws -> Data {
    let file = root.appendingPathComponent("download-\(UUID().uuidString)")
    let result = try SystemProcessRunner().run(ProcessInvocation("curl", ["-sSf", "-o", file.path, url]))
    guard result.exitCode == 0 else {
      throw PublishSetupError(description: "curl \(url): \(result.standardError)")
    }
    return try Data(contentsOf: file)
  }

  func testLinksCarryTheExpiryAndAnIndependentlyComputedSignatureAndDownloadTheZip() throws {
    let before = try moto.listing(bucket)
    let started = Date()
    let result = share(["acme", "--expires", "36h", "--json"])
    XCTAssertEqual(result.code, 0, result.allOutput)
    XCTAssertEqual(result.standardOutput.count, 1, result.allOutput)
    let json = try jsonObject(Data(result.standardOutput[0].utf8), "share --json")
    XCTAssertEqual(json["customer"] as? String, "acme")
    XCTAssertEqual(json["version"] as? String, "2.4.1", "the version of release-state.json")
    let urls = try XCTUnwrap(json["urls"] as? [String: Any])
    XCTAssertEqual(Set(urls.keys), ["zip", "signature", "index"])

    let paths = [
      "zip": "/\(bucket)/sdk/artifacts/acme/2.4.1/ContextSDK_Acme-2.4.1.zip",
      "signature": "/\(bucket)/sdk/artifacts/acme/2.4.1/ContextSDK_Acme-2.4.1.zip.sig",
      "index": "/\(bucket)/sdk/customers/acme/index.json",
    ]
    var signingDate: Date?
    for (name, path) in paths {
      let url = try XCTUnwrap(urls[name] as? String, name)
      XCTAssertTrue(url.hasPrefix(moto.endpoint + path + "?"), "\(name): \(url)")
      let query = try queryParameters(url)
      XCTAssertEqual(query["X-Amz-Expires"], "129600", "\(name): 36 hours")
      XCTAssertEqual(query["X-Amz-Algorithm"], "AWS4-HMAC-SHA256")
      XCTAssertEqual(query["X-Amz-SignedHeaders"], "host")
      XCTAssertTrue(query["X-Amz-Credential"]?.hasPrefix("\(Moto.openAccessKeyID)/") == true)
      XCTAssertNil(query["X-Amz-Security-Token"])
      XCTAssertEqual(
        query["X-Amz-Signature"], try BotocorePresigner.signature(for: url), "\(name): botocore agrees")
      let formatter = DateFormatter()
      formatter.locale = Locale(identifier: "en_US_POSIX")
      formatter.timeZone = TimeZone(identifier: "UTC")
      formatter.dateFormat = "yyyyMMdd'T'HHmmss'Z'"
      signingDate = try XCTUnwrap(formatter.date(from: query["X-Amz-Date"] ?? ""))
    }
    // The signing time is now, and `expires` is 36 hours after it.
    let signed = try XCTUnwrap(signingDate)
    XCTAssertLessThanOrEqual(abs(signed.timeIntervalSince(started)), 5)
    XCTAssertEqual(json["expires"] as? String, ShareLinks.timestamp(signed.addingTimeInterval(36 * 3600)))

    XCTAssertEqual(
      try download(try XCTUnwrap(urls["zip"] as? String)), zip, "the link fetches the zip's bytes")
    XCTAssertEqual(try download(try XCTUnwrap(urls["signature"] as? String)), signature)
    XCTAssertEqual(try moto.listing(bucket), before, "nothing was uploaded or changed")
  }

  func testPlainOutputDefaultsToSevenDaysAndWarnsAboutAnUnsignedRelease() throws {
    let result = share(["acme", "--version", "2.4.0", "--destination", "s3://\(bucket)/sdk"])
    XCTAssertEqual(result.code, 0, result.allOutput)
    let zipLine = try XCTUnwrap(result.standardOutput.first { $0.hasPrefix("zip ") }, result.allOutput)
    let url = String(zipLine.split(separator: " ").last!)
    XCTAssertEqual(try queryParameters(url)["X-Amz-Expires"], "604800", "7 days by default")
    XCTAssertTrue(url.contains("/sdk/artifacts/acme/2.4.0/ContextSDK_Acme-2.4.0.zip?"), url)
    XCTAssertTrue(result.standardOutput.contains("signature  (none published)"), result.allOutput)
    XCTAssertTrue(
      result.standardError.contains { $0.contains("ContextSDK_Acme-2.4.0.zip.sig does not exist") },
      result.allOutput)

    let json = share(["acme", "--version", "2.4.0", "--json"])
    let urls = try XCTUnwrap(
      try jsonObject(Data(json.standardOutput[0].utf8), "json")["urls"] as? [String: Any])
    XCTAssertTrue(urls["signature"] is NSNull, "no signature: null")
  }

  func testTemporaryCredentialsAreSaidToEndTheLinks() throws {
    let token = "FwoGZXIvYXdzEXAMPLE+token/with=chars"
    let result = share(["acme", "--json"], environment: ["AWS_SESSION_TOKEN": token])
    XCTAssertEqual(result.code, 0, result.allOutput)
    XCTAssertTrue(
      result.standardError.contains {
        $0.contains("temporary credentials (AWS_SESSION_TOKEN)") && $0.contains("stop working")
      },
      result.allOutput)
    let urls = try XCTUnwrap(
      try jsonObject(Data(result.standardOutput[0].utf8), "json")["urls"] as? [String: Any])
    let url = try XCTUnwrap(urls["zip"] as? String)
    XCTAssertEqual(try queryParameters(url)["X-Amz-Security-Token"], token)
    XCTAssertEqual(
      try queryParameters(url)["X-Amz-Signature"], try BotocorePresigner.signature(for: url, token: token))
  }

  func testAReleasesRepositoryIsSharedByItsURLAndTag() throws {
    let result = share(["acme", "--destination", "git:https://git.example.com/sdk/{id}.git", "--json"])
    XCTAssertEqual(result.code, 0, result.allOutput)
    let json = try jsonObject(Data(result.standardOutput[0].utf8), "json")
    assertJSONEqual(
      json,
      [
        "customer": "acme", "version": "2.4.1", "repository": "https://git.example.com/sdk/acme.git",
        "tag": "2.4.1",
      ],
      "share --json of a releases repository")
  }

  func testBadInputIsRefusedInOneLine() throws {
    try write("dir-only.json", #"{"publish": {"destinations": ["dir:out"]}}"#)
    let cases: [([String], String)] = [
      (
        ["acme", "--expires", "8d"],
        #"--expires: expected a duration such as 36h or 7d (at most 7d), found "8d""#
      ),
      (["acme", "--expires", "0s"], "--expires: expected a duration"),
      (
        ["carol", "--version", "1.0.0"],
        "share: carol was never published to s3://\(bucket)/sdk (no customers/carol/index.json)"
      ),
      (
        ["acme", "--version", "9.9.9"],
        "share: acme 9.9.9 was never published to s3://\(bucket)/sdk (published versions: 2.4.0, 2.4.1)"
      ),
      (["bluebird"], "share: bluebird was never published to s3://\(bucket)/sdk"),
      (["carol"], "share: carol has no release recorded in release-state.json"),
      (["acme", "--destination", "dir:out"], "share: out: a directory destination cannot be shared;"),
      (["acme", "--config", "dir-only.json"], "share: out: a directory destination cannot be shared;"),
      (
        ["acme", "--destination", "s3://Bad_Bucket"], "--destination s3://Bad_Bucket: expected s3://<bucket>"
      ),
      (["acme", "--version", "latest"], "--version latest: expected a version such as 2.4.1"),
      (["../acme"], "share: \"../acme\" is not a customer id"),
      ([], "share: expected one customer id, found nothing"),
    ]
    for (arguments, expected) in cases {
      let result = share(arguments)
      XCTAssertEqual(result.code, 2, "\(arguments): \(result.allOutput)")
      XCTAssertEqual(result.standardOutput, [], "\(arguments)")
      XCTAssertEqual(result.standardError.count, 1, "\(arguments): \(result.allOutput)")
      XCTAssertTrue(result.allOutput.contains(expected), "\(arguments):\n\(result.allOutput)")
      XCTAssertFalse(result.allOutput.contains(Moto.openSecret))
    }
  }
}
