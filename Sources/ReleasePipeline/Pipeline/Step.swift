import Foundation

/// One step of a release (after GoReleaser's pipes): small and named, it takes the value of
/// the phase before and returns what it makes. Skipping, dry-run and error wrapping are done
/// once, by `Pipeline`, not in each step.
package protocol PipelineStep: Sendable {
  associatedtype Input: Sendable
  associatedtype Output: Sendable
  var name: String { get }
  func run(_ input: Input, _ context: ReleaseContext) throws -> Output
}

/// A step the run cannot go on without (reading and planning): it always runs, also under
/// `--dry-run`, so its output always exists.
package protocol RequiredStep: PipelineStep {}

/// A step that may not run: skipped, previewed under `--dry-run`, or (a preflight check) a
/// refusal shown as a line of a dry run's plan. Its output exists only when it ran.
package protocol Step: PipelineStep {
  /// Why the step does not run for this input; nil when it runs.
  func skipReason(_ input: Input, _ context: ReleaseContext) -> String?
  /// Whether the step writes files, publishes or tags. Such steps do not run under
  /// `--dry-run`; `Pipeline` prints `dryRunDescription` instead.
  var changesState: Bool { get }
  func dryRunDescription(_ input: Input, _ context: ReleaseContext) -> [String]
  /// Whether the step only checks that the run may go ahead (it writes nothing). Under
  /// `--dry-run` such a check's refusal is shown as a line of the plan and the preview goes
  /// on: a preview usually comes before the change it shows is committed.
  var isPreflightCheck: Bool { get }
}

extension Step {
  package func skipReason(_ input: Input, _ context: ReleaseContext) -> String? { nil }
  package var changesState: Bool { false }
  package var isPreflightCheck: Bool { false }
  package func dryRunDescription(_ input: Input, _ context: ReleaseContext) -> [String] { [] }
}

/// A step run once per customer, in parallel with other customers' jobs: generate → build and
/// test → archive → stage, each taking what the one before made.
package protocol CustomerStep: Sendable {
  associatedtype Input: Sendable
  associatedtype Output: Sendable
  var name: String { get }
  func run(_ input: Input, for job: CustomerJob, _ context: ReleaseContext) throws -> Output
}
