import Foundation
import ReleaseSystem
import XCTest

@testable import ReleaseNetwork

/// The presigner against AWS's published example, against botocore (an independent SigV4
/// implementation) and against moto_server, which serves the object the URL names.
final class S3PresignerTests: XCTestCase {
  // MARK: AWS's example

  /// "Authenticating Requests: Using Query Parameters (AWS Signature Version 4)", the
  /// GET-object example: virtual-hosted, unlike the tool, so the internal signer is used.
  func testAWSDocumentedExample() throws {
    let credentials = S3Credentials(
      accessKeyID: "AKIAIOSFODNN7EXAMPLE", secretAccessKey: "wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY")
    let signed = try S3Presigner.presign(
      scheme: "https", host: "examplebucket.s3.amazonaws.com", path: "/test.txt", region: "us-east-1",
      credentials: credentials, date: Self.utc(2013, 5, 24), expirySeconds: 86400)

    XCTAssertEqual(
      signed.canonicalRequest,
      """
      GET
      /test.txt
      X-Amz-Algorithm=AWS4-HMAC-SHA256&X-Amz-Credential=AKIAIOSFODNN7EXAMPLE%2F20130524%2Fus-east-1%2Fs3%2Faws4_request&X-Amz-Date=20130524T000000Z&X-Amz-Expires=86400&X-Amz-SignedHeaders=host
      host:examplebucket.s3.amazonaws.com

      host
      UNSIGNED-PAYLOAD
      """)
    XCTAssertEqual(
      signed.stringToSign,
      """
      AWS4-HMAC-SHA256
      20130524T000000Z
      20130524/us-east-1/s3/aws4_request
      3bfa292879f6447bbcda7001decf97f4a54dc650c8942174ae0a9121cf58ad04
      """)
    XCTAssertEqual(signed.signature, "aeeed9bbccd4d02ee5c0109b86d86835f995330da4c265957d157751f604d404")
    XCTAssertEqual(
      signed.url,
      "https://examplebucket.s3.amazonaws.com/test.txt?X-Amz-Algorithm=AWS4-HMAC-SHA256"
        + "&X-Amz-Credential=AKIAIOSFODNN7EXAMPLE%2F20130524%2Fus-east-1%2Fs3%2Faws4_request"
        + "&X-Amz-Date=20130524T000000Z&X-Amz-Expires=86400&X-Amz-SignedHeaders=host"
        + "&X-Amz-Signature=aeeed9bbccd4d02ee5c0109b86d86835f995330da4c265957d157751f604d404")
  }

  /// Sub-seconds of the injected clock are dropped, as `X-Amz-Date` has none.
  func testSigningTimeIsTheInjectedClockInUTC() throws {
    let client = try Self.client(
      endpoint: "https://s3.eu-west-1.amazonaws.com", credentials: Self.someCredentials)
    let date = Self.utc(2026, 11, 26, 23, 59, 58).addingTimeInterval(0.75)
    let presigned = try S3Presigner(client: client).presignedGetURL(
      for: "releases/acme/1.0.0/a.zip", expiresIn: 3600, at: date)
    let query = try Self.queryItems(presigned.url)
    XCTAssertEqual(query["X-Amz-Date"], "20261126T235958Z")
    XCTAssertEqual(query["X-Amz-Expires"], "3600")
    XCTAssertEqual(query["X-Amz-Credential"], "AKIDSOME%2F20261126%2Feu-west-1%2Fs3%2Faws4_request")
    XCTAssertEqual(presigned.expires, Self.utc(2026, 11, 27, 0, 59, 58))
    XCTAssertFalse(presigned.usesSessionToken)
    XCTAssertNil(query["X-Amz-Security-Token"])
    XCTAssertEqual(
      presigned.url.absoluteString.components(separatedBy: "?").first,
      "https://s3.eu-west-1.amazonaws.com/release-bucket/releases/acme/1.0.0/a.zip")
  }

  /// A default port is neither in the URL nor in the signed host, as clients leave it out of
  /// the Host header; another port is in both.
  func testDefaultPortsAreLeftOut() throws {
    for (endpoint, expected) in [
      ("https://s3.example.com:443", "https://s3.example.com/"),
      ("http://s3.example.com:80", "http://s3.example.com/"),
      ("https://s3.example.com:8443", "https://s3.example.com:8443/"),
    ] {
      let presigned = try S3Presigner(
        client: try Self.client(endpoint: endpoint, credentials: Self.someCredentials)
      )
      .presignedGetURL(for: "a.zip", expiresIn: 60, at: Date())
      XCTAssertTrue(
        presigned.url.absoluteString.hasPrefix(expected + "release-bucket/a.zip?"), "\(presigned.url)")
    }
    let signed = try S3Presigner.presign(
      scheme: "https", host: "s3.example.com:8443", path: "/b/a.zip", region: "us-east-1",
      credentials: Self.someCredentials, date: Date(), expirySeconds: 60)
    XCTAssertTrue(signed.canonicalRequest.contains("\nhost:s3.example.com:8443\n"), signed.canonicalRequest)
  }

