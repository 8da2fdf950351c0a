import Foundation
import ReleaseManifest
import ReleaseSystem

/// Runs steps in order. The one place that handles skipping, `--dry-run` and turning a
/// step's error into a `ReleaseError`, so steps contain only their own work.
public struct Pipeline: Sendable {
  public var steps: [Step]

  public init(_ steps: [Step]) { self.steps = steps }

  public func run(_ context: ReleaseContext) throws {
    for step in steps {
      if let reason = step.skipReason(context) {
        context.reporter.report(.stepSkipped(step.name, reason: reason))
        continue
      }
      if context.options.dryRun && step.changesState {
        let lines = step.dryRunDescription(context)
        if !lines.isEmpty { context.reporter.report(.dryRun(step: step.name, lines: lines)) }
        continue
      }
      context.reporter.report(.stepStarted(step.name))
      do {
        try step.run(context)
      } catch let error as ReleaseError
        where error.isInvalidInput && context.options.dryRun && step.isPreflightCheck
      {
        context.reporter.report(.dryRun(step: step.name, lines: error.lines.map { "would refuse: \($0)" }))
      } catch let error as ReleaseError {
        throw error
      } catch let failure as ValidationFailure {
        throw ReleaseError.validation(failure)
      } catch let diagnostic as Diagnostic {
        throw ReleaseError.validation(ValidationFailure([diagnostic]))
      } catch {
        throw ReleaseError.stepFailed(step: step.name, reason: "\(error)")
      }
    }
  }
}

/// Runs each pending customer job through the customer steps, `jobs` at a time. A failing
/// customer does not stop the others unless `--fail-fast`; its files never reach a final name
/// because every customer step writes to temporary names or scratch space until the last.
public struct CustomerPipeline: Sendable {
  public var steps: [CustomerStep]

  public init(_ steps: [CustomerStep]) { self.steps = steps }

  /// `finished` runs after each job, before its outcome is reported. `affinity` groups jobs
  /// that are cheaper one after another on the same worker (customers with the same features
  /// share a warm build slot's plan and modules): each of the `--jobs` workers takes the next
  /// job of its last group while there is one, else one of a group no other worker is on,
  /// else one of a group another worker is on if that group has at least `worthJoining` jobs
  /// left; else the worker is done, and the worker on that group does the rest.
  public func run(
    _ jobs: [CustomerJob], _ context: ReleaseContext,
    affinity: @escaping @Sendable (CustomerJob) -> String = { _ in "" }, worthJoining: Int = 1,
    finished: @escaping @Sendable (CustomerJob) -> Void = { _ in }
  ) {
    let pending = jobs.filter { $0.status == .pending }
    guard !pending.isEmpty else { return }
    let queue = Locked(JobQueue(pending: pending, worthJoining: worthJoining))
    let group = DispatchGroup()
    // Set once by a failing job under --fail-fast; read before starting each job.
    let stop = Locked(false)
    // A customer that failed before building (a model that could not be fetched) stops the
    // others too under --fail-fast.
    if context.options.failFast
      && jobs.contains(where: { if case .failed = $0.status { true } else { false } })
    {
      stop.set(true)
    }

    for worker in 0..<max(1, min(context.options.jobs, pending.count)) {
      group.enter()
      DispatchQueue.global().async {
        defer { group.leave() }
        var last: String?
        while let job = queue.withLock({ $0.take(worker: worker, preferring: last, affinity: affinity) }) {
          if stop.value {
            job.status = .cancelled
            context.reporter.report(.customerFinished(job.outcome(relativeTo: context.services.root)))
            continue
          }
          runJob(job, context, finished: finished)
          if case .failed = job.status, context.options.failFast { stop.set(true) }
          last = affinity(job)
        }
      }
    }
    group.wait()
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

  private func runJob(_ job: CustomerJob, _ context: ReleaseContext, finished: (CustomerJob) -> Void) {
    let clock = context.services.clock
    let start = clock.monotonicSeconds()
    context.reporter.report(.customerStarted(id: job.id, version: job.version.description))
    for step in steps {
      context.reporter.report(.customerProgress(id: job.id, step: step.name))
      do {
        try step.run(job, context)
      } catch {
        job.status = .failed(step: step.name, reason: "\(error)")
        break
      }
    }
    if job.status == .pending { job.status = .succeeded }
    job.duration = clock.monotonicSeconds() - start
    finished(job)
    if case .failed = job.status, let log = job.logFile {
      context.reporter.report(.customerLogTail(id: job.id, lines: LogExcerpt.failure(of: log, tail: 20)))
    }
    context.reporter.report(.customerFinished(job.outcome(relativeTo: context.services.root)))
  }
}

extension CustomerJob {
  func outcome(relativeTo root: URL, shipped: Bool? = nil) -> ReleaseEvent.CustomerOutcome {
    func relative(_ url: URL?) -> String? {
      guard let path = url?.path else { return nil }
      let prefix = root.path.hasSuffix("/") ? root.path : root.path + "/"
      return path.hasPrefix(prefix) ? String(path.dropFirst(prefix.count)) : path
    }
    // Only a release in dist/ is an artifact; a failed job's archive is scratch (staging).
    let released = status == .succeeded || status == .upToDate
    var outcome = ReleaseEvent.CustomerOutcome(
      id: id, version: version.description, status: "", seconds: duration,
      artifact: released ? relative(archive?.path) : nil, sha256: released ? archive?.sha256 : nil,
      testCount: testCount,
      failedStep: nil, reason: nil, logFile: relative(logFile), shipped: shipped)
    switch status {
    case .pending: outcome.status = "pending"
    case .upToDate: outcome.status = "up to date"
    case .succeeded: outcome.status = "built"
    case .cancelled: outcome.status = "cancelled"
    case .failed(let step, let reason):
      outcome.status = "failed"
      outcome.failedStep = step
      outcome.reason = reason
    }
    return outcome
  }
}
