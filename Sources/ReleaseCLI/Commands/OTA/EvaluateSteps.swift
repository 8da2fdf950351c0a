import Foundation
import ReleaseCore
import ReleaseEvaluation
import ReleaseManifest
import ReleaseOTA
import ReleasePipeline
import ReleaseReporting
import ReleaseSettings
import ReleaseSystem

// `release ota evaluate` as a chain of steps (`EvaluateCommand.pipeline`): select the
// challengers, read the outcomes, judge, show, write the report, apply, publish, and fail on
// a split that cannot be judged.

/// What `ota evaluate` is asked for: its options, and the rollout policy the command read.
struct EvaluateRequest {
  var options: EvaluateOptions
  var policies: RolloutPolicyConfiguration
  /// The configuration file the policy came from, for messages.
  var configurationPath: String
}

/// The challengers `ota evaluate` judges, and what they were selected from.
struct SelectedChallengers {
  var request: EvaluateRequest
  var inputs: OTAInputs
  var customers: [Customer]
  var today: OutcomeDate
  var candidates: [EvaluationCandidate]
}

/// Every challenger with its judgement, from the outcomes.
struct JudgedChallengers {
  var selected: SelectedChallengers
  var outcomes: Outcomes
  var judged: [(EvaluationCandidate, Judgement)]
  var judgements: [Judgement] { judged.map(\.1) }
}

/// The rollouts, the policy checked against the manifest, the customers and flow asked for,
/// and every active challenger of them with its baseline.
struct SelectChallengersStep: RequiredStep {
  let name = "select challengers"

  func run(_ request: EvaluateRequest, _ context: ReleaseContext) throws -> SelectedChallengers {
    let options = request.options
    let inputs = try OTAInputs.load(options.settings.inputs, services: context.services)
    try request.policies.checkCustomers(
      against: inputs.manifest, configurationPath: request.configurationPath)
    let today = OutcomeDate(utcDayOf: context.services.clock.now())
    if let since = options.since, since > today {
      throw ReleaseError.usage(
        "\(Options.since.name): found \(since); expected no date after today (\(today), UTC)")
    }
    let customers =
      try options.customer.map { [try inputs.customer($0, command: "ota evaluate")] }
      ?? inputs.manifest.customers
    if let flowName = options.flowName, let customer = customers.first {
      do {
        _ = try RolloutChange.bundledModel(of: customer, flowName: flowName, command: "ota evaluate")
      } catch let refusal as RolloutChange.Refusal {
        throw ReleaseError.usage(refusal.description)
      }
    }
    let candidates = EvaluationCandidate.selected(
      from: inputs.rollouts, customers: customers, flowName: options.flowName, since: options.since,
      policies: request.policies)
    return SelectedChallengers(
      request: request, inputs: inputs, customers: customers, today: today, candidates: candidates)
  }
}

/// The outcomes export, read and checked whole, and every challenger judged on it.
struct JudgeChallengersStep: RequiredStep {
  let name = "judge challengers"

  func run(_ selected: SelectedChallengers, _ context: ReleaseContext) throws -> JudgedChallengers {
    let options = selected.request.options
    let outcomes = try OutcomesSource.outcomes(
      options.outcomes, inputs: options.settings.inputs, customers: selected.customers,
      flowName: options.flowName, services: context.services, today: selected.today)
    let judgements = Evaluator.judge(selected.candidates.map(\.challenge), outcomes: outcomes)
    return JudgedChallengers(
      selected: selected, outcomes: outcomes, judged: zip(selected.candidates, judgements).map { ($0, $1) })
  }
}

/// The verdicts: a table per challenger (or a JSON line each), and what was skipped.
struct ShowVerdictsStep: RequiredStep {
  let name = "show verdicts"

  func run(_ judged: JudgedChallengers, _ context: ReleaseContext) throws {
    let output = context.services.output
    if judged.selected.candidates.isEmpty {
      output.write(
        line:
          "ota evaluate: no active challenger (an active offer below 100%) to judge in \(judged.selected.inputs.rolloutsPath)",
        to: .standardError)
    }
    if judged.outcomes.skippedRows > 0 {
      output.write(
        line: "ota evaluate: skipped \(judged.outcomes.skippedRows) rows of customers or flows not judged",
        to: .standardError)
    }
    for (index, (candidate, judgement)) in judged.judged.enumerated() {
      if judged.selected.request.options.json {
        output.write(line: judgement.jsonLine(), to: .standardOutput)
      } else {
        // One table per challenger, a blank line between them.
        output.write(
          lines: (index > 0 ? [""] : []) + VerdictText.table(judgement, candidate), to: .standardOutput)
      }
    }
  }
}

