@testable import ContextSDKCore
import Foundation
import XCTest

/// The SDK's SHA-256 (its own on platforms without CryptoKit) against the NIST FIPS 180-4
/// example vectors (the short ones and the two-block 896-bit one), and over a file read in blocks.
final class SHA256DigestTests: XCTestCase {
  func testNISTVectors() {
    XCTAssertEqual(
      SHA256Digest.hex(of: Data("abc".utf8)), "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad")
    XCTAssertEqual(SHA256Digest.hex(of: Data()), "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855")
    XCTAssertEqual(
      SHA256Digest.hex(of: Data("abcdbcdecdefdefgefghfghighijhijkijkljklmklmnlmnomnopnopq".utf8)),
      "248d6a61d20638b8e5c026930c3e6039a33ce45964ff2167f6ecedd419db06c1")
    XCTAssertEqual(
      SHA256Digest.hex(
        of: Data(
          ("abcdefghbcdefghicdefghijdefghijkefghijklfghijklmghijklmnhijklmnoijklmnop"
            + "jklmnopqklmnopqrlmnopqrsmnopqrstnopqrstu").utf8)),
      "cf5b16a778af8380036ce59e7b0492370b249b11e8f07a51afac45037afee9d1")
  }

  func testAFileReadInBlocksHashesAsItsBytes() throws {
    // 2,500 bytes (i % 251) read 1,000 at a time: two full reads and a partial one, each
    // ending mid-block (a block is 64 bytes). Small, because `swift test` compiles the
    // implementation unoptimized; the default read size only changes how many reads there
    // are. The expected digest is Python's:
    // hashlib.sha256(bytes(i % 251 for i in range(2500))).
    let file = FileManager.default.temporaryDirectory.appendingPathComponent("sha-\(UUID().uuidString)")
    defer { try? FileManager.default.removeItem(at: file) }
    try Data((0..<2500).map { UInt8($0 % 251) }).write(to: file)
    XCTAssertEqual(
      try SHA256Digest.hex(ofFileAt: file, readSize: 1000),
      "a75c5b146f3ad9d2e6e54652e71eb6a1d206ffb1348bed2c2f43b51ddaac0f88")
  }
}
