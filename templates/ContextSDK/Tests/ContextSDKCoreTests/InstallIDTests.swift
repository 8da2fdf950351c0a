@testable import ContextSDKCore
import Foundation
import XCTest

/// The install id places the device in rollouts: it is made once, and a file that is there but
/// cannot be read as one is reported, never replaced (that would move the device to other
/// buckets of every rollout).
final class InstallIDTests: XCTestCase {
  private var directory: URL!

  override func setUpWithError() throws {
    directory = FileManager.default.temporaryDirectory.appendingPathComponent("install-id-\(UUID().uuidString)")
  }

  override func tearDownWithError() throws {
    try? FileManager.default.removeItem(at: directory)
  }

  func testTheIdIsMadeOnceAndEveryLoadReturnsIt() throws {
    let first = try InstallID.load(from: directory)
    XCTAssertNotNil(UUID(uuidString: first), first)
    let second = try InstallID.load(from: directory)
    XCTAssertEqual(second, first)
    XCTAssertEqual(try String(contentsOf: directory.appendingPathComponent("install-id"), encoding: .utf8), first)
  }

  func testAFileThatIsNotAnIdIsReportedAndKept() throws {
    try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
    let file = directory.appendingPathComponent("install-id")
    try Data("not an id".utf8).write(to: file)
    XCTAssertThrowsError(try InstallID.load(from: directory)) { error in
      XCTAssertTrue("\(error)".contains("install-id"), "\(error)")
    }
    XCTAssertEqual(try Data(contentsOf: file), Data("not an id".utf8), "the file is not replaced")
  }

  func testAnIdThatCannotBeReadIsReportedAndNothingIsWritten() throws {
    // A directory where the file should be: reading it fails.
    let file = directory.appendingPathComponent("install-id")
    try FileManager.default.createDirectory(at: file, withIntermediateDirectories: true)
    XCTAssertThrowsError(try InstallID.load(from: directory))
    XCTAssertEqual(try FileManager.default.contentsOfDirectory(atPath: directory.path), ["install-id"])
  }
}
