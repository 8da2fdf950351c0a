@testable import ContextSDKCore
import XCTest

final class BundleIdentifierCheckTests: XCTestCase {
  private let check = BundleIdentifierCheck(allowedBundleIdentifiers: [
    "com.example.app", "com.example.app.widget",
  ])

  func testAcceptsEachAllowedIdentifier() {
    XCTAssertTrue(check.isAllowed(bundleIdentifier: "com.example.app"))
    XCTAssertTrue(check.isAllowed(bundleIdentifier: "com.example.app.widget"))
  }

  func testRejectsOtherIdentifiers() {
    for other in ["com.example", "com.example.app.clip", "com.other.app", "", "COM.EXAMPLE.APP"] {
      XCTAssertFalse(check.isAllowed(bundleIdentifier: other), other)
    }
  }

  func testRejectsAProcessWithoutBundleIdentifier() {
    XCTAssertFalse(check.isAllowed(bundleIdentifier: nil))
  }
}
