import Foundation
import ReleaseCore
import ReleasePipeline
import ReleaseReporting
import ReleaseSettings
import ReleaseSystem

/// Chooses how a run reports, from the settings and the environment: `--json` events, a live
/// view on a terminal, plain lines otherwise (always under `CI`); plus GitHub Actions output
/// under `GITHUB_ACTIONS=true` and `dist/report.xml` for any run that builds.
enum ReporterFactory {
  static func make(settings: RunSettings, services: Services) -> Reporter {
    let environment = services.environment
    var reporters: [Reporter] = []
    if settings.json {
      // Events on stdout for tools; errors also on stderr for the person watching.
      reporters.append(JSONReporter(output: services.output, clock: services.clock))
      reporters.append(ErrorLinesReporter(output: services.output))
    } else if let terminal = services.output as? StandardOutput, terminal.isTerminal, environment["CI"] == nil
    {
      reporters.append(LiveStatusReporter(output: services.output, clock: services.clock))
    } else {
      reporters.append(PlainReporter(output: services.output, clock: services.clock))
    }
    if environment["GITHUB_ACTIONS"] == "true" {
      reporters.append(
        GitHubActionsReporter(
          output: services.output,
          stepSummary: environment["GITHUB_STEP_SUMMARY"].map(URL.init(fileURLWithPath:)),
          root: services.root, stream: settings.json ? .standardError : .standardOutput))
    }
    if !settings.dryRun {
      reporters.append(
        JUnitReporter(
          destination: services.resolve(settings.inputs.distPath).appendingPathComponent("report.xml")))
    }
    return reporters.count == 1 ? reporters[0] : ReporterGroup(reporters)
  }
}
