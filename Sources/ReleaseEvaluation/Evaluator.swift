import Foundation

/// A period of a challenger's split: from `since` on, until the next period.
public struct SplitPeriod: Hashable, Sendable {
  /// The UTC date it began; nil: unknown.
  public let since: OutcomeDate?
  /// The challenger's expected share of the challenger's and the baseline's devices
  /// (0 ≤ share ≤ 1), from the flow's offers and the device rule.
  public let share: Double

  public init(since: OutcomeDate?, share: Double) {
    self.since = since
    self.share = share
  }
}

/// One challenger to judge: its flow, the two model versions and the splits.
public struct Challenge: Hashable, Sendable {
  public let customer: String
  public let flow: String
  public let challenger: Int
  public let baseline: Int
  /// The percentage of the flow's devices offered the challenger now.
  public let challengerPercent: Double
  /// The splits, oldest first; the last is the current one.
  public let periods: [SplitPeriod]
  public let policy: EvaluationPolicy

  /// The first date of the current split.
  public var since: OutcomeDate? { periods.last?.since }

  /// One split since `since`, the challenger's share of the two arms its percentage.
  public init(
    customer: String, flow: String, challenger: Int, baseline: Int, challengerPercent: Double,
    since: OutcomeDate? = nil, policy: EvaluationPolicy = .standard
  ) {
    self.init(
      customer: customer, flow: flow, challenger: challenger, baseline: baseline,
      challengerPercent: challengerPercent,
      periods: [SplitPeriod(since: since, share: challengerPercent / 100)], policy: policy)
  }

  public init(
    customer: String, flow: String, challenger: Int, baseline: Int, challengerPercent: Double,
    periods: [SplitPeriod], policy: EvaluationPolicy = .standard
  ) {
    self.customer = customer
    self.flow = flow
    self.challenger = challenger
    self.baseline = baseline
    self.challengerPercent = challengerPercent
    self.periods = periods
    self.policy = policy
  }
}

/// Judges challengers against their baseline from cumulative outcomes, as a daily job would,
/// every challenger of a flow together.
///
/// The device is the unit. The evidence is stratified by split (`PairRows`, `Effect`): each
/// split compares devices of the same period, so a ramp step keeps the earlier steps'
/// evidence. For every date, with the counts so far, in this order:
/// - `invalid` when a series of either arm is inconsistent, or an arm has no rows;
/// - `rollback` by the **harm check** (`HarmTest`, α = `harmAlpha` shared among the flow's
///   challengers): ungated, one-sided, valid at any count and under daily looks;
/// - `invalid` by the **sequential sample ratio test** (`SampleRatio`), its Bayes factor
///   over 1/`sampleRatioThreshold` (once, for good);
/// - `continue` until the **exposure gate** opens: each arm's devices × the baseline's
///   conversion rate reaches `minimumConversions` (a challenger that converts nobody is
///   exposed as fast as a good one);
/// - per metric (conversions, and revenue per device when the export has it) the relative
///   effect challenger/baseline − 1 gets the mSPRT's always-valid interval
///   (`AlwaysValidInterval`, τ = mixtureScale), intersected from the day the gate opened. Its
///   always-valid p-values against 0 (rollback) and −margin (promote) are corrected by
///   **Holm** across the flow's challengers and metrics at α − harmAlpha; a metric's interval
///   is reported at the level Holm gives it. `rollback` when any metric is surely worse,
///   `promote` when every metric is surely not worse than its margin, else `continue`; an
///   empty intersection is `invalid`.
///
/// The judgement's decision is the latest date's; `decidedOn` the first date with it.
public enum Evaluator {
  public static func judge(_ challenge: Challenge, outcomes: Outcomes) -> Judgement {
    judge([challenge], outcomes: outcomes)[0]
  }

  /// The judgements, in the order of `challenges`; those of one customer's flow together.
  public static func judge(_ challenges: [Challenge], outcomes: Outcomes) -> [Judgement] {
    var judgements = [Judgement?](repeating: nil, count: challenges.count)
    var groups: [[Int]] = []
    var groupOf: [String: Int] = [:]
    for (index, challenge) in challenges.enumerated() {
      let key = "\(challenge.customer)\u{0}\(challenge.flow)"
      if let group = groupOf[key] {
        groups[group].append(index)
      } else {
        groupOf[key] = groups.count
        groups.append([index])
      }
    }
    for group in groups {
      var flow = FlowJudge(
        group.map { PairTrack(challenges[$0], rows: PairRows(challenges[$0], outcomes: outcomes)) })
      flow.run()
      for (index, track) in zip(group, flow.tracks) { judgements[index] = track.judgement() }
    }
    return judgements.compactMap { $0 }
  }
}

/// One metric's gated history and its running always-valid p-values.
struct MetricTrack {
  /// (estimate, variance) of each day since the gate opened.
  var gated: [(estimate: Double, variance: Double)] = []
  var rollbackP = 1.0
  var promoteP = 1.0
  /// The running intersection at `level` over the first `days` gated days.
  var intersection: (level: Double, low: Double, high: Double, days: Int)?
  var hypothesisP: Double { min(rollbackP, promoteP) }
}

