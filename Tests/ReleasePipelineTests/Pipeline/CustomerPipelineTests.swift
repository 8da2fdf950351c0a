import Foundation
import ReleaseManifest
import ReleaseSettings
import ReleaseSystem
import ReleaseTestSupport
import XCTest

@testable import ReleaseCore
@testable import ReleasePipeline
@testable import ReleaseReporting

final class CustomerPipelineTests: XCTestCase {
  struct RecordingStep: CustomerStep {
    let name: String
    let failFor: Set<String>
    let log: Log
    final class Log: Sendable {
      private let recorded = Locked<[String]>([])
      var entries: [String] { recorded.value }
      func append(_ entry: String) { recorded.withLock { $0.append(entry) } }
    }
    func run(_: Void, for job: CustomerJob, _ context: ReleaseContext) throws {
      log.append("\(name) \(job.id)")
      if failFor.contains(job.id) {
        throw SystemError.processFailed(command: "swift build", exitCode: 1, logPath: nil)
      }
    }
  }

  /// Runs `steps` in order for each customer, each on nothing, and stages a made-up release.
  func pipeline(_ steps: [RecordingStep]) -> CustomerPipeline {
    CustomerPipeline { job, customerSteps in
      for step in steps { try customerSteps.run(step, ()) }
      return StagedRelease(
        archive: .init(path: URL(fileURLWithPath: "/dist/\(job.id).zip"), sha256: "", size: 0), testCount: nil
      )
    }
  }

  func pending(_ id: String) -> CustomerResult { CustomerResult(job: job(id), status: .pending) }

  func job(_ id: String) -> CustomerJob {
    let customer = Customer(
      id: id, name: nil, appID: "00000000-0000-4000-8000-000000000000",
      bundleIdentifiers: ["com.example.\(id)"],
      customModels: [], index: 0, line: 1)
    let digest = InputDigest(
      customer: customer, features: [], models: [:], templateDigest: "t",
      sdkVersion: SemanticVersion(1, 0, 0),
      toolchain: "swift")
    return CustomerJob(
      customer: customer, version: SemanticVersion(1, 0, 0), digest: digest, reason: "first release",
      releaseNotes: CustomerReleaseNotes(
        customer: customer, version: SemanticVersion(1, 0, 0), sdkVersion: SemanticVersion(1, 0, 0),
        models: [:],
        recorded: nil, sdkChangelog: [:], templateDigest: "t", modelManifestURL: nil, repositoryURL: nil,
        features: []))
  }

  func context(jobs: Int, failFast: Bool, reporter: RecordingReporter) -> ReleaseContext {
    var settings = RunSettings()
    settings.build.jobs = jobs
    settings.build.failFast = failFast
    let services = Services(
      processRunner: ScriptedProcessRunner(), clock: ManualClock(),
      root: URL(fileURLWithPath: "/nonexistent"),
      environment: [:], output: CapturedOutput())
    return ReleaseContext(services: services, settings: settings, reporter: reporter)
  }

  func testOneFailureDoesNotStopTheOthers() {
    let log = RecordingStep.Log()
    let reporter = RecordingReporter()
    let jobs = pipeline([
      RecordingStep(name: "build", failFor: ["b"], log: log),
      RecordingStep(name: "stage", failFor: [], log: log),
    ])
    .run(["a", "b", "c", "d"].map(pending), context(jobs: 2, failFast: false, reporter: reporter))

    XCTAssertEqual(jobs.map(\.status).filter { $0 == .succeeded }.count, 3)
    XCTAssertEqual(jobs[1].status, .failed(step: "build", reason: "swift build: exited with status 1"))
    // The failed customer never reached its later steps; the others all did.
    XCTAssertFalse(log.entries.contains("stage b"))
    XCTAssertEqual(Set(log.entries.filter { $0.hasPrefix("stage") }), ["stage a", "stage c", "stage d"])
    let finished = reporter.events.compactMap { event -> String? in
      if case .customerFinished(let outcome) = event { return "\(outcome.id) \(outcome.status)" }
      return nil
    }
    XCTAssertEqual(Set(finished), ["a built", "b failed", "c built", "d built"])
  }

  func testFailFastStopsStartingNewCustomers() {
    let log = RecordingStep.Log()
    let jobs = pipeline([RecordingStep(name: "build", failFor: ["a"], log: log)])
      .run(
        ["a", "b", "c", "d"].map(pending), context(jobs: 1, failFast: true, reporter: RecordingReporter()))
    XCTAssertEqual(jobs[0].status, .failed(step: "build", reason: "swift build: exited with status 1"))
    XCTAssertEqual(jobs[1...].map(\.status), [.cancelled, .cancelled, .cancelled])
    XCTAssertEqual(log.entries, ["build a"])
  }

