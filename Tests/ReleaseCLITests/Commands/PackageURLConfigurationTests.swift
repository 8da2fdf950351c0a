import Foundation
import ReleaseJSON
import ReleaseManifest
import XCTest

@testable import ReleaseCLI
@testable import ReleaseSettings

/// `publish.packageURL`: the URL customers add their package from, shown in every README, so
/// an https URL without a credential (`{id}` stands for the customer's id).
final class PackageURLConfigurationTests: XCTestCase {
  private func parse(_ value: String) throws -> ReleaseConfiguration {
    try ReleaseConfiguration.parse(
      Data(#"{"publish": {"packageURL": \#(value)}}"#.utf8), displayPath: "release.config.json")
  }

  func testAnHTTPSTemplateIsTaken() throws {
    XCTAssertEqual(
      try parse(#""https://git.example.com/sdk/{id}.git""#).packageURL, "https://git.example.com/sdk/{id}.git"
    )
  }

  func testAnythingElseIsRefusedNamingTheKeyAndNeverTheCredential() {
    for (value, expected) in [
      (#""http://git.example.com/sdk/{id}.git""#, "expected an https URL customers add their package from"),
      (#""https://bot:secret@git.example.com/sdk/{id}.git""#, "a credential in a URL"),
      ("true", "expected an https URL, found true"),
    ] {
      do {
        _ = try parse(value)
        XCTFail("accepted \(value)")
      } catch let failure as ValidationFailure {
        let lines = failure.diagnostics.map(\.description)
        XCTAssertEqual(lines.count, 1, "\(lines)")
        XCTAssertTrue(lines[0].contains("publish.packageURL"), lines[0])
        XCTAssertTrue(lines[0].contains(expected), lines[0])
        XCTAssertFalse(lines[0].contains("secret"), lines[0])
      } catch {
        XCTFail("\(value): \(error)")
      }
    }
  }
}
