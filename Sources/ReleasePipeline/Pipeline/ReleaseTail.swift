import Foundation

// The phases of a run's tail, after the build (the phases before it are in `Phases.swift`):
//
//   CheckArtifactsStep RunResults      -> CheckedRelease  (every shipping release checked)
//   PublishStep        CheckedRelease  -> ShippedRelease  (published to each destination, or none)
//   TagStep            ShippedRelease  -> tags on the commit
//   WriteStateStep     ShippedRelease  -> release-state.json
//
// A checked release is made only by the content checks and a shipped one only by publishing,
// so publishing cannot come before the checks, nor tagging or the state write before
// publishing.

/// A step whose output later steps require whether or not it ran (`Pipeline.run` returns it
/// in every case): skipped (nothing ships, no destination) or previewed (`--dry-run`), it
/// yields the phase with nothing done.
package protocol PhaseStep: Step {
  /// What the run goes on with when the step was skipped or previewed.
  func notRun(_ input: Input, _ context: ReleaseContext) -> Output
}

extension Pipeline {
  /// Runs a phase step unless it is skipped or previewed, as any `Step`; its output exists
  /// either way.
  package func run<S: PhaseStep>(_ step: S, _ input: S.Input) throws -> S.Output {
    try runStep(step, input) ?? step.notRun(input, context)
  }

  /// `run(_:_:)` of a `Step`, chosen over the phase step's overload.
  private func runStep<S: Step>(_ step: S, _ input: S.Input) throws -> S.Output? { try run(step, input) }
}

/// The run's releases once the content checks passed (`CheckArtifactsStep`), which publishing
/// requires.
package struct CheckedRelease: Sendable {
  package let results: RunResults
  /// The releases the checks passed: every one that ships, or none when the checks did not
  /// run (nothing ships, or a dry run, which builds nothing to check).
  package let releases: [CustomerResult]

  /// Only the content checks make a checked release, of the releases they passed.
  package init(contentChecksPassed releases: [CustomerResult], of results: RunResults) {
    self.results = results
    self.releases = releases
  }

  /// A run whose checks did not run: nothing is checked, so nothing can be published.
  package init(notChecked results: RunResults) {
    self.init(contentChecksPassed: [], of: results)
  }
}

/// The run's releases once published to each destination of the run (`PublishStep`), or to
/// none: what tagging and the state write require.
package struct ShippedRelease: Sendable {
  package let results: RunResults
  /// The releases that shipped: checked, and published wherever the run publishes.
  package let releases: [CustomerResult]

  /// Only publishing makes a shipped release, of what the checks passed.
  init(published release: CheckedRelease) {
    results = release.results
    releases = release.releases
  }
}
