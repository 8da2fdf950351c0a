import ReleaseCore
import ReleaseEvaluation
import ReleasePipeline
import ReleaseSettings

/// `release ota evaluate`: judges every active challenger (an active offer below 100 %)
/// against its baseline from the outcomes export (`ReleaseEvaluation`), prints the verdicts,
/// writes the report, and with `--apply` carries the decisions out in `rollouts.json` through
/// the rollout commands' own code, then with `--publish` publishes as `ota publish` does.
enum EvaluateCommand {
  static let command = Command(
    name: "evaluate", synopsis: "ota evaluate [<id> [<flow>]]",
    summary: "judge every challenger by its outcomes; --apply rolls back or promotes",
    title: "judge every active challenger against its baseline by the outcomes",
    usage: ["ota evaluate [<customer> [<flow>]] --outcomes <file|url> [options]"],
    discussion: """
      A challenger is an active offer below 100% above its baseline, the flow's newest offer at \
      100%, else the bundled model. Each is judged from the outcome rows of its splits (its \
      'splits' in rollouts.json, each ramp step a stratum; --since keeps only the current one) \
      on conversions and, when the export has revenue, revenue per device: a harm check that \
      rolls back a challenger whose conversions collapse (ungated, alpha 0.01), a sequential \
      sample ratio test, an exposure gate (each arm's devices times the baseline rate reach \
      minimumConversions), then per metric a 95% always-valid interval of the relative effect \
      (mixture SPRT, Holm across the flow's challengers and metrics) and a decision: rollback \
      (a metric surely worse), promote (no metric worse than its margin), continue, or invalid \
      (sample ratio mismatch, an inconsistent series, no rows of an arm, an export without \
      splitStart that did not restart its counts at the split change). Policy: \
      release.config.json's 'rollouts'. With --apply a rollback retracts the challenger at once, \
      a promote raises it to the schedule's next percentage (only with outcomes dated after its \
      split began; the raise starts a new split today), a challenger with fewer devices than its \
      split gives is retracted and one with more paused (not when the export broke its rule). Bad outcomes (every problem with its \
      line) change nothing; rows of customers or flows not judged are skipped. --report also \
      writes index.html, one self-contained page of every challenger judged. Under --dry-run \
      nothing is written (no rollouts.json, report, step summary or publish). --publish then \
      publishes as 'release ota publish' does, signing the signed channel with --signing-key \
      (else RELEASE_SIGNING_KEY) and expiring it after --expires.
      """,
    positionals: [
      Positional(label: "[<customer>]", help: "only this customer (slug or app_id)"),
      Positional(label: "[<flow>]", help: "only this flow of the customer"),
    ],
    arity: .atMost(2, expected: "<customer> <flow>"),
    groups: EvaluateOptions.groups,
    footer:
      "Exit status: 0 whatever the decisions, 1 a challenger is invalid (after acting on it) or applying or publishing failed, 2 bad arguments or input.",
    parent: "ota",
    run: { try run(try EvaluateOptions($0, $1), $1) })

  /// Its steps (`pipeline`, in `EvaluateSteps.swift`) on its options and the rollout policy.
  static func run(_ options: EvaluateOptions, _ invocation: CommandInvocation) throws {
    let request = EvaluateRequest(
      options: options, policies: options.settings.policies,
      configurationPath: options.settings.configurationPath)
    var settings = RunSettings()
    settings.dryRun = options.dryRun
    try pipeline(request, invocation.quietPipeline(settings)) { release in
      try OTACommand.publish(release, invocation)
    }
  }

  /// The steps of `ota evaluate` (`EvaluateSteps.swift`), each taking what the one before
  /// returned; `publish` publishes the channel as `ota publish` does.
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

/// `release ota evaluate`'s options.
struct EvaluateOptions {
  var customer: String?
  var flowName: String?
  var outcomes: OutcomesLocation
  var since: OutcomeDate?
  var json: Bool
  var reportPath: String?
  var apply: Bool
  var dryRun: Bool
  /// The inputs, the rollout policies and, with `--publish`, what `ota publish` would take.
  var settings: EvaluateSettings

  static let groups = [
    OptionGroup(
      "OPTIONS",
      [
        Options.outcomes, Options.since, Options.evaluateJSON, Options.report, Options.apply, Options.dryRun,
        Options.evaluatePublish, Options.publicURL, Options.manifestExpires,
      ]),
    OptionGroup.otaInputs, OptionGroup.signing,
  ]

  init(_ parsed: Arguments, _ invocation: CommandInvocation) throws {
    // The command's arity lets at most two through, and the parser requires --outcomes.
    customer = parsed.positionals.first
    flowName = parsed.positionals.count > 1 ? parsed.positionals[1] : nil
    if let text = parsed[Options.since] {
      guard let date = OutcomeDate(text) else {
        throw ReleaseError.usage(
          "\(Options.since.name): found \"\(text.prefix(40))\"; expected a UTC date as YYYY-MM-DD")
      }
      since = date
    }
    json = parsed[Options.evaluateJSON]
    reportPath = parsed[Options.report]
    apply = parsed[Options.apply]
    dryRun = parsed[Options.dryRun]
    if dryRun && !apply {
      throw ReleaseError.usage("\(Options.dryRun.name): previews what --apply would change; give --apply too")
    }
    let publishing = parsed.given(Options.evaluatePublish)
    if publishing && !apply {
      throw ReleaseError.usage(
        "\(Options.evaluatePublish.name): publishes what --apply changed; give --apply too (or run 'release ota publish')"
      )
    }
    let resolution = try SettingsResolution(parsed, invocation)
    outcomes = try resolution.outcomesLocation(parsed[Options.outcomes] ?? "", option: Options.outcomes.name)
    settings = try resolution.evaluate(publishing: publishing)
    settings.publish?.json = json
    settings.publish?.dryRun = dryRun
  }
}
