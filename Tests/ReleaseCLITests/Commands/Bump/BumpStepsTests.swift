import Foundation
import ReleaseBump
import ReleaseCore
import ReleaseManifest
import ReleasePipeline
import ReleaseSettings
import ReleaseSystem
import ReleaseTestSupport
import XCTest

@testable import ReleaseCLI

/// `release bump`'s writing step built directly on a planned change: a dry run writes nothing
/// and says so; otherwise every file is written and named.
final class BumpStepsTests: XCTestCase {
  let directory = try! TemporaryDirectory()
  let output = CapturedOutput()

  var services: Services {
    Services(
      processRunner: ScriptedProcessRunner(), clock: ManualClock(), root: directory.url, environment: [:],
      output: output)
  }

  /// SDK 3.1.4 to 3.2.0: the state and a README whose code block shows the version.
  func planned() throws -> PlannedBump {
    let state = #"{"sdkVersion": "3.1.4", "customers": {}}"#
    try Data(state.utf8).write(to: directory.url.appendingPathComponent("release-state.json"))
    try Data("```\n3.1.4\n```\n".utf8).write(to: directory.url.appendingPathComponent("README.md"))
    let bump = VersionBump(services: services, statePath: "release-state.json", templatesPath: "templates")
    return PlannedBump(
      bump: bump, old: SemanticVersion(3, 1, 4), new: SemanticVersion(3, 2, 0),
      files: [
        .init(path: "release-state.json", old: state, new: state),
        .init(path: "README.md", old: "```\n3.1.4\n```\n", new: "```\n3.2.0\n```\n"),
      ])
  }

  func context() -> ReleaseContext {
    ReleaseContext(services: services, settings: RunSettings(), reporter: RecordingReporter())
  }

  func readme() throws -> String {
    try String(contentsOf: directory.url.appendingPathComponent("README.md"), encoding: .utf8)
  }

  func testADryRunWritesNothingAndSaysSo() throws {
    try WriteBumpStep(dryRun: true).run(try planned(), context())
    XCTAssertEqual(try readme(), "```\n3.1.4\n```\n")
    XCTAssertEqual(output.standardError, ["dry run: SDK 3.1.4 -> 3.2.0 not written"])
  }

  func testEveryFileIsWrittenAndNamed() throws {
    try WriteBumpStep(dryRun: false).run(try planned(), context())
    XCTAssertEqual(try readme(), "```\n3.2.0\n```\n")
    let state = try ReleaseState.load(
      from: directory.url.appendingPathComponent("release-state.json"), displayPath: "release-state.json")
    XCTAssertEqual(state.sdkVersion, SemanticVersion(3, 2, 0))
    XCTAssertEqual(
      output.standardError, ["bumped SDK 3.1.4 -> 3.2.0 in release-state.json, README.md; review and commit"])
  }
}
