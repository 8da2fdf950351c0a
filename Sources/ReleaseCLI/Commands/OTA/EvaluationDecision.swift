import ReleaseCore
import ReleaseEvaluation
import ReleaseModels
import ReleaseOTA
import ReleasePipeline
import ReleaseSystem

/// One decision `release ota evaluate --apply` carries out in rollouts.json: the challenger,
/// what is done about it and, for a raise, its model read from the store and checked again as
/// `release rollout` does.
struct EvaluationDecision {
  let candidate: EvaluationCandidate
  let action: RolloutAction
  let model: RolloutChange.OfferedModel?

  /// Carries `judged`'s decisions out in rollouts.json in one change, through the rollout
  /// commands' own code (previewed under `dryRun`, the diff on `diffStream`); a judgement that
  /// leads to nothing says why on stderr.
  static func apply(
    _ judged: [(EvaluationCandidate, Judgement)], inputs: OTAInputs, dryRun: Bool,
    diffStream: ReleaseSystem.OutputStream, services: Services, today: OutcomeDate
  ) throws {
    let decisions = try decisions(judged, inputs: inputs, output: services.output)
    guard !decisions.isEmpty else {
      services.output.write(
        line: "ota evaluate --apply: no decision to carry out; \(inputs.rolloutsPath) unchanged",
        to: .standardError)
      return
    }
    try RolloutsChange(
      inputs: inputs, dryRun: dryRun, diffStream: diffStream,
      summary: decisions.compactMap(\.summary).joined(separator: "; ")
    ) { state in
      try decisions.reduce(state) { state, decision in try decision.carryOut(on: state, inputs, today: today)
      }
    }.apply(services)
  }

  /// The decisions of `judged` that change something; each that does not says so on stderr.
  private static func decisions(
    _ judged: [(EvaluationCandidate, Judgement)], inputs: OTAInputs, output: any OutputStreaming
  ) throws -> [EvaluationDecision] {
    var decisions: [EvaluationDecision] = []
    for (candidate, judgement) in judged {
      let action = RolloutAction(judgement, offer: candidate.offer)
      switch action {
      case .none(let reason):
        let name = "\(candidate.customer.id) \(judgement.flow) v\(judgement.challenger)"
        output.write(
          line: "\(name): \(judgement.decision.rawValue); nothing to apply (\(reason))", to: .standardError)
      case .rollback, .pause:
        decisions.append(EvaluationDecision(candidate: candidate, action: action, model: nil))
      case .raise:
        // Read from the store and checked again as 'release rollout' does.
        let model = try inputs.offeredModel(
          ModelReference(flowName: judgement.flow, version: judgement.challenger))
        decisions.append(EvaluationDecision(candidate: candidate, action: action, model: model))
      }
    }
    return decisions
  }

  /// What the change says of it; nil for `.none`, which changes nothing.
  var summary: String? {
    let name = "\(candidate.customer.id): \(candidate.challenge.flow) v\(candidate.offer.modelVersion)"
    switch action {
    case .raise(let percent): return "\(name) raised to \(percent)% of devices"
    case .rollback: return "\(name) retracted"
    case .pause: return "\(name) paused (more devices than its split gives: look at the export and the split)"
    case .none: return nil
    }
  }

  /// The decision carried out on the state as it is under the lock.
  func carryOut(on state: RolloutState, _ inputs: OTAInputs, today: OutcomeDate) throws -> RolloutState {
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
      return Self.pausing(offer.modelVersion, of: flowName, customer.id, in: state, today: today)
    case .none:
      return state
    }
  }

  /// `state` with `version` paused: no new device takes it from today, a split at 0 % for the
  /// flow's other challengers.
  private static func pausing(
    _ version: Int, of flowName: String, _ customer: String, in state: RolloutState, today: OutcomeDate
  ) -> RolloutState {
    var changed = state
    changed.customers[customer]?[flowName]?.models = (state.flow(customer, flowName)?.models ?? []).map {
      var paused = $0
      if paused.modelVersion == version {
        paused.status = .paused
        paused.startSplit(percent: 0, today: today)
      }
      return paused
    }
    return changed
  }
}
