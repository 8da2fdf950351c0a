import ContextSDKCore
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
    // 150,000 bytes (i % 251): two full 64 KiB reads and a partial one, each ending mid-block.
    // The expected digest is Python's: hashlib.sha256(bytes(i % 251 for i in range(150000))).
    let file = FileManager.default.temporaryDirectory.appendingPathComponent("sha-\(UUID().uuidString)")
    defer { try? FileManager.default.removeItem(at: file) }
    try Data((0..<150_000).map { UInt8($0 % 251) }).write(to: file)
    XCTAssertEqual(
      try SHA256Digest.hex(ofFileAt: file), "02675bf9284bd74223e98ceea96ebee4c9a469272ead358f462d89753f8c909b")
  }
}
