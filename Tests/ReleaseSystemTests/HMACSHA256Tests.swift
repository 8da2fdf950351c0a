import Foundation
import ReleaseSystem
import XCTest

/// RFC 4231 section 4, the HMAC-SHA-256 outputs.
final class HMACSHA256Tests: XCTestCase {
  func testRFC4231Case1() {
    XCTAssertEqual(
      HMACSHA256.hex(of: "Hi There", key: Data(repeating: 0x0b, count: 20)),
      "b0344c61d8db38535ca8afceaf0bf12b881dc200c9833da726e9376c2e32cff7")
  }

  func testRFC4231Case2KeyShorterThanOutput() {
    XCTAssertEqual(
      HMACSHA256.hex(of: "what do ya want for nothing?", key: Data("Jefe".utf8)),
      "5bdcc146bf60754e6a042426089575c75a003f089d2739839dec58b964ec3843")
  }

  func testRFC4231Case3BinaryData() {
    XCTAssertEqual(
      HMACSHA256.hex(of: Data(repeating: 0xdd, count: 50), key: Data(repeating: 0xaa, count: 20)),
      "773ea91e36800e46854db8ebd09181a72959098b3ef8c122d9635514ced565fe")
  }

  func testRFC4231Case6KeyLongerThanBlock() {
    XCTAssertEqual(
      HMACSHA256.hex(
        of: "Test Using Larger Than Block-Size Key - Hash Key First", key: Data(repeating: 0xaa, count: 131)),
      "60e431591ee0b67f0d8a26aacbf5b77f8e0bc6213728c5140546040f0ee37f54")
  }

  func testCodeIsTheRawBytesOfTheHex() {
    let key = Data("Jefe".utf8)
    let code = HMACSHA256.code(for: "what do ya want for nothing?", key: key)
    XCTAssertEqual(code.count, 32)
    XCTAssertEqual(
      code.map { String(format: "%02x", $0) }.joined(),
      HMACSHA256.hex(of: "what do ya want for nothing?", key: key))
  }

  /// An empty key is padded with zeros like any short key, not read as "no key".
  func testEmptyKeyMatchesOpenSSL() throws {
    let result = try SystemProcessRunner().run(
      ProcessInvocation(
        "/bin/sh", ["-c", "printf 'message' | openssl dgst -sha256 -mac HMAC -macopt hexkey:00"]))
    XCTAssertEqual(result.exitCode, 0, result.standardError)
    let expected = try XCTUnwrap(result.standardOutput.split(separator: " ").last).trimmingCharacters(
      in: .whitespacesAndNewlines)
    XCTAssertEqual(HMACSHA256.hex(of: "message", key: Data()), expected)
  }
}
