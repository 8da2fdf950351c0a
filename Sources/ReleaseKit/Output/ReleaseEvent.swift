import Foundation
import ReleaseManifest
import ReleaseSystem

/// Everything a run reports, as data: the terminal, `--json`, GitHub Actions and JUnit
/// reporters each render the same events their own way.
public enum ReleaseEvent: Sendable {
  public struct PlannedCustomer: Sendable, Equatable {
    public var id: String
    public var version: String
    public var action: Action
    public var reason: String

    /// What the plan does with the customer; the raw value is the text every reporter shows.
    public enum Action: String, Sendable, CustomStringConvertible {
      case build
      case upToDate = "up to date"
      /// A model it uses could not be fetched.
      case fail

      public var description: String { rawValue }
    }
  }

  public struct CustomerOutcome: Sendable, Equatable {
    public var id: String
    public var version: String
    public var status: Status
    public var seconds: Double
    public var artifact: String?
    public var sha256: String?
    public var testCount: Int?
    public var failedStep: String?
    public var reason: String?
    public var logFile: String?
    /// At the end of a run: whether this customer's release went out (checked, listed and,
    /// when the run publishes, published, tagged and recorded). Nil while the run goes on.
    public var shipped: Bool? = nil

    /// How a customer's job ended; the raw value is the text every reporter shows.
    public enum Status: String, Sendable, CustomStringConvertible {
      /// Not finished yet.
      case pending
      case built
      case upToDate = "up to date"
      case failed
      /// Not started because `--fail-fast` stopped the run.
      case cancelled

      public var description: String { rawValue }
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
}

/// Renders events. Implementations must accept calls from several threads.
public protocol Reporter: AnyObject, Sendable {
  func report(_ event: ReleaseEvent)
  /// Called once at the end of a run, after the summary.
  func finish()
}

extension Reporter {
  public func finish() {}
}

/// Sends each event to several reporters (terminal + JUnit + GitHub step summary, …).
/// Finishes its reporters once, however often it is asked (the command and the error path
/// both do).
public final class ReporterGroup: Reporter {
  private let reporters: [Reporter]
  private let finished = Locked(false)
  public init(_ reporters: [Reporter]) { self.reporters = reporters }
  public func report(_ event: ReleaseEvent) { reporters.forEach { $0.report(event) } }
  public func finish() {
    let first = finished.withLock { finished in
      defer { finished = true }
      return !finished
    }
    if first { reporters.forEach { $0.finish() } }
  }
}