  /// AWS's rules, applied by hand: unreserved characters kept, every other UTF-8 byte as
  /// upper-case %XX, "/" kept only in paths.
  func testURIEncoding() {
    XCTAssertEqual(S3Presigner.uriEncode("AZaz09-._~"), "AZaz09-._~")
    XCTAssertEqual(S3Presigner.uriEncode("a b+c=d&e/f"), "a%20b%2Bc%3Dd%26e%2Ff")
    XCTAssertEqual(S3Presigner.uriEncode("ü"), "%C3%BC")
    XCTAssertEqual(S3Presigner.uriEncode("/dir one/ü*.zip", keepingSlashes: true), "/dir%20one/%C3%BC%2A.zip")
  }

  // MARK: Against botocore

  /// Path-style, as the tool addresses objects, with and without a session token (which
  /// holds characters that must be encoded); the URL must be botocore's, parameter for
  /// parameter.
  func testPathStyleURLsMatchBotocore() throws {
    let endpoint = "http://127.0.0.1:9"
    let date = Self.utc(2026, 11, 26, 20, 45, 7)
    let key = "releases/acme-corp/2.4.1/ContextSDK_Acme~2.4.1_final.zip"
    for token in [nil, "FwoGZXIvYXdzE+/Tok=en//with spaces"] {
      let secret = "s3cr3t/+Key=\(UUID().uuidString)"
      let credentials = S3Credentials(
        accessKeyID: "AKIDBOTOCORE", secretAccessKey: secret, sessionToken: token)
      let presigned = try S3Presigner(client: try Self.client(endpoint: endpoint, credentials: credentials))
        .presignedGetURL(for: key, expiresIn: 604_800, at: date)
      let expected = try Self.botocoreURL(
        "\(endpoint)/release-bucket/\(key)", accessKey: "AKIDBOTOCORE", secret: secret, token: token,
        region: "us-east-1", date: date, expires: 604_800)
      try Self.assertSameURL(presigned.url.absoluteString, expected)
      XCTAssertEqual(presigned.usesSessionToken, token != nil)
      XCTAssertEqual(try Self.queryItems(presigned.url)["X-Amz-Security-Token"] != nil, token != nil)
    }
  }

  /// Keys the tool never makes, signed through the internal signer: spaces, reserved
  /// characters and non-ASCII in the path, a non-default port and an "auto" region (R2).
  func testEncodedPathsMatchBotocore() throws {
    let credentials = S3Credentials(
      accessKeyID: "AKIDPATHS", secretAccessKey: "secret", sessionToken: "t=1&2")
    let date = Self.utc(2027, 1, 2, 3, 4, 5)
    let path = "/bucket/dir one/Größe+(final)*!'.zip"
    let signed = try S3Presigner.presign(
      scheme: "https", host: "acct.r2.example.com:8443", path: path, region: "auto", credentials: credentials,
      date: date, expirySeconds: 1)
    let quotedPath = try Self.python(
      ["-c", "import sys, urllib.parse; print(urllib.parse.quote(sys.argv[1], safe='/~'))", path])
    let expected = try Self.botocoreURL(
      "https://acct.r2.example.com:8443\(quotedPath)", accessKey: "AKIDPATHS", secret: "secret",
      token: "t=1&2",
      region: "auto", date: date, expires: 1)
    try Self.assertSameURL(signed.url, expected)
  }

  // MARK: Bad input

  func testExpiryOutsideOneSecondToSevenDaysIsRefused() throws {
    let secret = "refusal-secret-\(UUID().uuidString)"
    let presigner = S3Presigner(
      client: try Self.client(
        endpoint: "https://s3.amazonaws.com",
        credentials: S3Credentials(
          accessKeyID: "AKIDX", secretAccessKey: secret, sessionToken: "tok-\(secret)")))
    for seconds in [0, -1, 604_801, 8 * 86_400] {
      XCTAssertThrowsError(try presigner.presignedGetURL(for: "a.zip", expiresIn: seconds, at: Date())) {
        error in
        XCTAssertEqual(error as? S3PresignError, .expiryOutOfRange(seconds: seconds))
        Self.assertOneLine(error, without: secret)
      }
    }
    for seconds in [1, 604_800] {
      XCTAssertNoThrow(try presigner.presignedGetURL(for: "a.zip", expiresIn: seconds, at: Date()))
    }
  }

