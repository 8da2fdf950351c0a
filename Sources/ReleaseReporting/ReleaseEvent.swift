import Foundation
import ReleaseJSON
import ReleaseManifest
import ReleaseSystem

/// Everything a run reports, as data: the terminal, `--json`, GitHub Actions and JUnit
/// reporters each render the same events their own way.
package enum ReleaseEvent: Sendable {
  package struct PlannedCustomer: Sendable, Equatable {
    var id: String
    var version: String
    var action: Action
    var reason: String

    package init(id: String, version: String, action: Action, reason: String) {
      self.id = id
      self.version = version
      self.action = action
      self.reason = reason
    }

    /// What the plan does with the customer; the raw value is the text every reporter shows.
    package enum Action: String, Sendable, CustomStringConvertible {
      case build
      case upToDate = "up to date"
      /// A model it uses could not be fetched.
      case fail

      package var description: String { rawValue }
    }
  }

  package struct CustomerOutcome: Sendable, Equatable {
    var id: String
    var version: String
    package var status: Status
    var seconds: Double
    var artifact: String?
    var sha256: String?
    var testCount: Int?
    /// How its tests ran (`swift test`, or a compile key's test binary); nil when none ran.
    var testedBy: TestMethod?
    package var failedStep: String?
    package var reason: String?
    var logFile: String?
    /// At the end of a run: whether this customer's release went out (checked, listed and,
    /// when the run publishes, published, tagged and recorded). Nil while the run goes on.
    var shipped: Bool? = nil

    package init(
      id: String, version: String, status: Status, seconds: Double, artifact: String? = nil,
      sha256: String? = nil, testCount: Int? = nil, failedStep: String? = nil, reason: String? = nil,
      logFile: String? = nil, shipped: Bool? = nil, testedBy: TestMethod? = nil
    ) {
      self.id = id
      self.version = version
      self.status = status
      self.seconds = seconds
      self.artifact = artifact
      self.sha256 = sha256
      self.testCount = testCount
      self.testedBy = testedBy
      self.failedStep = failedStep
      self.reason = reason
      self.logFile = logFile
      self.shipped = shipped
    }

    /// How a customer's job ended; the raw value is the text every reporter shows.
    package enum Status: String, Sendable, CustomStringConvertible {
      /// Not finished yet.
      case pending
      case built
      case upToDate = "up to date"
      case failed
      /// Not started because `--fail-fast` stopped the run.
      case cancelled

      package var description: String { rawValue }
    }
  }

  case diagnostics([Diagnostic])
  case plan([PlannedCustomer])
  case stepStarted(String)
  case stepSkipped(String, reason: String)
  case dryRun(step: String, lines: [String])
  case customerStarted(id: String, version: String)
  case customerProgress(id: String, step: String)
  case customerFinished(CustomerOutcome)
  /// The last lines of a failed customer's log, shown where the failure is reported.
  case customerLogTail(id: String, lines: [String])
  case info(String)
  case summary([CustomerOutcome], seconds: Double)
  /// The run's error, one line each (the first names what failed).
  case failure([String])

  /// A dry run's preview of the refusal a real run would end with, one `would refuse:` line
  /// each.
  package static func wouldRefuse(step: String, _ lines: [String]) -> ReleaseEvent {
    .dryRun(step: step, lines: lines.map { "would refuse: \($0)" })
  }
}

/// Renders events. Implementations must accept calls from several threads.
package protocol Reporter: AnyObject, Sendable {
  func report(_ event: ReleaseEvent)
  /// Called once at the end of a run, after the summary.
  func finish()
}

extension Reporter {
  package func finish() {}
}

/// Sends each event to several reporters (terminal + JUnit + GitHub step summary, …).
/// Finishes its reporters once, however often it is asked (the command and the error path
/// both do).
package final class ReporterGroup: Reporter {
  private let reporters: [Reporter]
  private let finished = Locked(false)
  package init(_ reporters: [Reporter]) { self.reporters = reporters }
  package func report(_ event: ReleaseEvent) { reporters.forEach { $0.report(event) } }
  package func finish() {
    let first = finished.withLock { finished in
      defer { finished = true }
      return !finished
    }
    if first { reporters.forEach { $0.finish() } }
  }
}
