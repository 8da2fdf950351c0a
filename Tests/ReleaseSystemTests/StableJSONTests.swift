import Foundation
import ReleaseSystem
import XCTest

final class StableJSONTests: XCTestCase {
  private struct Entry: Encodable {
    var url: String
    var count: Int
    var absent: String?
  }

  /// Sorted keys, one value per line, slashes unescaped, nil left out, a trailing newline.
  func testTheSameValueGivesTheseBytes() throws {
    let bytes = try StableJSON.encode(Entry(url: "https://example.com/a/b", count: 2, absent: nil))
    XCTAssertEqual(
      String(decoding: bytes, as: UTF8.self),
      "{\n  \"count\" : 2,\n  \"url\" : \"https://example.com/a/b\"\n}\n")
  }
}