  func testKeysS3ClientRefusesAreRefused() throws {
    let secret = "refusal-secret-\(UUID().uuidString)"
    let presigner = S3Presigner(
      client: try Self.client(
        endpoint: "https://s3.amazonaws.com",
        credentials: S3Credentials(accessKeyID: "AKIDX", secretAccessKey: secret)))
    for key in [
      "", "a b.zip", "../x.zip", "a//b.zip", "/a.zip", "a/", "ü.zip", "a?b",
      String(repeating: "k", count: 1025),
    ] {
      XCTAssertThrowsError(try presigner.presignedGetURL(for: key, expiresIn: 60, at: Date()), key) { error in
        guard case NetworkError.invalidObjectKey(let refused, _)? = error as? NetworkError else {
          return XCTFail("\(key): \(error)")
        }
        XCTAssertEqual(refused, key)
        Self.assertOneLine(error, without: secret)
      }
    }
  }

  // MARK: Helpers

  static let someCredentials = S3Credentials(accessKeyID: "AKIDSOME", secretAccessKey: "some-secret")

  static func client(endpoint: String, credentials: S3Credentials) throws -> S3Client {
    try S3Client(
      endpoint: URL(string: endpoint)!, bucket: "release-bucket",
      region: endpoint.contains("eu-west-1") ? "eu-west-1" : "us-east-1",
      credentials: credentials)
  }

  static func utc(
    _ year: Int, _ month: Int, _ day: Int, _ hour: Int = 0, _ minute: Int = 0, _ second: Int = 0
  )
    -> Date
  {
    var calendar = Calendar(identifier: .gregorian)
    calendar.timeZone = TimeZone(identifier: "UTC")!
    return calendar.date(
      from: DateComponents(year: year, month: month, day: day, hour: hour, minute: minute, second: second))!
  }

  /// Query parameters as they stand in the URL (still percent-encoded).
  static func queryItems(_ url: URL) throws -> [String: String] {
    let query = try XCTUnwrap(url.absoluteString.components(separatedBy: "?").dropFirst().first)
    var items: [String: String] = [:]
    for pair in query.split(separator: "&") {
      let parts = pair.split(separator: "=", maxSplits: 1, omittingEmptySubsequences: false)
      items[String(parts[0])] = parts.count > 1 ? String(parts[1]) : ""
    }
    return items
  }

  /// Same scheme, host, path and query parameters, byte for byte; botocore orders the
  /// parameters differently (the signature does not depend on their order in the URL).
  static func assertSameURL(
    _ actual: String, _ expected: String, file: StaticString = #filePath, line: UInt = #line
  )
    throws
  {
    let actualParts = actual.components(separatedBy: "?")
    let expectedParts = expected.components(separatedBy: "?")
    XCTAssertEqual(actualParts.count, 2, actual, file: file, line: line)
    XCTAssertEqual(expectedParts.count, 2, expected, file: file, line: line)
    XCTAssertEqual(actualParts.first, expectedParts.first, file: file, line: line)
    XCTAssertEqual(
      actualParts.last?.split(separator: "&").sorted(), expectedParts.last?.split(separator: "&").sorted(),
      "\n\(actual)\n\(expected)", file: file, line: line)
    XCTAssertTrue(expected.contains("X-Amz-Signature="), expected, file: file, line: line)
  }

  static func assertOneLine(
    _ error: Error, without secret: String, file: StaticString = #filePath, line: UInt = #line
  ) {
    let text = "\(error)"
    XCTAssertFalse(text.isEmpty, file: file, line: line)
    XCTAssertFalse(text.contains("\n"), text, file: file, line: line)
    XCTAssertFalse(text.contains(secret), text, file: file, line: line)
  }

