import Foundation
import ReleaseCore
import ReleaseTestSupport
import XCTest

/// `release-state.json`'s channel ids: absent from files that have none (a state file written
/// before signing stays byte for byte as it was), kept when present.
final class ReleaseStateChannelTests: XCTestCase {
  private let state = """
    {
      "customers" : {
        "acme" : {
          "sourceDigest" : "d1",
          "version" : "1.2.0"
        }
      },
      "sdkVersion" : "2.0.0"
    }

    """

  func testAFileWithoutChannelsIsWrittenBackUnchanged() throws {
    let decoded = try JSONDecoder().decode(ReleaseState.self, from: Data(state.utf8))
    XCTAssertEqual(decoded.channels, [:])
    XCTAssertEqual(String(decoding: try decoded.encoded(), as: UTF8.self), state)
  }

  func testChannelsAreWrittenAndReadBack() throws {
    var decoded = try JSONDecoder().decode(ReleaseState.self, from: Data(state.utf8))
    decoded.channels["acme"] = "0123456789abcdef0123456789abcdef"
    let bytes = try decoded.encoded()
    let object = try XCTUnwrap(try JSONSerialization.jsonObject(with: bytes) as? [String: Any])
    XCTAssertEqual(object["channels"] as? [String: String], ["acme": "0123456789abcdef0123456789abcdef"])
    XCTAssertEqual(try JSONDecoder().decode(ReleaseState.self, from: bytes), decoded)
  }
}
