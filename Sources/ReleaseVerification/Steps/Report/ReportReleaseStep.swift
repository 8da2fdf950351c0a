import Foundation
import ReleaseCore
import ReleasePipeline
import ReleaseReporting

/// `release verify`, for each release: writes its problems, then what the code under check
/// printed when it failed. Whether the release passed.
package struct ReportReleaseStep: RequiredStep {
  package let name = "report"

  package init() {}

  package func run(_ release: ReleaseFindings, _ context: ReleaseContext) throws -> Bool {
    let output = context.services.output
    for problem in release.problems { output.write(line: "  FAIL \(problem)", to: .standardError) }
    if !release.printed.isEmpty {
      // The package's own output: under GitHub Actions fenced like a build log, so it runs
      // no workflow command.
      let indented = release.printed.map { "    \($0)" }
      if context.services.environment["GITHUB_ACTIONS"] == "true" {
        GitHubActionsReporter.writeFenced(indented, output: output, stream: .standardError)
      } else {
        output.write(lines: indented, to: .standardError)
      }
    }
    return release.problems.isEmpty
  }
}

/// `release verify`, last step: how many of the releases passed; an error when any failed.
package struct SummarizeVerificationStep: RequiredStep {
  package let name = "summarize"

  package init() {}

  package struct Failed: Error, CustomStringConvertible {
    let count: Int
    package var description: String { "\(count) release\(count == 1 ? "" : "s") failed verification" }
  }

  /// `passed`: whether each release passed, in order.
  package func run(_ passed: [Bool], _ context: ReleaseContext) throws {
    let failed = passed.filter { !$0 }.count
    context.services.output.write(
      line: "\(passed.count - failed) of \(passed.count) release\(passed.count == 1 ? "" : "s") verified",
      to: .standardOutput)
    if failed > 0 { throw ReleaseError.stepFailed(step: "verify", reason: Failed(count: failed).description) }
  }
}
