import Foundation
import ReleaseCore
import ReleaseGeneration
import ReleaseSystem
import ReleaseTestSupport
import XCTest

@testable import ReleaseBump

/// `VersionBump` on a project directory, in process: the state and the template's constant
/// must agree, `apply` writes every file or none, and only whole versions in code blocks move.
/// `release bump` itself, with git history and the golden diff, is `BumpCommandEndToEndTests`.
final class VersionBumpTests: XCTestCase {
  let versionFile = "templates/" + PackageGenerator.sdkVersionFile

  /// A project at SDK version `state`, whose template's constant says `template`. No process
  /// may run: the fake runner fails the test on any call.
  func project(state: String, template: String) throws -> (TemporaryDirectory, VersionBump) {
    let directory = try TemporaryDirectory()
    try write(#"{"sdkVersion": "\#(state)", "customers": {}}"#, to: "release-state.json", in: directory)
    try write("public let contextSDKVersion = \"\(template)\"\n", to: versionFile, in: directory)
    let services = Services(
      processRunner: ScriptedProcessRunner(), clock: ManualClock(), root: directory.url, environment: [:],
      output: CapturedOutput())
    return (
      directory, VersionBump(services: services, statePath: "release-state.json", templatesPath: "templates")
    )
  }

  func write(_ text: String, to path: String, in directory: TemporaryDirectory) throws {
    let url = directory.url.appendingPathComponent(path)
    try FileManager.default.createDirectory(
      at: url.deletingLastPathComponent(), withIntermediateDirectories: true)
    try Data(text.utf8).write(to: url)
  }

  func read(_ path: String, in directory: TemporaryDirectory) throws -> String {
    try String(contentsOf: directory.url.appendingPathComponent(path), encoding: .utf8)
  }

  func testOnlyWholeVersionsInsideCodeBlocksAreReplaced() {
    let text = [
      "Since 2.4.0 the SDK pins keys.", "```swift", ".package(url: \"…\", from: \"2.4.0\")",
      "// 12.4.0 and 2.4.0.1 are other versions", "```", "2.4.0 stays in prose.",
    ].joined(separator: "\n")
    let expected = [
      "Since 2.4.0 the SDK pins keys.", "```swift", ".package(url: \"…\", from: \"2.5.0\")",
      "// 12.4.0 and 2.4.0.1 are other versions", "```", "2.4.0 stays in prose.",
    ].joined(separator: "\n")
    XCTAssertEqual(VersionBump.replacingInCodeBlocks(text, "2.4.0", with: "2.5.0"), expected)
  }

  func testATemplateConstantThatDisagreesWithTheStateIsBadInput() throws {
    // The directory lives as long as the test: it is removed when released.
    let (directory, bump) = try project(state: "2.0.0", template: "1.9.0")
    defer { withExtendedLifetime(directory) {} }
    XCTAssertThrowsError(try bump.changes(part: .minor)) { error in
      guard case ReleaseError.invalidInput(let message) = error else {
        return XCTFail("expected bad input (exit 2), got \(error)")
      }
      XCTAssertEqual(
        message,
        "\(versionFile): contextSDKVersion is 1.9.0 but release-state.json has sdkVersion 2.0.0; make them agree before bumping"
      )
    }
  }

  func testApplyWritesEveryFileAndMovesTheStatesVersion() throws {
    let (directory, bump) = try project(state: "2.0.0", template: "2.0.0")
    let constant = try read(versionFile, in: directory)
    let moved = constant.replacingOccurrences(of: "2.0.0", with: "2.1.0")
    // The state's new text is made again from what the file holds under its lock.
    let state = try read("release-state.json", in: directory)
    try bump.apply(
      [
        .init(path: "release-state.json", old: state, new: state),
        .init(path: versionFile, old: constant, new: moved),
      ],
      from: SemanticVersion(2, 0, 0), to: SemanticVersion(2, 1, 0))
    XCTAssertEqual(try read(versionFile, in: directory), moved)
    let written = try ReleaseState.load(
      from: directory.url.appendingPathComponent("release-state.json"), displayPath: "release-state.json")
    XCTAssertEqual(written.sdkVersion, SemanticVersion(2, 1, 0))
  }

  func testAStateBumpedMeanwhileLeavesEveryFileAsItWas() throws {
    let (directory, bump) = try project(state: "2.0.1", template: "2.0.0")
    let constant = try read(versionFile, in: directory)
    XCTAssertThrowsError(
      try bump.apply(
        [.init(path: versionFile, old: constant, new: "changed")], from: SemanticVersion(2, 0, 0),
        to: SemanticVersion(2, 1, 0))
    ) { error in
      XCTAssertEqual(
        error as? VersionBump.BumpError,
        .changedMeanwhile(statePath: "release-state.json", found: "2.0.1", expected: "2.0.0"))
    }
    XCTAssertEqual(try read(versionFile, in: directory), constant)
    XCTAssertEqual(
      try FileManager.default.contentsOfDirectory(
        atPath: directory.url.appendingPathComponent("templates").path
      )
      .sorted(), ["Sources"], "no temporary file left")
  }
}
