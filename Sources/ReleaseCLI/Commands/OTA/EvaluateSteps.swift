import Foundation
import ReleaseCore
import ReleaseEvaluation
import ReleaseFlow
import ReleaseManifest
import ReleaseOTA
import ReleasePipeline
import ReleaseReporting
import ReleaseSettings

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
  var candidates: [EvaluateCommand.Candidate]
}

/// Every challenger with its judgement, from the outcomes.
struct JudgedChallengers {
  var selected: SelectedChallengers
  var outcomes: Outcomes
  var judged: [(EvaluateCommand.Candidate, Judgement)]
  var judgements: [Judgement] { judged.map(\.1) }
}

/// The rollouts, the policy checked against the manifest, the customers and flow asked for,
/// and every active challenger of them with its baseline.
struct SelectChallengersStep: RequiredStep {
  let name = "select challengers"

  func run(_ request: EvaluateRequest, _ context: ReleaseContext) throws -> SelectedChallengers {
    let options = request.options
    let inputs = try OTAInputs.load(options.settings.inputs, services: context.services)
    try EvaluateCommand.check(
      request.policies, against: inputs.manifest, configurationPath: request.configurationPath)
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
    let candidates = EvaluateCommand.candidates(
      inputs, customers: customers, flowName: options.flowName, since: options.since,
      policies: request.policies)
    return SelectedChallengers(
      request: request, inputs: inputs, customers: customers, today: today, candidates: candidates)
  }
}

/// The outcomes export, read and checked whole, and every challenger judged on it.
struct JudgeChallengersStep: RequiredStep {
  let name = "judge challengers"

  func run(_ selected: SelectedChallengers, _ context: ReleaseContext) throws -> JudgedChallengers {
    let outcomes = try EvaluateCommand.readOutcomes(
      selected.request.options, customers: selected.customers, services: context.services,
      today: selected.today)
    let judgements = Evaluator.judge(selected.candidates.map(\.challenge), outcomes: outcomes)
    return JudgedChallengers(
      selected: selected, outcomes: outcomes, judged: zip(selected.candidates, judgements).map { ($0, $1) })
  }
}

/// The verdicts: a table per challenger (or a JSON line each), and what was skipped.
struct ShowVerdictsStep: RequiredStep {
  let name = "show verdicts"

  func run(_ judged: JudgedChallengers, _ context: ReleaseContext) throws {
    EvaluateCommand.show(
      judged.selected.candidates, judged.judgements, outcomes: judged.outcomes,
      inputs: judged.selected.inputs,
      options: judged.selected.request.options, output: context.services.output)
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
      try EvaluateCommand.writeReport(judged.judgements, to: services.resolve(report), shown: report)
    }
    if let summary = services.environment["GITHUB_STEP_SUMMARY"], !summary.isEmpty {
      GitHubActionsReporter.appendStepSummary(
        EvaluationReport.markdown(judged.judgements), to: URL(fileURLWithPath: summary))
    }
  }
}

/// `--apply`: carries each decision out in rollouts.json (previewed under `--dry-run`).
/// Returns what `--publish` publishes next; nil when nothing is.
struct ApplyDecisionsStep: Step {
  let name = "apply decisions"

  func skipReason(_ judged: JudgedChallengers, _ context: ReleaseContext) -> String? {
    judged.selected.request.options.apply ? nil : "no --apply"
  }

  func run(_ judged: JudgedChallengers, _ context: ReleaseContext) throws -> RunSettings? {
    try EvaluateCommand.applyDecisions(
      judged.judged, judged.selected.inputs, judged.selected.request.options, context.services,
      today: judged.selected.today)
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

extension EvaluateCommand {
  /// The steps of `ota evaluate`, each taking what the one before returned; `publish`
  /// publishes the channel as `ota publish` does.
  static func pipeline(
    _ request: EvaluateRequest, _ pipeline: Pipeline, publish: (RunSettings) throws -> Void
  ) throws {
    let selected = try pipeline.run(SelectChallengersStep(), request)
    let judged = try pipeline.run(JudgeChallengersStep(), selected)
    try pipeline.run(ShowVerdictsStep(), judged)
    try pipeline.run(WriteEvaluationReportStep(), judged)
    if let applied = try pipeline.run(ApplyDecisionsStep(), judged), let release = applied {
      try publish(release)
    }
    try pipeline.run(CheckJudgementsStep(), judged)
  }
}
