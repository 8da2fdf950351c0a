import ContextSDKCore
import XCTest

final class BundleIdentifierCheckTests: XCTestCase {
  private let check = BundleIdentifierCheck(allowedBundleIdentifiers: [
    "com.acme.fitness", "com.acme.fitness.widget",
  ])

  func testAcceptsEachAllowedIdentifier() {
    XCTAssertTrue(check.isAllowed(bundleIdentifier: "com.acme.fitness"))
    XCTAssertTrue(check.isAllowed(bundleIdentifier: "com.acme.fitness.widget"))
  }

  func testRejectsOtherIdentifiers() {
    for other in ["com.acme", "com.acme.fitness.clip", "com.other.app", "", "COM.ACME.FITNESS"] {
      XCTAssertFalse(check.isAllowed(bundleIdentifier: other), other)
    }
  }

  func testRejectsAProcessWithoutBundleIdentifier() {
    XCTAssertFalse(check.isAllowed(bundleIdentifier: nil))
  }
}
