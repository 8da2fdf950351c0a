import Foundation
import ReleaseArchive
import ReleaseSystem
import ReleaseTestSupport
import XCTest

@testable import ReleasePipeline
@testable import ReleaseVerification

/// Building a release is the last check: skipped under `--no-build` and after any problem;
/// an archive it cannot extract is that release's problem, and no process starts.
final class BuildAndConsumeStepTests: XCTestCase {
  let location = ReleaseLocation(directory: URL(fileURLWithPath: "/nonexistent/acme/1.0.0"))

  func testSkippedUnderNoBuildAndAfterAProblem() throws {
    let step = StepContext(root: URL(fileURLWithPath: "/"))
    let failed = ReleaseFindings(location: location, problems: ["sha256 differs"])
    XCTAssertEqual(
      BuildAndConsumeStep(build: true, timeLimit: 60).skipReason(failed, step.context),
      ReleaseFindings.earlierCheckFailed)
    XCTAssertNil(try step.pipeline.run(BuildAndConsumeStep(build: true, timeLimit: 60), failed))
    guard case .stepSkipped("build and consume", let reason)? = step.reporter.events.first else {
      return XCTFail("\(step.reporter.events)")
    }
    XCTAssertEqual(reason, ReleaseFindings.earlierCheckFailed)
    XCTAssertEqual(
      BuildAndConsumeStep(build: false, timeLimit: 60).skipReason(
        ReleaseFindings(location: location, record: .example()), step.context), "--no-build")
  }

  func testAnArchiveThatCannotBeExtractedIsTheReleasesProblem() throws {
    let directory = try TemporaryDirectory()
    let record = ReleaseRecord.example()
    let step = StepContext(root: directory.url)
    let release = ReleaseFindings(location: ReleaseLocation(directory: directory.url), record: record)

    let built = try XCTUnwrap(try step.pipeline.run(BuildAndConsumeStep(build: true, timeLimit: 60), release))

    XCTAssertEqual(built.problems.count, 1)
    XCTAssertTrue(built.problems[0].contains(record.artifact.file), built.problems[0])
    XCTAssertEqual(step.runner.invocations.count, 0)
    XCTAssertEqual(step.output.standardOutput, [])
  }

  /// A package whose build prints compiler warnings is refused: an app that builds with
  /// warnings as errors could not take it. The warnings are shown; no consumer is built.
  func testAPackageWhoseBuildPrintsWarningsIsTheReleasesProblem() throws {
    let directory = try TemporaryDirectory()
    let package = directory.url.appendingPathComponent("tree")
    try FileManager.default.createDirectory(at: package, withIntermediateDirectories: true)
    try Data("// swift-tools-version:6.0\n".utf8).write(to: package.appendingPathComponent("Package.swift"))
    let record = ReleaseRecord.example()
    _ = try ZipWriter.write(
      directory: package, topLevelName: "Example",
      to: directory.url.appendingPathComponent(record.artifact.file),
      modificationTime: ZipWriter.earliestModificationTime)
    let step = StepContext(root: directory.url)
    let warning =
      "/tmp/x/Sources/ContextSDKCore/ModelUpdater.swift:12:5: warning: variable 'unused' was never used"
    step.runner.on("swift", "test") { invocation in
      let log = try XCTUnwrap(invocation.logFile)
      try Data("Building for debugging...\n\(warning)\n\(warning)\nExecuted 3 tests, with 0 failures\n".utf8)
        .write(to: log)
      return ProcessResult(exitCode: 0)
    }
    let release = ReleaseFindings(location: ReleaseLocation(directory: directory.url), record: record)

    let built = try XCTUnwrap(try step.pipeline.run(BuildAndConsumeStep(build: true, timeLimit: 60), release))

    XCTAssertEqual(
      built.problems,
      [
        "swift test printed 1 compiler warning; an app that builds with warnings as errors could not take the package"
      ])
    XCTAssertEqual(built.printed, [warning])
    XCTAssertEqual(step.runner.invocations.map { $0.arguments.first }, ["test"], "no consumer built")
  }
}
