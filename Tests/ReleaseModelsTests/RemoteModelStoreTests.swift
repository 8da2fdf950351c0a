import Foundation
import XCTest

@testable import ReleaseModels

/// A URL store's index.json is input from a server: every name in it is held to what a
/// directory store's names may be.
final class RemoteModelStoreTests: XCTestCase {
  private let digest = String(repeating: "ab", count: 32)

  private func index(flowName: String) -> Data {
    let model: [String: Any] = [
      "flowName": flowName, "modelVersion": 1, "path": "flow/1.mlmodel", "sha256": digest,
    ]
    return try! JSONSerialization.data(withJSONObject: ["models": [model]])
  }

  func testAFlowNameWithALineBreakOrControlCharacterIsRefused() throws {
    for flowName in ["onboarding\n::warning::x", "onboarding\r", "on\u{1B}[2Jboarding", "on\u{202E}boarding"]
    {
      XCTAssertThrowsError(
        try RemoteModelStore.parseIndex(
          index(flowName: flowName), location: "https://h/index.json", maximumModelSize: 1 << 20),
        flowName.debugDescription
      ) { error in
        guard case RemoteModelStoreError.invalidIndex(_, let problems) = error else {
          return XCTFail("\(error)")
        }
        XCTAssertEqual(problems.count, 1, "\(problems)")
        XCTAssertTrue(problems[0].hasPrefix("models[0].flowName: "), problems[0])
      }
    }
    XCTAssertEqual(
      try RemoteModelStore.parseIndex(
        index(flowName: "onboarding_upsell"), location: "https://h/index.json", maximumModelSize: 1 << 20
      )
      .count, 1)
  }
}
