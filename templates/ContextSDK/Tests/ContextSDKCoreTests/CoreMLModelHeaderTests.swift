import Foundation
import XCTest

@testable import ContextSDKCore

final class CoreMLModelHeaderTests: XCTestCase {
  func testReadsTheSpecificationVersion() throws {
    XCTAssertEqual(
      try CoreMLModelHeader.specificationVersion(in: CoreMLTestModel.bytes(specificationVersion: 4)), 4)
    XCTAssertEqual(
      try CoreMLModelHeader.specificationVersion(in: CoreMLTestModel.bytes(specificationVersion: 300)), 300)
  }

  func testRejectsWhatIsNotACoreMLModel() {
    let samples: [String: Data] = [
      "empty": Data(),
      "text": Data("hello, world".utf8),
      "zip": Data([0x50, 0x4b, 0x03, 0x04, 0x14, 0x00]),
      "version zero": Data([0x08, 0x00]),
      "truncated": CoreMLTestModel.bytes(specificationVersion: 4).dropLast(),
      "unterminated varint": Data([0x08, 0x84]),
    ]
    for (name, bytes) in samples {
      XCTAssertThrowsError(try CoreMLModelHeader.specificationVersion(in: bytes), name)
    }
  }

  func testMissingFileIsUnreadable() {
    let missing = URL(fileURLWithPath: "/nonexistent/\(UUID().uuidString).mlmodel")
    XCTAssertThrowsError(try CoreMLModelHeader.specificationVersion(ofModelAt: missing)) { error in
      guard case .unreadable = error as? CoreMLModelHeader.ReadError else {
        return XCTFail("expected .unreadable, got \(error)")
      }
    }
  }
}
