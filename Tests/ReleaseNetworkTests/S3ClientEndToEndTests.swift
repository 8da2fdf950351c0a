import Foundation
import ReleaseNetwork
import ReleaseSystem
import XCTest

#if canImport(Glibc)
  import Glibc
#endif

/// S3Client against a real moto_server on 127.0.0.1 that checks signatures; objects are read
/// back with the aws CLI, an independent client. One server and bucket for the whole class
/// (startup takes seconds); each test uses its own keys.
final class S3ClientEndToEndTests: XCTestCase {
  private static let shared = ClassMoto(bucket: "release-network-tests")

  private var moto: MotoServer!
  private var sleeps: RecordedSleeps!
  private var client: S3Client!
  private var directory: URL!

  override class func setUp() {
    super.setUp()
    shared.start()
  }

  override class func tearDown() {
    shared.stop()
    super.tearDown()
  }

  override func invokeTest() { Self.shared.run({ super.invokeTest() }, in: "S3ClientEndToEndTests") }

  override func setUpWithError() throws {
    moto = try Self.shared.running
    sleeps = RecordedSleeps()
    client = try makeClient(credentials: moto.credentials)
    directory = try Fixtures.temporaryDirectory()
  }

  override func tearDownWithError() throws {
    if let directory { try? FileManager.default.removeItem(at: directory) }
  }

  private func makeClient(credentials: S3Credentials) throws -> S3Client {
    try S3Client(
      endpoint: moto.endpoint, bucket: Self.shared.bucket, region: MotoServer.region,
      credentials: credentials,
      http: CurlHTTPClient(retryPolicy: sleeps.policy()))
  }

  private func key(_ name: String) -> String { "tests/\(UUID().uuidString.lowercased())/\(name)" }

  private func file(_ name: String, _ data: Data) throws -> URL {
    let url = directory.appendingPathComponent(name)
    try data.write(to: url)
    return url
  }

  private func randomData(_ count: Int) -> Data {
    var generator = SystemRandomNumberGenerator()
    // Eight bytes a draw, since each draw is a system call (getrandom on Linux).
    var data = Data(capacity: count + 8)
    while data.count < count { withUnsafeBytes(of: generator.next()) { data.append(contentsOf: $0) } }
    return Data(data.prefix(count))
  }

  /// The object as the aws CLI reads it, plus the metadata it reports.
  private func readWithCLI(_ key: String) throws -> (data: Data, metadata: [String: Any]) {
    let output = directory.appendingPathComponent("cli-\(UUID().uuidString)")
    let result = try moto.aws([
      "s3api", "get-object", "--bucket", Self.shared.bucket, "--key", key, output.path,
    ])
    let metadata = try JSONSerialization.jsonObject(with: Data(result.standardOutput.utf8)) as? [String: Any]
    return (try Data(contentsOf: output), metadata ?? [:])
  }

  func testCreateOnlyUploadReadsBackIdenticallyWithItsHeaders() throws {
    let data = randomData(300_000)
    let key = key("sdk-1.0.0.zip")
    let uploaded = try client.putCreateOnly(
      key, file: try file("sdk.zip", data), contentType: S3ContentType.zip)
    XCTAssertEqual(uploaded, S3UploadedObject(key: key, size: 300_000, sha256: SHA256Digest.hex(of: data)))

    let (readBack, metadata) = try readWithCLI(key)
    XCTAssertEqual(readBack, data)
    XCTAssertEqual(metadata["ContentType"] as? String, "application/zip")
    XCTAssertEqual(metadata["CacheControl"] as? String, "public, max-age=31536000, immutable")
    XCTAssertEqual(sleeps.attempts, 1)
  }

  func testSecondCreateOnlyUploadIsRefusedAndLeavesTheObjectUnchanged() throws {
    let key = key("model-7.mlmodel")
    let first = Data("first upload".utf8)
    try client.putCreateOnly(key, file: try file("first", first), contentType: S3ContentType.octetStream)
    XCTAssertThrowsError(
      try client.putCreateOnly(
        key, file: try file("second", Data("second".utf8)), contentType: S3ContentType.octetStream)
    ) { error in
      XCTAssertEqual(
        error as? NetworkError,
        .alreadyExists(url: "\(moto.endpoint.absoluteString)/\(Self.shared.bucket)/\(key)"))
      XCTAssertTrue("\(error)".contains("already exists"), "\(error)")
    }
    XCTAssertEqual(sleeps.attempts, 1, "a 412 is an answer, not a hiccup")
    XCTAssertEqual(try readWithCLI(key).data, first)
  }

