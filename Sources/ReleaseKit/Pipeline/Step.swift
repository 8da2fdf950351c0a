import Foundation

/// One step of a release (after GoReleaser's pipes): small, named, sharing the context.
/// Skipping, dry-run and error wrapping are done once, by `Pipeline`, not in each step.
public protocol Step: Sendable {
  var name: String { get }
  /// Why the step does not run in this context; nil when it runs.
  func skipReason(_ context: ReleaseContext) -> String?
  /// Whether the step writes files, publishes or tags. Such steps do not run under
  /// `--dry-run`; `Pipeline` prints `dryRunDescription` instead.
  var changesState: Bool { get }
  func dryRunDescription(_ context: ReleaseContext) -> [String]
  /// Whether the step only checks that the run may go ahead (it writes nothing). Under
  /// `--dry-run` such a check's refusal is shown as a line of the plan and the preview goes
  /// on: a preview usually comes before the change it shows is committed.
  var isPreflightCheck: Bool { get }
  func run(_ context: ReleaseContext) throws
}

extension Step {
  public func skipReason(_ context: ReleaseContext) -> String? { nil }
  public var changesState: Bool { false }
  public var isPreflightCheck: Bool { false }
  public func dryRunDescription(_ context: ReleaseContext) -> [String] { [] }
}

/// A step run once per customer, in parallel with other customers' jobs.
public protocol CustomerStep: Sendable {
  var name: String { get }
  func run(_ job: CustomerJob, _ context: ReleaseContext) throws
}
