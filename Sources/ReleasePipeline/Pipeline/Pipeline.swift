import Foundation
import ReleaseCore
import ReleaseJSON
import ReleaseManifest
import ReleaseReporting
import ReleaseSystem

/// Runs the steps of a run, each once, on the value the step before returned. The one place
/// that handles skipping, `--dry-run`, preflight refusals and turning a step's error into a
/// `ReleaseError`, so steps contain only their own work.
package struct Pipeline: Sendable {
  package let context: ReleaseContext

  package init(_ context: ReleaseContext) { self.context = context }

  /// Runs a step the run cannot go on without.
  package func run<S: RequiredStep>(_ step: S, _ input: S.Input) throws -> S.Output {
    context.reporter.report(.stepStarted(step.name))
    return try mappingErrors(of: step.name) { try step.run(input, context) }
  }

  /// Runs a step unless it is skipped or, under `--dry-run`, previewed or refused; nil when it
  /// did not run.
  @discardableResult
  package func run<S: Step>(_ step: S, _ input: S.Input) throws -> S.Output? {
    if let reason = step.skipReason(input, context) {
      context.reporter.report(.stepSkipped(step.name, reason: reason))
      return nil
    }
    if context.settings.dryRun && step.changesState {
      let lines = step.dryRunDescription(input, context)
      if !lines.isEmpty { context.reporter.report(.dryRun(step: step.name, lines: lines)) }
      return nil
    }
    context.reporter.report(.stepStarted(step.name))
    do {
      return try mappingErrors(of: step.name) { try step.run(input, context) }
    } catch let error as ReleaseError
      where error.isInvalidInput && context.settings.dryRun && step.isPreflightCheck
    {
      context.reporter.report(.wouldRefuse(step: step.name, error.lines))
      return nil
    }
  }

  private func mappingErrors<T>(of step: String, _ body: () throws -> T) throws -> T {
    do {
      return try body()
    } catch let error as ReleaseError {
      throw error
    } catch let failure as ValidationFailure {
      throw ReleaseError.validation(failure)
    } catch let diagnostic as Diagnostic {
      throw ReleaseError.validation(ValidationFailure([diagnostic]))
    } catch {
      throw ReleaseError.stepFailed(step: step, reason: "\(error)")
    }
  }
}

/// Runs one customer's steps in order, each on what the one before made; reports each step
/// as it starts and names the step that failed.
package struct CustomerSteps: Sendable {
  package let job: CustomerJob
  package let context: ReleaseContext

  struct Failure: Error {
    var step: String
    var reason: String
    /// How many tests ran before the step that failed, for the customer's outcome.
    var testCount: Int?
    var testedBy: TestMethod?
  }

  package func run<S: CustomerStep>(_ step: S, _ input: S.Input) throws -> S.Output {
    context.reporter.report(.customerProgress(id: job.id, step: step.name))
    do {
      return try step.run(input, for: job, context)
    } catch {
      throw Failure(step: step.name, reason: "\(error)")
    }
  }

  /// Runs the steps after the tests: when one of them fails, the outcome still says how many
  /// tests ran.
  package func afterTests<T>(ran testCount: Int?, by method: TestMethod? = nil, _ body: () throws -> T) throws
    -> T
  {
    do {
      return try body()
    } catch var failure as Failure {
      failure.testCount = testCount
      failure.testedBy = method
      throw failure
    }
  }
}

/// A customer's release in `dist/<id>/<version>/`: what the customer steps make.
package struct StagedRelease: Sendable {
  var archive: CustomerResult.Archive
  package var testCount: Int?
  /// How the tests ran; not part of `release.json`.
  package var testedBy: TestMethod?

  package init(archive: CustomerResult.Archive, testCount: Int?, testedBy: TestMethod? = nil) {
    self.archive = archive
    self.testCount = testCount
    self.testedBy = testedBy
  }
}

