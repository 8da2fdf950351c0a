import Foundation
import ReleaseCore
import ReleaseEvaluation
import ReleaseJSON
import ReleaseManifest
import ReleaseModels
import ReleaseOTA
import ReleasePipeline
import ReleaseReporting
import ReleaseSettings
import ReleaseSystem

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

  /// One active challenger and what it is judged against.
  struct Candidate {
    let customer: Customer
    let offer: RolloutState.Offer
    /// "bundled" or "offered at 100%".
    let baselineOrigin: String
    let challenge: Challenge
  }

  /// What `--apply` does about one judgement.
  enum Action: Equatable {
    case rollback
    case raise(to: Int)
    /// No new device takes it; a person looks (more devices than its split gives).
    case pause
    /// Nothing, and why.
    case none(String)
  }

  /// Its steps (`pipeline`, in `EvaluateSteps.swift`) on its options and the rollout policy.
  static func run(_ options: EvaluateOptions, _ invocation: CommandInvocation) throws {
    let services = invocation.services
    let request = EvaluateRequest(
      options: options, policies: options.settings.policies,
      configurationPath: options.settings.configurationPath)
    var settings = RunSettings()
    settings.dryRun = options.dryRun
    let context = ReleaseContext(services: services, settings: settings, reporter: DiscardingReporter())
    try pipeline(request, Pipeline(context)) { release in try OTACommand.publish(release, invocation) }
  }

  /// The outcomes, read and checked as a whole before anything is judged or written; rows of
  /// customers and flows not judged are skipped.
  static func readOutcomes(
    _ options: EvaluateOptions, customers: [Customer], services: Services, today: OutcomeDate
  ) throws -> Outcomes {
    let (data, source) = try OutcomesSource.read(
      options.outcomes, inputs: options.settings.inputs, services: services)
    var known: [String: Set<String>] = [:]
    for customer in customers {
      known[customer.id] = Set(
        customer.customModels.map(\.flowName).filter { options.flowName == nil || $0 == options.flowName })
    }
    do throws(OutcomesError) {
      return try OutcomesReader.read(data: data, source: source, known: known, today: today)
    } catch {
      throw ReleaseError.invalidInputs(error.problems.map(\.description))
    }
  }

  /// The verdicts: a table per challenger (or a JSON line each), and what was skipped.
  static func show(
    _ candidates: [Candidate], _ judgements: [Judgement], outcomes: Outcomes, inputs: OTAInputs,
    options: EvaluateOptions, output: any OutputStreaming
  ) {
    if candidates.isEmpty {
      output.write(
        line:
          "ota evaluate: no active challenger (an active offer below 100%) to judge in \(inputs.rolloutsPath)",
        to: .standardError)
    }
    if outcomes.skippedRows > 0 {
      output.write(
        line: "ota evaluate: skipped \(outcomes.skippedRows) rows of customers or flows not judged",
        to: .standardError)
    }
    for (index, (candidate, judgement)) in zip(candidates, judgements).enumerated() {
      if options.json {
        output.write(line: judgement.jsonLine(), to: .standardOutput)
      } else {
        // One table per challenger, a blank line between them.
        output.write(lines: (index > 0 ? [""] : []) + table(judgement, candidate), to: .standardOutput)
      }
    }
  }

  /// Carries the decisions out; under `--dry-run` says what publishing would do. What
  /// `--publish` publishes next; nil when nothing is.
  static func applyDecisions(
    _ judged: [(Candidate, Judgement)], _ inputs: OTAInputs, _ options: EvaluateOptions, _ services: Services,
    today: OutcomeDate
  ) throws -> RunSettings? {
    let output = services.output
    do {
      try apply(judged, inputs, options, services, today: today)
    } catch let error as ReleaseError where error.exitCode == 2 {
      // Outcomes and arguments were checked above: what fails now is carrying the decisions out.
      throw ReleaseError.stepFailed(step: "ota evaluate --apply", reason: error.lines.joined(separator: "; "))
    }
    guard let release = options.settings.publish else { return nil }
    guard options.dryRun else { return release }
    if release.hasSignedChannel, !release.signing.canSign {
      output.write(line: "dry run: would refuse: \(CheckOTAStep.missingSigner)", to: .standardError)
    }
    output.write(
      line:
        "dry run: would publish the over-the-air manifests to \(release.publishing.destinations.map(\.description).joined(separator: ", "))",
      to: .standardError)
    return nil
  }

  /// Every active offer below 100% of the selected flows above its baseline, with that
  /// baseline: the flow's newest active offer at 100%, else the bundled model. A paused flow's
  /// offers are not active. Each challenger's splits give its expected share of the two arms.
  static func candidates(
    _ inputs: OTAInputs, customers: [Customer], flowName: String?, since: OutcomeDate?,
    policies: RolloutPolicyConfiguration
  ) -> [Candidate] {
    var candidates: [Candidate] = []
    for customer in customers {
      for model in customer.customModels where flowName == nil || model.flowName == flowName {
        guard let flow = inputs.rollouts.flow(customer.id, model.flowName), !flow.paused else { continue }
        let full = flow.models.filter { $0.status == .active && $0.rolloutPercent == 100 }.last
        let baseline = full.map(\.modelVersion) ?? model.modelVersion
        for offer in flow.models
        where offer.status == .active && (1..<100).contains(offer.rolloutPercent)
          && offer.modelVersion > baseline
        {
          var periods = SplitShares.periods(
            flow, challenger: offer.modelVersion, baseline: baseline, bundledVersion: model.modelVersion)
          if let since { periods = [SplitPeriod(since: since, share: periods.last?.share ?? 0)] }
          candidates.append(
            Candidate(
              customer: customer, offer: offer,
              baselineOrigin: full == nil ? "bundled" : "offered to 100%",
              challenge: Challenge(
                customer: customer.id, flow: model.flowName, challenger: offer.modelVersion,
                baseline: baseline,
                challengerPercent: Double(offer.rolloutPercent), periods: periods,
                policy: policies.policy(for: customer.id))))
        }
      }
    }
    return candidates
  }

  /// A customer named in the policy must be one of the manifest's.
  static func check(
    _ policies: RolloutPolicyConfiguration, against manifest: Manifest, configurationPath: String
  ) throws {
    let ids = Set(manifest.customers.map(\.id))
    let unknown = policies.customers.keys.sorted().filter { !ids.contains($0) }
    guard !unknown.isEmpty else { return }
    throw ReleaseError.validation(
      ValidationFailure(
        unknown.map {
          Diagnostic(
            file: configurationPath, path: "rollouts.customers.\($0)",
            message: "not a customer in \(manifest.path); expected the id of a known customer")
        }))
  }

  // MARK: - Acting

  /// What `--apply` does about `judgement`: a rollback at once; a promote one schedule step up,
  /// only when the outcomes hold a date after the offer's `since` (the split's first date):
  /// a raise sets `since` to today, so the same export, or one of the same day, never raises
  /// twice.
  static func action(_ judgement: Judgement, _ candidate: Candidate) -> Action {
    switch judgement.decision {
    case .rollback: return .rollback
    case .continue: return .none("not enough evidence yet")
    case .invalid:
      // Devices vanishing from its arm look exactly like a challenger that crashes apps.
      switch judgement.sampleRatioDirection {
      case .fewer?: return .rollback
      case .more?: return .pause
      case nil: return .none("the data cannot be judged")
      }
    case .promote:
      let latest = judgement.days.last?.date
      if let since = candidate.offer.since, let latest, latest <= since {
        return .none("no outcomes dated after its split began on \(since)")
      }
      guard let next = judgement.policy.nextStep(after: candidate.offer.rolloutPercent) else {
        return .none("already at the schedule's last step (\(candidate.offer.rolloutPercent)%)")
      }
      return .raise(to: next)
    }
  }

  private static func apply(
    _ judged: [(Candidate, Judgement)], _ inputs: OTAInputs, _ options: EvaluateOptions, _ services: Services,
    today: OutcomeDate
  ) throws {
    let output = services.output
    var changes: [(Candidate, Action, RolloutChange.OfferedModel?)] = []
    for (candidate, judgement) in judged {
      let action = action(judgement, candidate)
      let name = "\(candidate.customer.id) \(judgement.flow) v\(judgement.challenger)"
      switch action {
      case .none(let reason):
        output.write(
          line: "\(name): \(judgement.decision.rawValue); nothing to apply (\(reason))", to: .standardError)
      case .rollback, .pause:
        changes.append((candidate, action, nil))
      case .raise:
        // Read from the store and checked again as 'release rollout' does.
        let model = try inputs.offeredModel(
          ModelReference(flowName: judgement.flow, version: judgement.challenger))
        changes.append((candidate, action, model))
      }
    }
    guard !changes.isEmpty else {
      output.write(
        line: "ota evaluate --apply: no decision to carry out; \(inputs.rolloutsPath) unchanged",
        to: .standardError)
      return
    }
    var described: [String] = []
    for (candidate, action, _) in changes {
      let name = "\(candidate.customer.id): \(candidate.challenge.flow) v\(candidate.offer.modelVersion)"
      if case .raise(let percent) = action { described.append("\(name) raised to \(percent)% of devices") }
      if case .rollback = action { described.append("\(name) retracted") }
      if case .pause = action {
        described.append(
          "\(name) paused (more devices than its split gives: look at the export and the split)")
      }
    }
    let decided = changes
    try RolloutsChange(
      inputs: inputs, dryRun: options.dryRun, diffStream: options.json ? .standardError : .standardOutput,
      summary: described.joined(separator: "; ")
    ) { state in
      try decided.reduce(state) { state, change in try carryOut(change, on: state, inputs, today: today) }
    }.apply(services)
  }

  /// One decision carried out on the state as it is under the lock.
  private static func carryOut(
    _ change: (Candidate, Action, RolloutChange.OfferedModel?), on state: RolloutState, _ inputs: OTAInputs,
    today: OutcomeDate
  ) throws -> RolloutState {
    let (candidate, action, model) = change
    let (customer, flowName) = (candidate.customer, candidate.challenge.flow)
    // Judged on the split as it was read: if another command changed it since, leave it.
    guard let offer = state.flow(customer.id, flowName)?.offer(candidate.offer.modelVersion),
      offer.status == .active, offer.rolloutPercent == candidate.offer.rolloutPercent
    else { return state }
    switch action {
    case .rollback:
      return try RolloutChange.rollback(
        state, customer: customer, flowName: flowName, version: offer.modelVersion,
        command: "ota evaluate: rollback \(customer.id) \(flowName) \(offer.modelVersion)", today: today)
    case .raise(let percent):
      guard let model else { return state }
      return try RolloutChange.rollout(
        state, customer: customer, model: model, percent: percent, catalog: inputs.catalog,
        feature: inputs.features.feature(servingFlow: flowName), sdkVersion: inputs.sdkVersion,
        command: "ota evaluate: rollout \(customer.id) \(flowName) \(offer.modelVersion)", today: today,
        newSalt: RolloutState.newSalt)
    case .pause:
      var changed = state
      changed.customers[customer.id]?[flowName]?.models = (state.flow(customer.id, flowName)?.models ?? [])
        .map {
          var paused = $0
          if paused.modelVersion == offer.modelVersion {
            // No new device takes it from today: a split at 0 % for the flow's other challengers.
            paused.status = .paused
            paused.startSplit(percent: 0, today: today)
          }
          return paused
        }
      return changed
    case .none:
      return state
    }
  }

  // MARK: - Output

  /// The human table of one judgement.
  static func table(_ judgement: Judgement, _ candidate: Candidate) -> [String] {
    let splits = judgement.strata == 1 ? "1 split" : "\(judgement.strata) splits"
    let since =
      candidate.challenge.since.map { "current split from \($0), evidence of \(splits)" }
      ?? "all rows (the split's start is unknown)"
    var lines = [
      "\(judgement.customer) \(judgement.flow): v\(judgement.challenger) (\(candidate.offer.rolloutPercent)% of devices) against v\(judgement.baseline) (\(candidate.baselineOrigin)), \(since)"
    ]
    let rows = [
      ["ARM", "MODEL", "DEVICES", "CONVERSIONS", "RATE"],
      [
        "challenger", "v\(judgement.challenger)", grouped(judgement.challengerArm.devices),
        grouped(judgement.challengerArm.conversions), percent(judgement.challengerArm.rate),
      ],
      [
        "baseline", "v\(judgement.baseline)", grouped(judgement.baselineArm.devices),
        grouped(judgement.baselineArm.conversions), percent(judgement.baselineArm.rate),
      ],
    ]
    let widths = (0..<rows[0].count).map { column in rows.map { $0[column].count }.max() ?? 0 }
    for row in rows {
      let cells = zip(row, widths).map { $0.padding(toLength: $1, withPad: " ", startingAt: 0) }
      lines.append("  " + cells.joined(separator: "  ").trimmingCharacters(in: .whitespaces))
    }
    lines.append(
      "  conversions  \(EvaluationReport.metricText(judgement.conversion)) (relative, always-valid)")
    if judgement.revenue != nil {
      lines.append("  revenue      \(EvaluationReport.metricText(judgement.revenue)) (per device, relative)")
    }
    lines.append("  gate opened  \(judgement.gateOpenedOn?.description ?? "not yet")")
    lines.append("  decision     \(decision(judgement))")
    if judgement.reasonCode == "harm" {
      lines.append("  by           the harm check: surely fewer conversions than the baseline")
    }
    lines.append("  decided on   \(judgement.decidedOn?.description ?? "-")")
    lines.append(
      "  expected     \(fixed(judgement.expectedShare * 100, 1))% of the two arms' devices in the current split"
    )
    lines.append("  ignored      \(judgement.ignoredRows) rows of other model versions or earlier splits")
    return lines
  }

  /// The decision as the report words it; a rollback is one word here, its cause on a line of
  /// its own.
  static func decision(_ judgement: Judgement) -> String {
    judgement.decision == .rollback ? "rollback" : EvaluationReport.decisionText(judgement)
  }

  private static func percent(_ rate: Double) -> String { fixed(rate * 100, 2) + " %" }

  private static func fixed(_ value: Double, _ decimals: Int) -> String {
    String(format: "%.\(decimals)f", locale: Locale(identifier: "en_US_POSIX"), value)
  }

  private static func grouped(_ value: Int) -> String {
    let digits = String(value)
    var result = ""
    for (index, character) in digits.enumerated() {
      if index > 0, (digits.count - index) % 3 == 0 { result += "," }
      result.append(character)
    }
    return result
  }

  /// Per judgement `<name>.svg` and `<name>.md` (its table row and the chart), `summary.md`
  /// with every row, and `index.html`, one self-contained page of them all; each written to a temporary file and renamed into place.
  static func writeReport(_ judgements: [Judgement], to directory: URL, shown: String) throws {
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