/// `--report` and, under GitHub Actions, the step summary; nothing under `--dry-run`.
struct WriteEvaluationReportStep: Step {
  let name = "write report"
  let changesState = true

  func skipReason(_ judged: JudgedChallengers, _ context: ReleaseContext) -> String? {
    judged.judged.isEmpty ? "no challenger judged" : nil
  }

  func run(_ judged: JudgedChallengers, _ context: ReleaseContext) throws {
    let services = context.services
    if let report = judged.selected.request.options.reportPath {
      try Self.write(judged.judgements, to: services.resolve(report), shown: report)
    }
    if let summary = services.environment["GITHUB_STEP_SUMMARY"], !summary.isEmpty {
      GitHubActionsReporter.appendStepSummary(
        EvaluationReport.markdown(judged.judgements), to: URL(fileURLWithPath: summary))
    }
  }

  /// Per judgement `<name>.svg` and `<name>.md` (its table row and the chart), `summary.md`
  /// with every row, and `index.html`, one self-contained page of them all; each written to a
  /// temporary file and renamed into place.
  private static func write(_ judgements: [Judgement], to directory: URL, shown: String) throws {
    do {
      try AtomicFile.createDirectory(directory)
      for judgement in judgements {
        let chart = EvaluationReport.chartFileName(judgement)
        let base = String(chart.dropLast(".svg".count))
        try AtomicFile.write(EvaluationReport.svg(judgement), to: directory.appendingPathComponent(chart))
        try AtomicFile.write(
          EvaluationReport.markdown([judgement]) + "\n![\(base)](\(chart))\n",
          to: directory.appendingPathComponent(base + ".md"))
      }
      try AtomicFile.write(
        EvaluationReport.markdown(judgements), to: directory.appendingPathComponent("summary.md"))
      try AtomicFile.write(
        EvaluationReport.html(judgements), to: directory.appendingPathComponent("index.html"))
    } catch {
      // Before anything is applied: a report directory that cannot be written is a bad argument.
      throw ReleaseError.invalidInput(
        "\(Options.report.name) \(shown): cannot write the report (\(SystemError.reason(error)))")
    }
  }
}

/// `--apply`: carries each decision out in rollouts.json (previewed under `--dry-run`).
/// Returns what `--publish` publishes next; nil when nothing is (under `--dry-run` it says
/// what publishing would do).
struct ApplyDecisionsStep: Step {
  let name = "apply decisions"

  func skipReason(_ judged: JudgedChallengers, _ context: ReleaseContext) -> String? {
    judged.selected.request.options.apply ? nil : "no --apply"
  }

  func run(_ judged: JudgedChallengers, _ context: ReleaseContext) throws -> RunSettings? {
    let (options, inputs) = (judged.selected.request.options, judged.selected.inputs)
    do {
      try EvaluationDecision.apply(
        judged.judged, inputs: inputs, dryRun: options.dryRun,
        diffStream: options.json ? .standardError : .standardOutput, services: context.services,
        today: judged.selected.today)
    } catch let error as ReleaseError where error.exitCode == 2 {
      // Outcomes and arguments were checked above: what fails now is carrying the decisions out.
      throw ReleaseError.stepFailed(step: "ota evaluate --apply", reason: error.lines.joined(separator: "; "))
    }
    guard let release = options.settings.publish else { return nil }
    guard options.dryRun else { return release }
    let output = context.services.output
    if release.hasSignedChannel, !release.signing.canSign {
      output.write(line: "dry run: would refuse: \(CheckOTAStep.missingSigner)", to: .standardError)
    }
    output.write(
      line:
        "dry run: would publish the over-the-air manifests to \(release.publishing.destinations.map(\.description).joined(separator: ", "))",
      to: .standardError)
    return nil
  }
}

/// A split that cannot be judged needs a person: the job fails (after acting on it).
struct CheckJudgementsStep: RequiredStep {
  let name = "check judgements"

  func run(_ judged: JudgedChallengers, _ context: ReleaseContext) throws {
    let invalid = judged.judged.filter { $0.1.decision == .invalid }
    guard invalid.isEmpty else {
      throw ReleaseError.stepProblems(
        step: "ota evaluate",
        problems: invalid.map { candidate, judgement in
          "\(candidate.customer.id) \(judgement.flow) v\(judgement.challenger): invalid ("
            + (judgement.invalidReason.map(EvaluationReport.invalidText) ?? "no rows") + ")"
        })
    }
  }
}
