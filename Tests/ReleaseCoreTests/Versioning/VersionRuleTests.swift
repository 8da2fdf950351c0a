import ReleaseTestSupport
import XCTest

@testable import ReleaseCore

final class VersionRuleTests: XCTestCase {
  let sdk = SemanticVersion(2, 4, 0)

  func testFirstReleaseTakesTheSDKVersion() {
    XCTAssertEqual(VersionRule.nextVersion(last: nil, sdkVersion: sdk, sourceDigest: "a"), sdk)
  }

  func testUnchangedInputsKeepTheVersion() {
    let last = (SemanticVersion(2, 4, 3), "a")
    XCTAssertEqual(
      VersionRule.nextVersion(last: last, sdkVersion: sdk, sourceDigest: "a"), SemanticVersion(2, 4, 3))
  }

  func testCustomerOnlyChangeMovesThePatch() {
    let last = (SemanticVersion(2, 4, 3), "a")
    XCTAssertEqual(
      VersionRule.nextVersion(last: last, sdkVersion: sdk, sourceDigest: "b"), SemanticVersion(2, 4, 4))
  }

  func testNewSDKVersionResetsToIt() {
    let last = (SemanticVersion(2, 4, 3), "a")
    XCTAssertEqual(
      VersionRule.nextVersion(last: last, sdkVersion: SemanticVersion(2, 5, 0), sourceDigest: "b"),
      SemanticVersion(2, 5, 0))
  }

  func testSDKPatchBelowACustomerPatchStillIncreases() {
    // The customer already moved to 2.4.1 on its own; an SDK 2.4.1 must not reuse that number.
    let last = (SemanticVersion(2, 4, 1), "a")
    XCTAssertEqual(
      VersionRule.nextVersion(last: last, sdkVersion: SemanticVersion(2, 4, 1), sourceDigest: "b"),
      SemanticVersion(2, 4, 2))
  }

  func testParsingRejectsWhatIsNotPlainSemver() {
    for text in ["1.2", "1.2.3.4", "01.2.3", "1.2.x", "v1.2.3", "1.2.3-beta", "", "1..3"] {
      XCTAssertNil(SemanticVersion(text), text)
    }
    XCTAssertEqual(SemanticVersion("10.0.12"), SemanticVersion(10, 0, 12))
  }
}
