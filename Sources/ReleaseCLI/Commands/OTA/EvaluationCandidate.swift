import ReleaseEvaluation
import ReleaseManifest
import ReleaseOTA
import ReleaseSettings

/// One active challenger `release ota evaluate` judges, and what it is judged against.
struct EvaluationCandidate {
  let customer: Customer
  let offer: RolloutState.Offer
  /// "bundled" or "offered to 100%".
  let baselineOrigin: String
  let challenge: Challenge

  /// Every active offer below 100% of the selected flows above its baseline, with that
  /// baseline: the flow's newest active offer at 100%, else the bundled model. A paused flow's
  /// offers are not active. Each challenger's splits give its expected share of the two arms;
  /// with `since`, only the current split counts.
  static func selected(
    from rollouts: RolloutState, customers: [Customer], flowName: String?, since: OutcomeDate?,
    policies: RolloutPolicyConfiguration
  ) -> [EvaluationCandidate] {
    var candidates: [EvaluationCandidate] = []
    for customer in customers {
      for model in customer.customModels where flowName == nil || model.flowName == flowName {
        guard let flow = rollouts.flow(customer.id, model.flowName), !flow.paused else { continue }
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
            EvaluationCandidate(
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
}
