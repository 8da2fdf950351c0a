import XCTest

@testable import ReleaseJSON

final class SuggestionTests: XCTestCase {
  func testDistanceCountsInsertionsDeletionsAndSubstitutions() {
    XCTAssertEqual(Suggestion.distance("kitten", "sitting"), 3)
    XCTAssertEqual(Suggestion.distance("", "abc"), 3)
    XCTAssertEqual(Suggestion.distance("abc", ""), 3)
  }

  func testClosestIsOnlyATypo() {
    XCTAssertEqual(Suggestion.closest(to: "publsh", among: ["publish", "plan"]), "publish")
    XCTAssertNil(Suggestion.closest(to: "version", among: ["publish", "plan"]))
  }
}
