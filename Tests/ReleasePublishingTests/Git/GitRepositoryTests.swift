import Foundation
import ReleaseSystem
import ReleaseTestSupport
import XCTest

@testable import ReleasePublishing

/// Names and refs that come from input reach git after `--end-of-options` (or `--`): one that
/// starts with `-` is then a bad name, never an option.
final class GitRepositoryTests: XCTestCase {
  private func repository() throws -> (TemporaryDirectory, GitRepository, head: String) {
    let directory = try TemporaryDirectory()
    try TestGit.initialize(directory.url)
    let repository = GitRepository(
      directory.url, runner: SystemProcessRunner(),
      environment: ProcessInfo.processInfo.environment.merging(TestGit.environment) { $1 })
    return (directory, repository, try TestGit.head(directory.url))
  }

  func testATagNameIsNeverAnOption() throws {
    let (directory, repository, head) = try repository()
    // Without the end of options this deletes the tags named like the commit (none): a tag
    // name that is an option runs that option.
    XCTAssertThrowsError(try repository.tag("--delete", at: head, message: "m")) {
      XCTAssertTrue("\($0)".contains("'--delete' is not a valid tag name"), "\($0)")
    }
    XCTAssertTrue(try repository.tag("acme/v2.4.0", at: head, message: "m"))
    XCTAssertEqual(try TestGit.refs(directory.url)["refs/tags/acme/v2.4.0"] != nil, true)
  }
}