  /// Customers of one feature set run one after another on a worker (its warm slot keeps
  /// that set's build), and a second worker starts on another set.
  func testAWorkerStaysWithItsGroupAndAnotherTakesAnotherGroup() {
    let group = ["a": "x", "b": "y", "c": "x", "d": "y", "e": "x"]
    let affinity = { @Sendable (job: CustomerJob) in group[job.id] ?? "" }
    let log = RecordingStep.Log()
    _ = pipeline([RecordingStep(name: "build", failFor: [], log: log)])
      .run(
        ["a", "b", "c", "d", "e"].map(pending),
        context(jobs: 1, failFast: false, reporter: RecordingReporter()),
        affinity: affinity)
    XCTAssertEqual(log.entries, ["build a", "build c", "build e", "build b", "build d"])

    var queue = CustomerPipeline.JobQueue(pending: ["a", "b", "c", "d"].map(job))
    XCTAssertEqual(queue.take(worker: 0, preferring: nil, affinity: affinity)?.id, "a")
    XCTAssertEqual(
      queue.take(worker: 1, preferring: nil, affinity: affinity)?.id, "b", "not x, worker 0's group")
    XCTAssertEqual(queue.take(worker: 0, preferring: "x", affinity: affinity)?.id, "c")
    XCTAssertEqual(queue.take(worker: 0, preferring: "x", affinity: affinity)?.id, "d", "no x left: the next")
    XCTAssertNil(queue.take(worker: 1, preferring: "y", affinity: affinity))
  }

  /// A worker whose group is done joins a group another worker is on only when enough of it is
  /// left to be worth its switch; else that worker does the rest alone. A group no worker is on
  /// is always taken.
  func testAWorkerJoinsAnotherWorkersGroupOnlyWhenEnoughOfItIsLeft() {
    let group = ["a": "x", "b": "y", "c": "y", "d": "y", "e": "z", "f": "y"]
    let affinity = { @Sendable (job: CustomerJob) in group[job.id] ?? "" }
    var queue = CustomerPipeline.JobQueue(pending: ["a", "b", "c", "d", "e", "f"].map(job), worthJoining: 2)
    XCTAssertEqual(queue.take(worker: 0, preferring: nil, affinity: affinity)?.id, "a")
    XCTAssertEqual(queue.take(worker: 1, preferring: nil, affinity: affinity)?.id, "b")
    XCTAssertEqual(
      queue.take(worker: 0, preferring: "x", affinity: affinity)?.id, "e", "z: no worker is on it")
    XCTAssertEqual(queue.take(worker: 1, preferring: "y", affinity: affinity)?.id, "c")
    XCTAssertEqual(
      queue.take(worker: 0, preferring: "z", affinity: affinity)?.id, "d", "two of y left: worth joining")
    XCTAssertEqual(queue.take(worker: 1, preferring: "y", affinity: affinity)?.id, "f")
    XCTAssertNil(queue.take(worker: 0, preferring: "y", affinity: affinity))
    XCTAssertNil(queue.take(worker: 1, preferring: "y", affinity: affinity))

    var tail = CustomerPipeline.JobQueue(pending: ["a", "b", "c"].map(job), worthJoining: 3)
    XCTAssertEqual(tail.take(worker: 0, preferring: nil, affinity: affinity)?.id, "a")
    XCTAssertEqual(tail.take(worker: 1, preferring: nil, affinity: affinity)?.id, "b")
    XCTAssertNil(
      tail.take(worker: 0, preferring: "x", affinity: affinity), "one of y left: worker 1 does it alone")
    XCTAssertEqual(tail.take(worker: 1, preferring: "y", affinity: affinity)?.id, "c")
  }

  func testUpToDateJobsAreNotRun() {
    let log = RecordingStep.Log()
    var planned = ["a", "b"].map(pending)
    planned[0].status = .upToDate
    let jobs = pipeline([RecordingStep(name: "build", failFor: [], log: log)])
      .run(planned, context(jobs: 2, failFast: false, reporter: RecordingReporter()))
    XCTAssertEqual(log.entries, ["build b"])
    XCTAssertEqual(jobs[0].status, .upToDate)
  }
}