  func testWrongSecretIsA403ThatIsNotRetriedAndNeverShown() throws {
    let planted = "PLANTED-SECRET-wrong-9f3b27"
    let impostor = try makeClient(
      credentials: S3Credentials(accessKeyID: moto.credentials.accessKeyID, secretAccessKey: planted))
    let upload = try file("payload", Data("payload".utf8))
    let attempts: [() throws -> Void] = [
      { _ = try impostor.putCreateOnly(self.key("x"), file: upload, contentType: S3ContentType.octetStream) },
      { _ = try impostor.getData(self.key("y")) },
      { _ = try impostor.head(self.key("z")) },
    ]
    for attempt in attempts {
      XCTAssertThrowsError(try attempt()) { error in
        guard case NetworkError.unexpectedStatus(_, _, 403, _, _, _, 1) = error else {
          return XCTFail("expected one 403, got \(error)")
        }
        XCTAssertFalse("\(error)".contains(planted), "\(error)")
        XCTAssertFalse(String(reflecting: error).contains(planted), String(reflecting: error))
      }
    }
    XCTAssertEqual(sleeps.attempts, 1, "4xx answers are never retried")
    XCTAssertFalse("\(impostor)".contains(planted), "\(impostor)")
  }

  func testSignatureMismatchNamesTheServersCode() throws {
    let impostor = try makeClient(
      credentials: S3Credentials(accessKeyID: moto.credentials.accessKeyID, secretAccessKey: "wrong"))
    let key = key("a.json")
    XCTAssertThrowsError(try impostor.getData(key)) { error in
      XCTAssertTrue(
        "\(error)".hasPrefix(
          "GET \(moto.endpoint.absoluteString)/\(Self.shared.bucket)/\(key): HTTP 403 (SignatureDoesNotMatch: "
        ),
        "\(error)")
      XCTAssertTrue("\(error)".hasSuffix(", expected 2xx"), "\(error)")
    }
  }

  func testSessionTokenIsSentAsSecurityTokenHeader() throws {
    // moto refuses a long-term (AKIA) key presented with a session token, with a code of its
    // own (not SignatureDoesNotMatch): proof the token was sent, and signed along.
    let withToken = try makeClient(
      credentials: S3Credentials(
        accessKeyID: moto.credentials.accessKeyID, secretAccessKey: "irrelevant",
        sessionToken: "PLANTED-TOKEN"))
    XCTAssertThrowsError(try withToken.getData(key("t"))) { error in
      guard case NetworkError.unexpectedStatus(_, _, _, _, "InvalidToken", _, 1) = error else {
        return XCTFail("got \(error)")
      }
      XCTAssertFalse("\(error)".contains("PLANTED-TOKEN"), "\(error)")
    }
  }

  func testHeadReportsSizeAndETagOrNilWhenMissing() throws {
    let key = key("index.json")
    XCTAssertNil(try client.head(key))
    try client.put(key, data: Data("{}".utf8), contentType: S3ContentType.json)
    let info = try XCTUnwrap(try client.head(key))
    XCTAssertEqual(info.size, 2)
    XCTAssertNotNil(info.etag)
  }

  func testPutOverwritesForManifests() throws {
    let key = key("index.json")
    try client.put(key, data: Data("[1]".utf8), contentType: S3ContentType.json)
    try client.put(key, data: Data("[1,2]".utf8), contentType: S3ContentType.json)
    XCTAssertEqual(try client.getData(key), Data("[1,2]".utf8))
    let (_, metadata) = try readWithCLI(key)
    XCTAssertEqual(metadata["CacheControl"] as? String, S3CacheControl.manifest)
  }

  func testGetToFileIsAtomic() throws {
    let data = randomData(70_000)
    let key = key("sdk.zip")
    try client.putCreateOnly(key, file: try file("upload", data), contentType: S3ContentType.zip)
    let downloads = directory.appendingPathComponent("downloads")
    let copy = downloads.appendingPathComponent("sdk.zip")
    try client.get(key, to: copy)
    XCTAssertEqual(try Data(contentsOf: copy), data)

    let missing = downloads.appendingPathComponent("missing.zip")
    XCTAssertThrowsError(try client.get(self.key("absent.zip"), to: missing)) { error in
      guard case NetworkError.unexpectedStatus(_, _, 404, _, "NoSuchKey", _, 1) = error else {
        return XCTFail("expected a NoSuchKey 404, got \(error)")
      }
    }
    XCTAssertEqual(try FileManager.default.contentsOfDirectory(atPath: downloads.path), ["sdk.zip"])
  }

