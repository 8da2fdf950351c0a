import Foundation

/// One challenger to judge: its flow, the two model versions and the split.
public struct Challenge: Hashable, Sendable {
  public let customer: String
  public let flow: String
  public let challenger: Int
  public let baseline: Int
  /// The percentage of the flow's devices offered the challenger (0 < percent < 100).
  public let challengerPercent: Double
  /// The first date of the current split: earlier rows are not pooled with later ones.
  public let since: OutcomeDate?
  public let policy: EvaluationPolicy

  public init(
    customer: String, flow: String, challenger: Int, baseline: Int, challengerPercent: Double,
    since: OutcomeDate? = nil, policy: EvaluationPolicy = .standard
  ) {
    self.customer = customer
    self.flow = flow
    self.challenger = challenger
    self.baseline = baseline
    self.challengerPercent = challengerPercent
    self.since = since
    self.policy = policy
  }
}

/// Judges a challenger against its baseline from cumulative outcomes, as a daily job would.
///
/// The device is the unit and the metric its conversion (each device at most once), so each
/// arm is a binomial sample. For every date of the series, with the counts so far:
/// - the difference θ = p_challenger − p_baseline gets the always-valid 95 % interval of the
///   mixture SPRT (`AlwaysValidInterval`; Johari, Koomen, Pekelis & Walsh, Operations Research
///   2022) with V = p̂₁(1−p̂₁)/n₁ + p̂₂(1−p̂₂)/n₂ and τ = mixtureScale × p̂_baseline, kept as the
///   running intersection since the split began;
/// - the relative difference p_challenger/p_baseline − 1 gets its own mSPRT interval, with the
///   delta-method variance V/p̂₂² + p̂₁²·V₂/p̂₂⁴ (V₂ the baseline's share of V), so the
///   baseline's own uncertainty is in it rather than dividing by p̂₂ as if it were known;
///   τ = mixtureScale. It is reported; decisions use the absolute interval;
/// - the decision: `invalid` without baseline (or challenger) devices, or when the chi-square
///   test of the split against the rollout percentage gives p < 0.001 (sample ratio
///   mismatch); else `continue` until each arm has `minimumConversions`; then `rollback` when
///   the interval lies entirely below 0, `promote` when its lower bound is above
///   −margin × p̂_baseline, `continue` otherwise.
///
/// The judgement's decision is the latest date's; `decidedOn` the first date with that
/// decision. A rollout percentage of 0 or 100 has no split to check.
///
/// The metric is the conversion rate. Revenue needs per-device sums and squares for a valid
/// variance; it is left for later.
public enum Evaluator {
  /// Judges `challenge` from the rows of its customer's flow in `outcomes` (since
  /// `challenge.since`). Rows of other model versions are ignored and counted.
  public static func judge(_ challenge: Challenge, outcomes: Outcomes) -> Judgement {
    var challengerRows: [OutcomeDate: ArmCounts] = [:]
    var baselineRows: [OutcomeDate: ArmCounts] = [:]
    var ignored = 0
    for row in outcomes.rows where row.customer == challenge.customer && row.flow == challenge.flow {
      if let since = challenge.since, row.date < since { continue }
      let counts = ArmCounts(devices: row.devices, conversions: row.conversions)
      switch row.modelVersion {
      case challenge.challenger: challengerRows[row.date] = counts
      case challenge.baseline: baselineRows[row.date] = counts
      default: ignored += 1
      }
    }
    // Counts are cumulative: an arm without a row on a date keeps its previous counts.
    var series: [DailyCounts] = []
    var challenger = ArmCounts.zero
    var baseline = ArmCounts.zero
    for date in Set(challengerRows.keys).union(baselineRows.keys).sorted() {
      challenger = challengerRows[date] ?? challenger
      baseline = baselineRows[date] ?? baseline
      series.append(DailyCounts(date: date, challenger: challenger, baseline: baseline))
    }
    return judge(challenge, series: series, ignoredRows: ignored)
  }

