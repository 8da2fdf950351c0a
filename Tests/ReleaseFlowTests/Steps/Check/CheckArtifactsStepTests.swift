import Foundation
import ReleaseCore
import ReleasePublishing
import ReleaseReporting
import ReleaseSettings
import ReleaseSystem
import ReleaseTestSupport
import XCTest

@testable import ReleaseFlow
@testable import ReleasePipeline

/// The content checks at the head of a run's tail, with the steps built directly and run in
/// process with fakes (no command line, no `swift`): what they pass is a checked release that
/// publishing ships; a release they fail is neither published nor recorded. Each test
/// starts from a workspace whose dist/ holds acme's and bluebird's releases as the customer
/// steps make them, the build and its tests left out (`swift --version` is answered by a fake).
final class CheckArtifactsStepTests: XCTestCase {
  struct Tail {
    let workspace: Workspace
    let pipeline: Pipeline
    let reporter: RecordingReporter
    let results: RunResults
  }

  /// The run's results as the build hands them to the tail; `publish` is a directory
  /// destination relative to the workspace.
  func tail(publish: String? = nil) throws -> Tail {
    let workspace = try Workspace()
    var settings = RunSettings()
    settings.mode = .customers(["acme", "bluebird"])
    settings.build.jobs = 1
    settings.publishing.destinations = publish.map { [.directory(path: $0, baseURL: nil)] } ?? []
    let runner = ScriptedProcessRunner()
    runner.answerToolchainVersion()
    let reporter = RecordingReporter()
    let services = Services(
      processRunner: runner, clock: ManualClock(), root: workspace.root, environment: [:],
      output: CapturedOutput(), http: TestHTTP.Unreachable())
    let context = ReleaseContext(services: services, settings: settings, reporter: reporter)
    let pipeline = Pipeline(context)
    let inputs = try pipeline.run(AlignModelsStep(), try pipeline.run(LoadInputsStep(), ()))
    let plan = try pipeline.run(PlanStep(), .init(inputs: inputs))
    let customers = try plan.customers.map { planned in
      let job = planned.job
      let source = try GenerateStep(inputs: inputs).run(job, for: job, context)
      let tested = TestedPackage(source: source, testCount: nil, testedBy: nil)
      let archived = try ArchiveStep().run(tested, for: job, context)
      _ = try StageStep(inputs: inputs).run(archived, for: job, context)
      var built = planned
      built.status = .succeeded
      return built
    }
    return Tail(
      workspace: workspace, pipeline: pipeline, reporter: reporter,
      results: RunResults(inputs: inputs, customers: customers, settings: settings))
  }

  func steps(_ events: [ReleaseEvent]) -> [String] {
    events.compactMap { event in
      switch event {
      case .stepStarted(let step): return "start \(step)"
      case .stepSkipped(let step, let reason): return "skip \(step): \(reason)"
      case .dryRun(let step, _): return "dry run \(step)"
      default: return nil
      }
    }
  }

  func testAReleaseThatFailsItsContentChecksIsNeitherPublishedNorRecorded() throws {
    let tail = try tail(publish: "published")
    let acme = try XCTUnwrap(tail.results.shipping.first { $0.id == "acme" }).job
    let release = acme.releaseDirectory(in: tail.workspace.dist)
    let record = try ReleaseRecord.load(from: release.appendingPathComponent(ReleaseRecord.fileName))
    try PlantedRelease.plant(release, zip: release.appendingPathComponent(record.artifact.file)) { package in
      try Data("let planted = 1\n".utf8).write(to: package.appendingPathComponent("Sources/Planted.swift"))
    }
    let state = try Data(contentsOf: tail.workspace.file("release-state.json"))
    let started = tail.reporter.events.count

    XCTAssertThrowsError(
      try ReleaseRun.release(tail.results, ota: nil, tags: nil, tail.pipeline)
    ) { error in
      guard case ReleaseError.stepProblems(let step, let problems)? = error as? ReleaseError else {
        return XCTFail("expected the content checks' problems, got \(error)")
      }
      XCTAssertEqual(step, "check artifacts")
      XCTAssertTrue(problems.contains { $0.hasPrefix("acme: ") }, "\(problems)")
    }
    XCTAssertEqual(steps(Array(tail.reporter.events[started...])), ["start check artifacts"])
    XCTAssertFalse(
      FileManager.default.fileExists(atPath: tail.workspace.file("published").path), "nothing was published")
    XCTAssertEqual(try Data(contentsOf: tail.workspace.file("release-state.json")), state)
  }

  /// One workspace for three runs of the same tail: publishing to a directory, to no
  /// destination, and a dry run.
  func testPublishingShipsWhatTheChecksPassedToEveryDestinationOrToNoneAndADryRunNothing() throws {
    let tail = try tail(publish: "published")
    let checked = try tail.pipeline.run(CheckArtifactsStep(), tail.results)
    XCTAssertEqual(checked.releases.map(\.id), ["acme", "bluebird"])

    let shipped = try tail.pipeline.run(PublishStep(), checked)
    XCTAssertEqual(shipped.releases.map(\.id), ["acme", "bluebird"])
    let published = tail.workspace.file("published")
    for job in checked.releases.map(\.job) {
      let zip = published.appendingPathComponent(
        ReleaseLayout.artifactKey(customer: job.id, version: job.version, file: job.archiveName))
      XCTAssertTrue(FileManager.default.fileExists(atPath: zip.path), "\(zip.path) is published")
    }

    let nowhere = RecordingReporter()
    let shippedNowhere = try pipeline(tail, reporter: nowhere) { $0.publishing.destinations = [] }.run(
      PublishStep(), checked)
    XCTAssertEqual(steps(nowhere.events), ["skip publish: no destination (--publish)"])
    XCTAssertEqual(
      shippedNowhere.releases.map(\.id), ["acme", "bluebird"], "what was checked ships in dist/")

    let preview = RecordingReporter()
    let dryRun = pipeline(tail, reporter: preview) { $0.dryRun = true }
    let previewed = try dryRun.run(PublishStep(), try dryRun.run(CheckArtifactsStep(), tail.results))
    XCTAssertEqual(
      steps(preview.events), ["skip check artifacts: dry run: nothing was built", "dry run publish"])
    XCTAssertEqual(previewed.releases.map(\.id), [], "a dry run checks nothing, so nothing ships")
  }

  /// The pipeline of `tail` with its settings changed by `change`.
  func pipeline(_ tail: Tail, reporter: RecordingReporter, _ change: (inout RunSettings) -> Void)
    -> Pipeline
  {
    var settings = tail.pipeline.context.settings
    change(&settings)
    return Pipeline(
      ReleaseContext(services: tail.pipeline.context.services, settings: settings, reporter: reporter))
  }
}