  func testVerifyAcceptsTheUploadAndRejectsAnythingElse() throws {
    let data = randomData(10_000)
    let key = key("model.bin")
    let uploaded = try client.putCreateOnly(
      key, file: try file("model", data), contentType: S3ContentType.octetStream)
    try client.verify(key, size: uploaded.size, sha256: uploaded.sha256)

    let otherHash = SHA256Digest.hex(of: Data("something else".utf8))
    XCTAssertThrowsError(try client.verify(key, size: uploaded.size, sha256: otherHash)) { error in
      guard case NetworkError.verificationFailed = error else { return XCTFail("got \(error)") }
    }
    XCTAssertThrowsError(try client.verify(key, size: uploaded.size + 1, sha256: uploaded.sha256)) { error in
      guard case NetworkError.verificationFailed(_, "10001 bytes", "10000 bytes") = error else {
        return XCTFail("got \(error)")
      }
    }
    XCTAssertThrowsError(try client.verify(self.key("never"), size: 1, sha256: otherHash)) { error in
      guard case NetworkError.verificationFailed(_, _, "no object") = error else {
        return XCTFail("got \(error)")
      }
    }
  }

  func testInvalidKeysAreRefusedBeforeAnyRequest() throws {
    for key in ["", "a b", "/leading", "trailing/", "a//b", "a/../b", "ümlaut", "a?b", "a%20b"] {
      XCTAssertThrowsError(try client.getData(key), "key \"\(key)\"") { error in
        guard case NetworkError.invalidObjectKey = error else { return XCTFail("got \(error)") }
      }
    }
  }

  /// The upload is streamed from disk, and so is the verifying download: memory must not grow
  /// by anything like the file's 50 MB.
  func testStreamingFiftyMegabytesKeepsMemoryFlat() throws {
    let size = 50 * 1024 * 1024
    let source = directory.appendingPathComponent("large.bin")
    _ = FileManager.default.createFile(atPath: source.path, contents: nil)
    let handle = try FileHandle(forWritingTo: source)
    let block = randomData(1024 * 1024)
    for _ in 0..<(size / block.count) { try handle.write(contentsOf: block) }
    try handle.close()

    let baseline = try PeakMemory.resetAndReadCurrent()
    let key = key("large.bin")
    let uploaded = try client.putCreateOnly(key, file: source, contentType: S3ContentType.octetStream)
    try client.verify(key, size: uploaded.size, sha256: uploaded.sha256)
    let growth = try PeakMemory.peak() - baseline
    XCTAssertEqual(uploaded.size, Int64(size))
    XCTAssertLessThan(growth, 20 * 1024 * 1024, "peak memory grew by \(growth / 1024) KiB")
  }
}

/// Peak resident memory of this process, in bytes.
enum PeakMemory {
  /// Resets the peak to the current size where the platform allows (Linux: writing 5 to
  /// /proc/self/clear_refs resets VmHWM), and returns the current size as the baseline.
  /// Elsewhere the peak cannot be reset, so the baseline is the peak so far: the check is
  /// weaker there but never wrong.
  static func resetAndReadCurrent() throws -> Int {
    #if os(Linux)
      try Data("5".utf8).write(to: URL(fileURLWithPath: "/proc/self/clear_refs"))
      return try statusField("VmRSS")
    #else
      return try peak()
    #endif
  }

  static func peak() throws -> Int {
    #if os(Linux)
      return try statusField("VmHWM")
    #else
      var usage = rusage()
      guard getrusage(RUSAGE_SELF, &usage) == 0 else { throw TestSetupError(description: "getrusage failed") }
      return Int(usage.ru_maxrss)  // bytes on Darwin
    #endif
  }

  #if os(Linux)
    private static func statusField(_ name: String) throws -> Int {
      let status = try String(contentsOfFile: "/proc/self/status", encoding: .utf8)
      guard let line = status.split(separator: "\n").first(where: { $0.hasPrefix("\(name):") }),
        let kilobytes = Int(line.split(separator: " ", omittingEmptySubsequences: true)[1])
      else { throw TestSetupError(description: "no \(name) in /proc/self/status") }
      return kilobytes * 1024
    }
  #endif
}
