import Foundation
import ReleaseCore
import ReleasePipeline
import ReleaseVerification

/// Runs the content checks on every artifact of the run (built or up to date) before
/// anything is published; any problem stops the run. Returns the checked release publishing
/// requires; a run with nothing to check (nothing ships, or a dry run, which built nothing)
/// goes on with a release in which nothing is checked, so nothing can be published.
struct CheckArtifactsStep: PhaseStep {
  let name = "check artifacts"

  func skipReason(_ results: RunResults, _ context: ReleaseContext) -> String? {
    if context.settings.dryRun { return "dry run: nothing was built" }
    return results.nothingShipsReason("checked")
  }

  func notRun(_ results: RunResults, _ context: ReleaseContext) -> CheckedRelease {
    CheckedRelease(notChecked: results)
  }

  func run(_ results: RunResults, _ context: ReleaseContext) throws -> CheckedRelease {
    let jobs = results.shipping.map(\.job)
    // Also for releases built by this run: what ships is proven against its inputs.
    let found = try ArtifactChecks.problems(
      of: jobs.map { ($0, $0.releaseDirectory(in: context.distDirectory)) },
      store: try results.inputs.storeModels.models(), inputs: results.inputs)
    let problems = zip(jobs, found).flatMap { job, found in found.map { "\(job.id): \($0)" } }
    if !problems.isEmpty {
      throw ReleaseError.stepProblems(step: name, problems: problems + [ReproductionCheck.recovery])
    }
    context.reporter.report(.info("content checks passed for \(jobs.count) artifacts"))
    return CheckedRelease(contentChecksPassed: results.shipping, of: results)
  }
}
