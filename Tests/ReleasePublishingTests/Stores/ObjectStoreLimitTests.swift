import Foundation
import ReleaseNetwork
import ReleaseSystem
import ReleaseTestSupport
import XCTest

@testable import ReleasePublishing

/// Whoever can write a destination must not make a publish read gigabytes: every object read
/// back from a store has a size limit (an index or pointer `ObjectStoreLimits.mutableObject`, an
/// artifact checked against its local copy at most that copy's size), enforced while reading.
final class ObjectStoreLimitTests: XCTestCase {
  /// Records every request's limit; answers a small object.
  private final class RecordingHTTP: HTTPClient, @unchecked Sendable {
    private let lock = NSLock()
    private var limits: [Int64?] = []
    var recorded: [Int64?] { lock.withLock { limits } }

    func send(_ request: HTTPRequest) throws -> HTTPResponse {
      lock.withLock { limits.append(request.maximumResponseSize) }
      if case .file(let url) = request.destination { try Data("x".utf8).write(to: url) }
      return HTTPResponse(status: 200, headers: ["etag": "\"tag\""], body: Data("x".utf8))
    }
  }

  func testAnS3ReadAndADigestAskForAtMostTheirLimit() throws {
    let http = RecordingHTTP()
    let client = try S3Client(
      endpoint: URL(string: "http://127.0.0.1:9")!, bucket: "bucket", region: "us-east-1",
      credentials: S3Credentials(accessKeyID: "AKIDTEST", secretAccessKey: "secret-for-tests"), http: http)
    let store = S3ObjectStore(client: client, prefix: "sdk", publicBase: "http://127.0.0.1:9/bucket/sdk")
    _ = try store.read("customers/acme/index.json")
    _ = try store.digest(of: "artifacts/acme/2.4.0/a.zip", maximumSize: 1234)
    _ = try store.digest(of: "ota/models/x.mlmodel")
    XCTAssertEqual(
      http.recorded, [ObjectStoreLimits.mutableObject, 1234, ObjectStoreLimits.object])
  }

  func testADirectoryStoreRefusesAnIndexOrArtifactOverItsLimit() throws {
    let directory = try TemporaryDirectory()
    let store = DirectoryObjectStore(root: directory.url, displayName: "dist/published", baseURL: nil)
    let index = directory.url.appendingPathComponent("index.json")
    // Sparse: the size a bucket writer would give it, without writing the bytes.
    XCTAssertTrue(FileManager.default.createFile(atPath: index.path, contents: nil))
    XCTAssertEqual(truncate(index.path, off_t(ObjectStoreLimits.mutableObject + 1)), 0)
    XCTAssertThrowsError(try store.read("index.json")) { error in
      XCTAssertEqual(
        "\(error)",
        "dist/published/index.json: more than \(ObjectStoreLimits.mutableObject) bytes, the most it may have; the transfer was stopped"
      )
    }
    XCTAssertThrowsError(try store.digest(of: "index.json", maximumSize: 1000)) { error in
      XCTAssertTrue("\(error)".contains("dist/published/index.json: more than 1000 bytes"), "\(error)")
    }
    try Data("{}".utf8).write(to: index)
    XCTAssertEqual(try store.read("index.json")?.data, Data("{}".utf8))
    XCTAssertEqual(try store.digest(of: "index.json", maximumSize: 2)?.size, 2)
  }
}
