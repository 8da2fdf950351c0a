import Foundation
import ReleaseManifest
import ReleaseReporting
import ReleaseSettings
import ReleaseSystem
import ReleaseTestSupport
import XCTest

@testable import ReleaseCore
@testable import ReleasePipeline

/// The run's phases in process: each step takes the value the one before returned, and
/// `Pipeline` alone decides whether a step runs (skip, dry run, a preflight check's refusal).
final class PipelineTests: XCTestCase {
  struct Read: RequiredStep {
    let name = "read"
    func run(_: Void, _ context: ReleaseContext) throws -> Int { 20 }
  }

  struct Twice: Step {
    let name = "double"
    var skip: String? = nil
    var changesState = false
    var isPreflightCheck = false
    var failure: (any Error)? = nil
    func skipReason(_ input: Int, _ context: ReleaseContext) -> String? { skip }
    func dryRunDescription(_ input: Int, _ context: ReleaseContext) -> [String] { ["would double \(input)"] }
    func run(_ input: Int, _ context: ReleaseContext) throws -> Int {
      if let failure { throw failure }
      return input * 2
    }
  }

  struct Oops: Error, CustomStringConvertible {
    var description: String { "no space left" }
  }

  func pipeline(dryRun: Bool = false, reporter: RecordingReporter) -> Pipeline {
    Pipeline(PhaseFixtures.context(dryRun: dryRun, reporter: reporter))
  }

  func names(_ events: [ReleaseEvent]) -> [String] {
    events.map { event in
      switch event {
      case .stepStarted(let step): return "start \(step)"
      case .stepSkipped(let step, let reason): return "skip \(step): \(reason)"
      case .dryRun(let step, let lines): return "dry run \(step): \(lines.joined(separator: "; "))"
      default: return "other"
      }
    }
  }

  func testEachStepTakesWhatTheStepBeforeReturned() throws {
    let reporter = RecordingReporter()
    let pipeline = pipeline(reporter: reporter)
    let read = try pipeline.run(Read(), ())
    let doubled = try pipeline.run(Twice(), read)
    XCTAssertEqual(doubled, 40)
    XCTAssertEqual(names(reporter.events), ["start read", "start double"])
  }

  func testASkippedStepMakesNothingAndSaysWhy() throws {
    let reporter = RecordingReporter()
    let pipeline = pipeline(reporter: reporter)
    XCTAssertNil(try pipeline.run(Twice(skip: "nothing to double"), 1))
    XCTAssertEqual(names(reporter.events), ["skip double: nothing to double"])
  }

  func testADryRunPreviewsWhatChangesStateAndRunsTheRest() throws {
    let reporter = RecordingReporter()
    let pipeline = pipeline(dryRun: true, reporter: reporter)
    XCTAssertNil(try pipeline.run(Twice(changesState: true), 3))
    XCTAssertEqual(try pipeline.run(Twice(), 3), 6)
    XCTAssertEqual(names(reporter.events), ["dry run double: would double 3", "start double"])
  }

  func testAPreflightRefusalIsALineOfADryRunAndAnErrorOtherwise() throws {
    let refusal = ReleaseError.invalidInput("work tree is dirty")
    let reporter = RecordingReporter()
    XCTAssertNil(
      try pipeline(dryRun: true, reporter: reporter).run(Twice(isPreflightCheck: true, failure: refusal), 1))
    XCTAssertEqual(
      names(reporter.events), ["start double", "dry run double: would refuse: work tree is dirty"])
    XCTAssertThrowsError(
      try pipeline(reporter: RecordingReporter()).run(Twice(isPreflightCheck: true, failure: refusal), 1)
    ) { XCTAssertEqual(($0 as? ReleaseError)?.lines, ["work tree is dirty"]) }
  }

  func testAnyOtherErrorBecomesTheStepsFailure() {
    XCTAssertThrowsError(try pipeline(reporter: RecordingReporter()).run(Twice(failure: Oops()), 1)) {
      XCTAssertEqual(($0 as? ReleaseError)?.lines, ["double: no space left"])
      XCTAssertEqual(($0 as? ReleaseError)?.exitCode, 1)
    }
  }
}

/// One customer's steps pass what each made to the next; the job's result is a value.
final class CustomerStepsTests: XCTestCase {
  struct Generate: CustomerStep {
    let name = "generate"
    func run(_ job: CustomerJob, for _: CustomerJob, _ context: ReleaseContext) throws -> String {
      "/scratch/\(job.id)"
    }
  }

