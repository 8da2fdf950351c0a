import ReleaseEvaluation
import ReleaseOTA

/// What share of a flow's devices each model gets under the device rule, split by split: the
/// highest active version whose bucket is below its percentage wins, each with its own salt,
/// so version v gets p_v × Π(1 − p_u) over the higher versions u, and the bundled model the
/// rest.
enum SplitShares {
  /// The challenger's expected share of the challenger's and the baseline's devices in each
  /// period in which every offer of the flow was constant (from the offers' `splits`), oldest
  /// first. Without any recorded date: one period, dated nil, with the current percentages.
  static func periods(
    _ flow: RolloutState.Flow, challenger: Int, baseline: Int, bundledVersion: Int
  ) -> [SplitPeriod] {
    let offers = flow.models.filter { $0.modelVersion > bundledVersion }
    let dates = Set(offers.flatMap { $0.effectiveSplits.map(\.since) }).sorted()
    guard !dates.isEmpty else {
      return [SplitPeriod(since: nil, share: share(offers, challenger, baseline) { $0.rolloutPercent })]
    }
    return dates.map { date in
      SplitPeriod(
        since: date,
        share: share(offers, challenger, baseline) { offer in
          let splits = offer.effectiveSplits
          guard !splits.isEmpty else { return offer.status == .active ? offer.rolloutPercent : 0 }
          return splits.last { $0.since <= date }?.percent ?? 0
        })
    }
  }

  /// share(challenger) / (share(challenger) + share(baseline)) with `percent` of each offer.
  private static func share(
    _ offers: [RolloutState.Offer], _ challenger: Int, _ baseline: Int, percent: (RolloutState.Offer) -> Int
  ) -> Double {
    var remaining = 1.0
    var shares: [Int: Double] = [:]
    for offer in offers.sorted(by: { $0.modelVersion > $1.modelVersion }) {
      let taken = remaining * Double(min(100, max(0, percent(offer)))) / 100
      shares[offer.modelVersion] = taken
      remaining -= taken
    }
    let own = shares[challenger] ?? 0
    let base = shares[baseline] ?? remaining
    return own + base > 0 ? own / (own + base) : 0
  }
}