  /// Judges a series of cumulative daily counts, oldest first.
  static func judge(_ challenge: Challenge, series: [DailyCounts], ignoredRows: Int) -> Judgement {
    let policy = challenge.policy
    let alpha = 1 - policy.confidence
    let share = challenge.challengerPercent / 100
    var absolute = RunningIntersection()
    var relative = RunningIntersection()
    var days: [DayJudgement] = []

    for counts in series {
      let (c, b) = (counts.challenger, counts.baseline)
      let pValue = SampleRatio.pValue(challenger: c.devices, baseline: b.devices, share: share)
      var difference: Interval?
      var relativeDifference: Interval?
      if let moments = Moments(challenger: c, baseline: b) {
        difference = absolute.add(
          AlwaysValidInterval.interval(
            estimate: moments.difference, variance: moments.variance,
            mixtureVariance: pow(policy.mixtureScale * moments.baselineRate, 2), alpha: alpha))
        relativeDifference = relative.add(
          AlwaysValidInterval.interval(
            estimate: moments.relativeDifference, variance: moments.relativeVariance,
            mixtureVariance: pow(policy.mixtureScale, 2), alpha: alpha))
      }

      var reason: InvalidReason?
      let decision: Decision
      if b.devices == 0 {
        reason = .noBaselineRows
        decision = .invalid
      } else if c.devices == 0 {
        reason = .noChallengerRows
        decision = .invalid
      } else if let pValue, pValue < policy.sampleRatioThreshold {
        reason = .sampleRatioMismatch(
          challengerShare: Double(c.devices) / Double(c.devices + b.devices), expectedShare: share,
          pValue: pValue)
        decision = .invalid
      } else if let difference, min(c.conversions, b.conversions) >= policy.minimumConversions {
        if difference.high < 0 {
          decision = .rollback
        } else if difference.low > -policy.margin * b.rate {
          decision = .promote
        } else {
          decision = .continue
        }
      } else {
        decision = .continue
      }
      days.append(
        DayJudgement(
          date: counts.date, challenger: c, baseline: b, difference: difference, relative: relativeDifference,
          sampleRatioPValue: pValue, decision: decision, invalidReason: reason))
    }

    let latest = days.last
    let decision = latest?.decision ?? .invalid
    let reason = latest == nil ? .noBaselineRows : latest?.invalidReason
    let decidedOn: OutcomeDate? =
      decision == .promote || decision == .rollback ? days.first { $0.decision == decision }?.date : nil
    var needed: DevicesNeeded?
    if decision == .continue, let latest {
      needed = devicesNeeded(latest, policy: policy)
    }
    return Judgement(
      customer: challenge.customer, flow: challenge.flow, challenger: challenge.challenger,
      baseline: challenge.baseline, challengerPercent: challenge.challengerPercent, policy: policy,
      decision: decision, decidedOn: decidedOn, invalidReason: reason, devicesNeeded: needed,
      ignoredRows: ignoredRows, days: days)
  }

  /// How many more devices (both arms, at the current split) until the interval, shrinking as
  /// 1/n with the estimate unchanged, clears the nearer threshold (0 for a rollback,
  /// −margin × baseline rate for a promote) and each arm has its minimum conversions.
  static func devicesNeeded(_ day: DayJudgement, policy: EvaluationPolicy) -> DevicesNeeded {
    guard day.challenger.conversions > 0, day.baseline.conversions > 0,
      let moments = Moments(challenger: day.challenger, baseline: day.baseline)
    else { return .unknown }
    let limit = 100.0
    let alpha = 1 - policy.confidence
    let mixtureVariance = pow(policy.mixtureScale * moments.baselineRate, 2)
    let gap = max(-moments.difference, moments.difference + policy.margin * moments.baselineRate)
    func halfWidth(_ scale: Double) -> Double {
      AlwaysValidInterval.halfWidth(
        variance: moments.variance / scale, mixtureVariance: mixtureVariance, alpha: alpha)
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
    let evidence =
      Double(policy.minimumConversions) / Double(min(day.challenger.conversions, day.baseline.conversions))
    let scale = max(high, evidence, 1)
    guard scale <= limit else { return .noneExpected }
    let devices = Double(day.challenger.devices + day.baseline.devices)
    return .about(Int(((scale - 1) * devices).rounded(.up)))
  }
}

/// Cumulative counts of both arms on one date.
struct DailyCounts: Hashable, Sendable {
  let date: OutcomeDate
  let challenger: ArmCounts
  let baseline: ArmCounts
}

/// The estimates of one date and their (plug-in) variances.
struct Moments {
  let difference: Double
  let variance: Double
  let baselineRate: Double
  let relativeDifference: Double
  let relativeVariance: Double

  /// Nil while an arm has no devices or the baseline no conversions.
  init?(challenger: ArmCounts, baseline: ArmCounts) {
    guard challenger.devices > 0, baseline.devices > 0, baseline.conversions > 0 else { return nil }
    let (p1, p2) = (challenger.rate, baseline.rate)
    let v1 = p1 * (1 - p1) / Double(challenger.devices)
    let v2 = p2 * (1 - p2) / Double(baseline.devices)
    difference = p1 - p2
    variance = v1 + v2
    baselineRate = p2
    relativeDifference = p1 / p2 - 1
    relativeVariance = v1 / (p2 * p2) + p1 * p1 * v2 / (p2 * p2 * p2 * p2)
  }
}

/// The running intersection of always-valid intervals, itself always valid. Should the
/// intersection become empty (which happens with probability at most α), it starts again from
/// the latest interval.
struct RunningIntersection {
  private var low = -Double.infinity
  private var high = Double.infinity

  mutating func add(_ interval: Interval) -> Interval {
    let (newLow, newHigh) = (max(low, interval.low), min(high, interval.high))
    if newLow <= newHigh {
      (low, high) = (newLow, newHigh)
    } else {
      (low, high) = (interval.low, interval.high)
    }
    return Interval(estimate: interval.estimate, low: low, high: high)
  }
}