  struct Test: CustomerStep {
    let name = "build and test"
    var fails = false
    func run(_ package: String, for job: CustomerJob, _ context: ReleaseContext) throws -> (String, Int) {
      if fails { throw SystemError.processFailed(command: "swift test", exitCode: 1, logPath: nil) }
      return (package, 7)
    }
  }

  struct Stage: CustomerStep {
    let name = "stage"
    func run(_ tested: (String, Int), for job: CustomerJob, _ context: ReleaseContext) throws -> StagedRelease
    {
      StagedRelease(
        archive: .init(path: URL(fileURLWithPath: tested.0 + ".zip"), sha256: "abc", size: 1),
        testCount: tested.1)
    }
  }

  func run(failing: Bool, reporter: RecordingReporter) -> CustomerResult {
    let pipeline = CustomerPipeline { job, steps in
      let package = try steps.run(Generate(), job)
      let tested = try steps.run(Test(fails: failing), package)
      return try steps.run(Stage(), tested)
    }
    return pipeline.run([PhaseFixtures.pending("acme")], PhaseFixtures.context(reporter: reporter))[0]
  }

  func testTheReleaseIsWhatTheLastStepMadeFromTheOthers() {
    let reporter = RecordingReporter()
    let result = run(failing: false, reporter: reporter)
    XCTAssertEqual(result.status, .succeeded)
    XCTAssertEqual(result.archive?.path.path, "/scratch/acme.zip")
    XCTAssertEqual(result.testCount, 7)
    let steps = reporter.events.compactMap { event -> String? in
      if case .customerProgress(_, let step) = event { return step }
      return nil
    }
    XCTAssertEqual(steps, ["generate", "build and test", "stage"])
  }

  func testAFailingStepEndsTheJobWithItsNameAndNoArchive() {
    let reporter = RecordingReporter()
    let result = run(failing: true, reporter: reporter)
    XCTAssertEqual(result.status, .failed(step: "build and test", reason: "swift test: exited with status 1"))
    XCTAssertNil(result.archive)
    let outcome = result.outcome(relativeTo: URL(fileURLWithPath: "/"))
    XCTAssertEqual(outcome.status, .failed)
    XCTAssertEqual(outcome.failedStep, "build and test")
  }
}

/// Which customers ship: all or nothing, or those that passed under `--publish-passed`.
final class RunResultsTests: XCTestCase {
  func testAFailedCustomerHoldsBackTheOthersUnlessPublishPassed() {
    var customers = ["a", "b"].map(PhaseFixtures.pending)
    customers[0].status = .succeeded
    customers[1].status = .failed(step: "build and test", reason: "1 test failed")
    var settings = RunSettings()
    XCTAssertEqual(RunResults.shipping(customers, settings).released.map(\.id), ["a"])
    XCTAssertEqual(RunResults.shipping(customers, settings).shipping.map(\.id), [])
    settings.publishing.publishPassed = true
    XCTAssertEqual(RunResults.shipping(customers, settings).shipping.map(\.id), ["a"])
  }

  func testUnderADryRunWhatWouldBeBuiltShips() {
    var settings = RunSettings()
    settings.dryRun = true
    XCTAssertEqual(
      RunResults.shipping(["a", "b"].map(PhaseFixtures.pending), settings).shipping.map(\.id), ["a", "b"])
  }
}

enum PhaseFixtures {
  static func context(dryRun: Bool = false, reporter: RecordingReporter) -> ReleaseContext {
    var settings = RunSettings()
    settings.dryRun = dryRun
    settings.build.jobs = 1
    let services = Services(
      processRunner: ScriptedProcessRunner(), clock: ManualClock(),
      root: URL(fileURLWithPath: "/nonexistent"),
      environment: [:], output: CapturedOutput())
    return ReleaseContext(services: services, settings: settings, reporter: reporter)
  }

  /// A customer the plan decided to build.
  static func pending(_ id: String) -> CustomerResult {
    let version = SemanticVersion(1, 0, 0)
    let customer = Customer(
      id: id, name: nil, appID: "00000000-0000-4000-8000-000000000000",
      bundleIdentifiers: ["com.example.\(id)"],
      customModels: [], index: 0, line: 1)
    let job = CustomerJob(
      customer: customer, version: version,
      digest: InputDigest(
        customer: customer, features: [], models: [:], templateDigest: "t", sdkVersion: version,
        toolchain: "swift"),
      reason: "first release",
      releaseNotes: CustomerReleaseNotes(
        customer: customer, version: version, sdkVersion: version, models: [:], recorded: nil,
        sdkChangelog: [:],
        templateDigest: "t", modelManifestURL: nil, repositoryURL: nil, features: []))
    return CustomerResult(job: job, status: .pending)
  }
}