/// What one pair has been through, day by day.
struct PairTrack {
  let challenge: Challenge
  let rows: PairRows
  let metrics: [Metric]
  var gateOpenedOn: OutcomeDate?
  var metricTracks: [Metric: MetricTrack] = [:]
  var sampleRatioLog = 0.0
  var harmLog = 0.0
  var days: [DayJudgement] = []
  var deviceTotals: [Int] = []
  /// The day's strata and effects.
  var today: [StratumCounts] = []
  var effects: [Metric: Effect] = [:]

  init(_ challenge: Challenge, rows: PairRows) {
    self.challenge = challenge
    self.rows = rows
    let hasRows = rows.strata.values.contains { !$0.challenger.isEmpty || !$0.baseline.isEmpty }
    metrics = rows.hasRevenue && hasRows ? [.conversion, .revenue] : [.conversion]
  }

  var policy: EvaluationPolicy { challenge.policy }

  func margin(_ metric: Metric) -> Double {
    metric == .revenue ? policy.revenueMargin ?? policy.margin : policy.margin
  }
}

extension PairTrack {
  /// The verdict: the latest date's decision, the first date with it, and for `continue` how
  /// much more evidence it needs.
  func judgement() -> Judgement {
    // No rows of either arm yet (a split that began today): nothing to judge, nothing wrong.
    let latest = days.last
    let decision = latest?.decision ?? (rows.problems.isEmpty ? .continue : .invalid)
    let reason: InvalidReason? =
      latest == nil ? (rows.problems.isEmpty ? nil : .badSeries(rows.problems)) : latest?.invalidReason
    let decidedOn =
      decision == .promote || decision == .rollback ? days.first { $0.decision == decision }?.date : nil
    return Judgement(
      customer: challenge.customer, flow: challenge.flow, challenger: challenge.challenger,
      baseline: challenge.baseline, challengerPercent: challenge.challengerPercent,
      expectedShare: challenge.periods.last?.share ?? 0, policy: policy, decision: decision,
      decidedOn: decidedOn, invalidReason: reason,
      devicesNeeded: decision == .continue ? devicesNeeded() : nil,
      gateOpenedOn: gateOpenedOn, ignoredRows: rows.ignored, strata: rows.strata.count, days: days)
  }

  /// How many more devices (both arms) until the conversion interval, shrinking as 1/n with the
  /// estimate unchanged, clears the nearer threshold (0 for a rollback, −margin for a promote)
  /// and the gate is open; and in how many days at the last week's traffic.
  func devicesNeeded() -> DevicesNeeded {
    guard let latest = days.last, let effect = effects[.conversion], latest.challenger.conversions > 0,
      latest.baseline.conversions > 0
    else { return .unknown }
    let limit = 100.0
    let level = latest.conversion?.level ?? policy.intervalAlpha
    let tau2 = policy.mixtureScale * policy.mixtureScale
    let gap = max(-effect.estimate, effect.estimate + policy.margin)
    func halfWidth(_ scale: Double) -> Double {
      AlwaysValidInterval.halfWidth(variance: effect.variance / scale, mixtureVariance: tau2, alpha: level)
    }
    guard gap > 0, halfWidth(limit) <= gap else { return .noneExpected }
    var (low, high) = (1.0, limit)
    if halfWidth(low) <= gap {
      high = low
    } else {
      for _ in 0..<60 {
        let middle = (low + high) / 2
        if halfWidth(middle) <= gap { high = middle } else { low = middle }
      }
    }
    let exposure = Double(min(latest.challenger.devices, latest.baseline.devices)) * latest.baseline.rate
    let gate = gateOpenedOn == nil ? Double(policy.minimumConversions) / max(exposure, 1e-9) : 1
    let scale = max(high, gate, 1)
    guard scale <= limit else { return .noneExpected }
    let devices = ((scale - 1) * Double(deviceTotals.last ?? 0)).rounded(.up)
    return .about(devices: Self.whole(devices), days: daysFor(devices: devices))
  }

  /// Days the recent traffic (new devices a day over up to the last 7 days) takes to bring
  /// `devices` more; nil without traffic.
  func daysFor(devices: Double) -> Int? {
    guard deviceTotals.count >= 2 else { return nil }
    let span = min(7, deviceTotals.count - 1)
    let added = Double(deviceTotals[deviceTotals.count - 1] - deviceTotals[deviceTotals.count - 1 - span])
    guard added > 0 else { return nil }
    return Self.whole((devices / (added / Double(span))).rounded(.up))
  }

  /// A count as a whole number, never trapping however large the input's counts.
  static func whole(_ value: Double) -> Int {
    guard value.isFinite else { return Int.max }
    return value >= 9e18 ? Int.max : max(0, Int(value))
  }
}