  /// botocore's `S3SigV4QueryAuth` (what `aws s3 presign` uses) with its clock fixed. The
  /// inputs go through stdin, not the command line.
  static func botocoreURL(
    _ url: String, accessKey: String, secret: String, token: String?, region: String, date: Date, expires: Int
  ) throws -> String {
    let script = """
      import datetime, json, sys
      import botocore.auth
      from botocore.awsrequest import AWSRequest
      from botocore.credentials import Credentials
      p = json.load(sys.stdin)
      fixed = datetime.datetime.fromtimestamp(p["time"], datetime.timezone.utc).replace(tzinfo=None)
      botocore.auth.get_current_datetime = lambda *args, **kwargs: fixed
      request = AWSRequest(method="GET", url=p["url"])
      credentials = Credentials(p["access"], p["secret"], p["token"])
      botocore.auth.S3SigV4QueryAuth(credentials, "s3", p["region"], expires=p["expires"]).add_auth(request)
      print(request.url)
      """
    var input: [String: Any] = [
      "url": url, "access": accessKey, "secret": secret, "region": region,
      "time": Int(date.timeIntervalSince1970), "expires": expires,
    ]
    input["token"] = token ?? NSNull()
    let json = try JSONSerialization.data(withJSONObject: input)
    return try python(["-c", script], input: json)
  }

  static func python(_ arguments: [String], input: Data = Data()) throws -> String {
    let directory = try Fixtures.temporaryDirectory()
    defer { try? FileManager.default.removeItem(at: directory) }
    let inputFile = directory.appendingPathComponent("input")
    try input.write(to: inputFile)
    let process = Process()
    process.executableURL = try Fixtures.python()
    process.arguments = arguments
    process.standardInput = try FileHandle(forReadingFrom: inputFile)
    let output = Pipe()
    let errors = Pipe()
    process.standardOutput = output
    process.standardError = errors
    try process.run()
    let printed = output.fileHandleForReading.readDataToEndOfFile()
    let complaint = errors.fileHandleForReading.readDataToEndOfFile()
    process.waitUntilExit()
    guard process.terminationStatus == 0 else {
      throw TestSetupError(
        description:
          "python3 (botocore, installed with the aws CLI) failed: \(String(decoding: complaint, as: UTF8.self))"
      )
    }
    return String(decoding: printed, as: UTF8.self).trimmingCharacters(in: .whitespacesAndNewlines)
  }
}

/// Presigned URLs fetched from moto_server. moto 5 cannot check query-string signatures
/// (with checks on, a presigned GET answers 500), so this server checks none: what it shows
/// is that the path-style URL names the object S3Client stored, and that a plain HTTP client
/// can use the URL as printed. The signature itself is proven against botocore above.
final class S3PresignerMotoEndToEndTests: XCTestCase {
  private static let shared = ClassMoto(bucket: "release-presign-tests", checkingSignatures: false)

  override class func setUp() {
    super.setUp()
    shared.start()
  }

  override class func tearDown() {
    shared.stop()
    super.tearDown()
  }

  override func invokeTest() { Self.shared.run({ super.invokeTest() }, in: "S3PresignerMotoEndToEndTests") }

  func testPresignedURLDownloadsTheObjectS3ClientStored() throws {
    let moto = try Self.shared.running
    let client = try S3Client(
      endpoint: moto.endpoint, bucket: Self.shared.bucket, region: MotoServer.region,
      credentials: moto.credentials,
      http: CurlHTTPClient(retryPolicy: .singleAttempt))
    let key = "releases/\(UUID().uuidString.lowercased())/ContextSDK_Acme-2.4.1.zip"
    var generator = SystemRandomNumberGenerator()
    let bytes = Data((0..<100_000).map { _ in UInt8.random(in: 0...255, using: &generator) })
    try client.put(key, data: bytes, contentType: S3ContentType.zip)

    let presigner = S3Presigner(client: client)
    let http = CurlHTTPClient(retryPolicy: .singleAttempt)
    for token in [nil, "session/token+value="] {
      let signer =
        token == nil
        ? presigner
        : S3Presigner(
          client: try S3Client(
            endpoint: moto.endpoint, bucket: Self.shared.bucket, region: MotoServer.region,
            credentials: S3Credentials(accessKeyID: "AKIDTEMP", secretAccessKey: "temp", sessionToken: token))
        )
      let presigned = try signer.presignedGetURL(for: key, expiresIn: 600, at: Date())
      XCTAssertTrue(
        presigned.url.absoluteString.hasPrefix(
          "\(moto.endpoint.absoluteString)/\(Self.shared.bucket)/\(key)?"))
      // No signing and no headers: the URL alone must be enough.
      let response = try http.send(HTTPRequest(.get, presigned.url))
      XCTAssertEqual(response.status, 200)
      XCTAssertEqual(response.body, bytes)
    }

    // The path is what names the object: another key is not found.
    let missing = try presigner.presignedGetURL(for: key + ".sig", expiresIn: 600, at: Date())
    let response = try http.send(HTTPRequest(.get, missing.url, acceptedStatuses: [404]))
    XCTAssertEqual(response.status, 404)
  }
}
