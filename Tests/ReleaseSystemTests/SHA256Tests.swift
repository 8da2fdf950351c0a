import Foundation
import ReleaseSystem
import XCTest

final class SHA256Tests: XCTestCase {
  // FIPS 180-2 test vectors.
  func testKnownVectors() {
    XCTAssertEqual(
      SHA256Digest.hex(of: "abc"), "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad")
    XCTAssertEqual(
      SHA256Digest.hex(of: ""), "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855")
    XCTAssertEqual(
      SHA256Digest.hex(of: "abcdbcdecdefdefgefghfghighijhijkijkljklmklmnlmnomnopnopq"),
      "248d6a61d20638b8e5c026930c3e6039a33ce45964ff2167f6ecedd419db06c1")
  }

  func testStreamedFileDigestMatchesSha256sum() throws {
    let directory = try TemporaryDirectory()
    let file = directory.url.appendingPathComponent("blob")
    // Larger than one 64 KiB block and not a multiple of it, so block joins are exercised.
    var bytes = Data(count: 200_003)
    for index in bytes.indices { bytes[index] = UInt8(truncatingIfNeeded: index &* 31 &+ 7) }
    try bytes.write(to: file)

    let (digest, size) = try SHA256Digest.hexAndSize(ofFileAt: file)
    XCTAssertEqual(size, 200_003)
    let result = try SystemProcessRunner().run(ProcessInvocation("sha256sum", [file.path]))
    XCTAssertEqual(result.exitCode, 0)
    XCTAssertEqual(digest, String(result.standardOutput.prefix(64)))
  }

  func testUnreadableFileIsATypedError() {
    XCTAssertThrowsError(try SHA256Digest.hex(ofFileAt: URL(fileURLWithPath: "/nonexistent/file"))) { error in
      guard case SystemError.cannotRead(let path, _) = error else { return XCTFail("\(error)") }
      XCTAssertEqual(path, "/nonexistent/file")
    }
  }
}

/// A temporary directory removed when the value goes away.
final class TemporaryDirectory {
  let url: URL
  init() throws {
    url = FileManager.default.temporaryDirectory.appendingPathComponent("release-tests-\(UUID().uuidString)")
    try FileManager.default.createDirectory(at: url, withIntermediateDirectories: true)
  }
  deinit { try? FileManager.default.removeItem(at: url) }
}
