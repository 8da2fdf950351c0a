import Foundation
import ReleaseCore
import ReleasePipeline
import ReleaseSystem
import ReleaseTestSupport
import XCTest

@testable import ReleaseCLI
@testable import ReleaseEvaluation
@testable import ReleaseSettings

/// `ota evaluate`'s steps built directly: what is selected for judging, and a report that is
/// never written when nothing was judged or under `--dry-run`.
final class EvaluateStepsTests: XCTestCase {
  func request(_ arguments: [String], _ workspace: Workspace) throws -> (EvaluateRequest, Pipeline) {
    let services = Services(
      processRunner: ScriptedProcessRunner(), clock: SettableClock("2026-03-10"), root: workspace.root,
      environment: [:], output: CapturedOutput(), http: TestHTTP.Unreachable())
    let invocation = CommandInvocation(
      arguments: arguments, services: services, reporter: RecordingReporter())
    let options = try EvaluateOptions(
      try Arguments(arguments, command: EvaluateCommand.command), invocation)
    var settings = RunSettings()
    settings.dryRun = options.dryRun
    let context = ReleaseContext(services: services, settings: settings, reporter: RecordingReporter())
    let request = EvaluateRequest(
      options: options, policies: RolloutPolicyConfiguration(), configurationPath: "release.config.json")
    return (request, Pipeline(context))
  }

  func testWithNoRolloutThereIsNoChallengerAndNoReport() throws {
    let workspace = try Workspace()
    let (request, pipeline) = try request(
      ["--outcomes", "outcomes.csv", "--report", "report", "--apply", "--dry-run"], workspace)

    let selected = try pipeline.run(SelectChallengersStep(), request)
    XCTAssertTrue(selected.candidates.isEmpty)
    XCTAssertEqual(selected.today.description, "2026-03-10")

    let judged = JudgedChallengers(
      selected: selected, outcomes: Outcomes(source: "outcomes.csv", rows: []), judged: [])
    XCTAssertEqual(WriteEvaluationReportStep().skipReason(judged, pipeline.context), "no challenger judged")
    XCTAssertNil(try pipeline.run(WriteEvaluationReportStep(), judged))
    XCTAssertFalse(FileManager.default.fileExists(atPath: workspace.file("report").path))
  }

  func testASinceAfterTodayIsRefusedBeforeAnythingIsRead() throws {
    let workspace = try Workspace()
    let (request, pipeline) = try request(["--outcomes", "outcomes.csv", "--since", "2026-03-11"], workspace)

    XCTAssertThrowsError(try pipeline.run(SelectChallengersStep(), request)) { error in
      XCTAssertEqual(
        (error as? ReleaseError)?.lines,
        ["--since: found 2026-03-11; expected no date after today (2026-03-10, UTC)"])
    }
  }
}