/// Runs each pending customer's job through the customer steps, `jobs` at a time. A failing
/// customer does not stop the others unless `--fail-fast`; its files never reach a final name
/// because every customer step writes to temporary names or scratch space until the last.
package struct CustomerPipeline: Sendable {
  package typealias Steps = @Sendable (CustomerJob, CustomerSteps) throws -> StagedRelease
  /// One customer's steps, from its job to its release.
  let steps: Steps

  package init(_ steps: @escaping Steps) { self.steps = steps }

  /// Returns `customers` with each pending one's result, in the same order; the others are
  /// returned as they are. `finished` runs after each job, before its outcome is reported.
  /// `affinity` groups jobs that are cheaper one after another on the same worker (customers
  /// with the same features share a warm build slot's plan and modules): each of the `--jobs`
  /// workers takes the next job of its last group while there is one, else one of a group no
  /// other worker is on, else one of a group another worker is on if that group has at least
  /// `worthJoining` jobs left; else the worker is done, and the worker on that group does the
  /// rest.
  package func run(
    _ customers: [CustomerResult], _ context: ReleaseContext,
    affinity: @escaping @Sendable (CustomerJob) -> String = { _ in "" }, worthJoining: Int = 1,
    finished: @escaping @Sendable (inout CustomerResult) -> Void = { _ in }
  ) -> [CustomerResult] {
    let pending = customers.filter { $0.status == .pending }
    guard !pending.isEmpty else { return customers }
    let results = Locked(customers)
    let index = Dictionary(uniqueKeysWithValues: customers.enumerated().map { ($1.id, $0) })
    let queue = Locked(JobQueue(pending: pending.map(\.job), worthJoining: worthJoining))
    let group = DispatchGroup()
    // Set once by a failing job under --fail-fast; read before starting each job.
    let stop = Locked(false)
    // A customer that failed before building (a model that could not be fetched) stops the
    // others too under --fail-fast.
    if context.settings.build.failFast && customers.contains(where: \.isFailed) { stop.set(true) }

    for worker in 0..<max(1, min(context.settings.build.jobs, pending.count)) {
      group.enter()
      DispatchQueue.global().async {
        defer { group.leave() }
        var last: String?
        while let job = queue.withLock({ $0.take(worker: worker, preferring: last, affinity: affinity) }) {
          let position = index[job.id]!
          var result = results.withLock { $0[position] }
          if stop.value {
            result.status = .cancelled
            context.reporter.report(.customerFinished(result.outcome(relativeTo: context.services.root)))
          } else {
            result = runJob(result, context, finished: finished)
            if result.isFailed && context.settings.build.failFast { stop.set(true) }
            last = affinity(job)
          }
          results.withLock { $0[position] = result }
        }
      }
    }
    group.wait()
    return results.value
  }

  /// The jobs not started yet, in order, and the group each worker is on.
  struct JobQueue: Sendable {
    var pending: [CustomerJob]
    /// How many jobs a group another worker is on must have left for a worker to join it.
    var worthJoining = 1
    var current: [Int: String] = [:]

    /// Nil: this worker is done (every job left is in a group another worker is on and
    /// goes on with).
    mutating func take(worker: Int, preferring last: String?, affinity: (CustomerJob) -> String)
      -> CustomerJob?
    {
      let others = Set(current.filter { $0.key != worker }.values)
      func joinable() -> Int? {
        var left: [String: Int] = [:]
        for job in pending { left[affinity(job), default: 0] += 1 }
        return pending.firstIndex { others.contains(affinity($0)) && left[affinity($0)]! >= worthJoining }
      }
      guard
        let index = pending.firstIndex(where: { affinity($0) == last })
          ?? pending.firstIndex(where: { !others.contains(affinity($0)) }) ?? joinable()
      else {
        current[worker] = nil
        return nil
      }
      let job = pending.remove(at: index)
      current[worker] = affinity(job)
      return job
    }
  }

  private func runJob(
    _ planned: CustomerResult, _ context: ReleaseContext, finished: (inout CustomerResult) -> Void
  ) -> CustomerResult {
    let job = planned.job
    let clock = context.services.clock
    let start = clock.monotonicSeconds()
    context.reporter.report(.customerStarted(id: job.id, version: job.version.description))
    var result = planned
    do {
      let release = try steps(job, CustomerSteps(job: job, context: context))
      result.status = .succeeded
      result.archive = release.archive
      result.testCount = release.testCount
      result.testedBy = release.testedBy
    } catch let failure as CustomerSteps.Failure {
      result.status = .failed(step: failure.step, reason: failure.reason)
      result.testCount = failure.testCount
      result.testedBy = failure.testedBy
    } catch {
      result.status = .failed(step: "customer steps", reason: "\(error)")
    }
    result.duration = clock.monotonicSeconds() - start
    finished(&result)
    if result.isFailed, let log = result.logFile {
      context.reporter.report(.customerLogTail(id: job.id, lines: LogExcerpt.failure(of: log, tail: 20)))
    }
    context.reporter.report(.customerFinished(result.outcome(relativeTo: context.services.root)))
    return result
  }
}
