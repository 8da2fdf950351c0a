import Foundation
import ReleaseGeneration
import XCTest

/// The README's installation steps work as written: the real `.package(url:from:)` for an
/// https repository (never its credentials), otherwise the delivered zip added by path; never a
/// placeholder.
final class InstallSectionTests: XCTestCase {
  private func readme(repositoryURL: String?) throws -> String {
    var input = try GenerationFixtures.input()
    input.repositoryURL = repositoryURL
    let files = try PackageGenerator.files(
      input, template: try PackageTemplate.load(GenerationFixtures.templateDirectory))
    guard case .contents(let bytes) = try XCTUnwrap(files["README.md"]) else {
      XCTFail("README.md is no generated text")
      return ""
    }
    return String(decoding: bytes, as: UTF8.self)
  }

  func testAnHTTPSRepositoryIsAddedByItsURLWithoutCredentials() throws {
    let text = try readme(repositoryURL: "https://ci-bot:s3cr3t-token@git.example.com/sdk/fixture-co.git")
    XCTAssertTrue(
      text.contains(#".package(url: "https://git.example.com/sdk/fixture-co.git", from: "3.1.0"),"#), text)
    XCTAssertTrue(
      text.contains(#"dependencies: [.product(name: "ContextSDK", package: "fixture-co")]"#), text)
    XCTAssertFalse(text.contains("s3cr3t"))
    XCTAssertFalse(text.contains("ci-bot"))
    XCTAssertTrue(text.contains("Requires Xcode 16 or later"))
  }

  func testWithoutAnHTTPSURLTheZipIsAddedByPath() throws {
    for url in [nil, "file:///srv/git/fixture-co.git", "git@git.example.com:sdk/fixture-co.git"] {
      let text = try readme(repositoryURL: url)
      XCTAssertTrue(text.contains("This package is delivered as `ContextSDK_FixtureCo-3.1.0.zip`"), text)
      XCTAssertTrue(text.contains(#".package(path: "ContextSDK_FixtureCo"),"#), text)
      XCTAssertTrue(text.contains(#".product(name: "ContextSDK", package: "ContextSDK_FixtureCo")"#), text)
      XCTAssertFalse(text.contains(".package(url:"), text)
      XCTAssertFalse(text.contains("git.example.com"), "\(url ?? "nil"): not a URL customers can fetch")
    }
  }

  func testNoPlaceholderIsLeft() throws {
    for url in [nil, "https://git.example.com/sdk/fixture-co.git"] {
      let text = try readme(repositoryURL: url)
      XCTAssertFalse(text.contains("<repository"), text)
      XCTAssertFalse(text.contains("{{"), text)
    }
  }

  func testCredentialsAreRemovedFromTheAuthorityOnly() {
    XCTAssertEqual(
      InstallSection.withoutCredentials("https://u:p@host.example/a@b.git"), "https://host.example/a@b.git")
    XCTAssertEqual(
      InstallSection.withoutCredentials("https://host.example/x.git"), "https://host.example/x.git")
    XCTAssertNil(InstallSection.shownURL("http://host.example/x.git"))
    XCTAssertNil(InstallSection.shownURL("https://"))
  }
}
