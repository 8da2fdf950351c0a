import Foundation

/// The cumulative counts of one arm in one stratum.
struct ArmTotals: Hashable, Sendable {
  var devices = 0
  var conversions = 0
  var revenue: RevenueSums?

  init(devices: Int = 0, conversions: Int = 0, revenue: RevenueSums? = nil) {
    self.devices = devices
    self.conversions = conversions
    self.revenue = revenue
  }

  init(_ row: OutcomeRow) {
    self.init(devices: row.devices, conversions: row.conversions, revenue: row.revenue)
  }
}

/// One stratum on one date: a split period in which every offer of the flow was constant.
struct StratumCounts: Hashable, Sendable {
  let challenger: ArmTotals
  let baseline: ArmTotals
  /// The challenger's expected share of the two arms' devices in this split.
  let expectedShare: Double
}

/// A pair's rows, sorted into strata, and its state on any date.
struct PairRows {
  struct Stratum {
    let expectedShare: Double
    var challenger: [OutcomeRow] = []
    var baseline: [OutcomeRow] = []
  }

  /// By the split's first date (nil: unknown, one stratum).
  var strata: [OutcomeDate?: Stratum] = [:]
  var ignored = 0
  var dates: Set<OutcomeDate> = []
  var problems: [OutcomeProblem] = []
  var hasRevenue = true
  /// The strata's keys, oldest first.
  var order: [OutcomeDate?] = []
  var firstChallengerDate: OutcomeDate?
  var firstBaselineDate: OutcomeDate?
  /// The current split's first date, when the export has no `splitStart` and breaks its rule
  /// there: each arm's first row of the split counts on from its last row before it, no
  /// restart (see `InvalidReason.exportNotRestarted`).
  var countsNotRestartedAt: OutcomeDate?

  /// A row with `splitStart` belongs to the stratum that began then, with the share of the
  /// period in force on that date; a row without belongs to the current split, and is ignored
  /// when dated before it began (its counts restart at each split, so a series without
  /// `splitStart` is checked from the current split's first date only).
  init(_ challenge: Challenge, outcomes: Outcomes) {
    let restarted = checkBadSeries(challenge, outcomes)
    var splitChange = SplitChange()
    for row in outcomes.rows + restarted
    where row.customer == challenge.customer && row.flow == challenge.flow {
      let isChallenger = row.modelVersion == challenge.challenger
      if isChallenger || row.modelVersion == challenge.baseline {
        splitChange.take(row, challenger: isChallenger, since: challenge.since)
      }
      guard isChallenger || row.modelVersion == challenge.baseline,
        let (start, share) = Self.stratum(of: row, challenge.periods)
      else {
        ignored += 1
        continue
      }
      if row.revenue == nil { hasRevenue = false }
      var stratum = strata[start] ?? Stratum(expectedShare: share)
      if isChallenger { stratum.challenger.append(row) } else { stratum.baseline.append(row) }
      strata[start] = stratum
      dates.insert(row.date)
    }
    problems.sort { $0.line < $1.line }
    order = strata.keys.sorted { ($0?.daysSinceEpoch ?? Int.min) < ($1?.daysSinceEpoch ?? Int.min) }
    firstChallengerDate = strata.values.compactMap { $0.challenger.first?.date }.min()
    firstBaselineDate = strata.values.compactMap { $0.baseline.first?.date }.min()
    countsNotRestartedAt = splitChange.countedOn ? challenge.since : nil
  }

  /// Takes in the problems of the pair's bad series, and returns the rows of those that are
  /// bad only by the restart the export rule asks for: a series without `splitStart` whose
  /// only problems are decreases, consistent from the current split's first date on.
  private mutating func checkBadSeries(_ challenge: Challenge, _ outcomes: Outcomes) -> [OutcomeRow] {
    var restarted: [OutcomeRow] = []
    for (key, problems) in outcomes.badSeries
    where key.customer == challenge.customer && key.flow == challenge.flow
      && (key.modelVersion == challenge.challenger || key.modelVersion == challenge.baseline)
    {
      let onlyDecreases = problems.allSatisfy {
        if case .decreasingCount = $0.kind { return true }
        return false
      }
      guard onlyDecreases, let series = outcomes.badSeriesRows[key], let since = challenge.since else {
        self.problems += problems
        continue
      }
      let current = series.filter { $0.date >= since }
      let again = OutcomesReader.seriesProblems(current, today: current.last?.date ?? since)
      if again.isEmpty {
        restarted += series
      } else {
        self.problems += again.map { OutcomeProblem(source: outcomes.source, line: $0.0, kind: $0.1) }
      }
    }
    return restarted
  }

  /// Each arm's rows without `splitStart` on either side of the current split's first date:
  /// the last before it and the first on or after it (a series' rows come by date).
  struct SplitChange {
    var lastBefore: [Bool: OutcomeRow] = [:]
    var firstFrom: [Bool: OutcomeRow] = [:]

    mutating func take(_ row: OutcomeRow, challenger: Bool, since: OutcomeDate?) {
      guard row.splitStart == nil, let since else { return }
      if row.date < since {
        lastBefore[challenger] = row
      } else if firstFrom[challenger] == nil {
        firstFrom[challenger] = row
      }
    }

    /// Both arms counted on across the split's first date: no count of either went down. A
    /// restarting export's baseline never does after a raise (its share shrinks, its count
    /// starts from one day's devices).
    var countedOn: Bool {
      [true, false].allSatisfy { arm in
        guard let before = lastBefore[arm], let after = firstFrom[arm] else { return false }
        return after.devices >= before.devices && after.conversions >= before.conversions
      }
    }
  }

  static func stratum(of row: OutcomeRow, _ periods: [SplitPeriod]) -> (OutcomeDate?, Double)? {
    guard let current = periods.last else { return nil }
    guard let splitStart = row.splitStart else {
      if let since = current.since, row.date < since { return nil }
      return (current.since, current.share)
    }
    // The period in force when the row's split began; none before the first.
    guard let period = periods.last(where: { $0.since.map { $0 <= splitStart } ?? true }) else { return nil }
    guard period.share > 0, period.share < 1 else { return nil }
    return (splitStart, period.share)
  }

  /// Each stratum's latest counts on `date` (rows are sorted by date within a series); a
  /// stratum counts once both arms have a row.
  func counts(on date: OutcomeDate) -> [StratumCounts] {
    order.compactMap { key in
      guard let stratum = strata[key],
        let challenger = Self.latest(stratum.challenger, on: date),
        let baseline = Self.latest(stratum.baseline, on: date)
      else { return nil }
      return StratumCounts(
        challenger: ArmTotals(challenger), baseline: ArmTotals(baseline), expectedShare: stratum.expectedShare
      )
    }
  }

  /// The last of `rows` (sorted by date) dated on or before `date`, by bisection.
  static func latest(_ rows: [OutcomeRow], on date: OutcomeDate) -> OutcomeRow? {
    var (low, high) = (0, rows.count)
    while low < high {
      let middle = (low + high) / 2
      if rows[middle].date <= date { low = middle + 1 } else { high = middle }
    }
    return low > 0 ? rows[low - 1] : nil
  }

  func hasRows(challenger: Bool, on date: OutcomeDate) -> Bool {
    guard let first = challenger ? firstChallengerDate : firstBaselineDate else { return false }
    return first <= date
  }
}

/// A metric's stratified relative effect on one date: each arm's mean as the average of its
/// strata's means weighted by n₁n₂/(n₁+n₂) (Mantel–Haenszel weights: each stratum compares
/// devices of the same period, and a small stratum weighs little), the effect
/// mean₁/mean₂ − 1 and its variance by the delta method,
/// V = V₁/m₂² + m₁²·V₂/m₂⁴, Vᵢ = Σ w²·varᵢ / (Σ w)².
struct Effect: Hashable, Sendable {
  let estimate: Double
  let variance: Double
  let challengerMean: Double
  let baselineMean: Double

  /// Per stratum: (challenger mean, its variance, baseline mean, its variance, devices of each).
  typealias StratumMoments = (mean1: Double, var1: Double, mean2: Double, var2: Double, n1: Int, n2: Int)

  init?(_ strata: [StratumMoments]) {
    var (weights, m1, m2, v1, v2) = (0.0, 0.0, 0.0, 0.0, 0.0)
    for s in strata where s.n1 > 0 && s.n2 > 0 {
      let w = Double(s.n1) * Double(s.n2) / (Double(s.n1) + Double(s.n2))
      weights += w
      m1 += w * s.mean1
      m2 += w * s.mean2
      v1 += w * w * s.var1
      v2 += w * w * s.var2
    }
    guard weights > 0 else { return nil }
    (m1, m2, v1, v2) = (m1 / weights, m2 / weights, v1 / (weights * weights), v2 / (weights * weights))
    guard m2 > 0 else { return nil }
    challengerMean = m1
    baselineMean = m2
    estimate = m1 / m2 - 1
    variance = v1 / (m2 * m2) + m1 * m1 * v2 / (m2 * m2 * m2 * m2)
  }

  /// Conversions: the rates, with variances from (x + 1)/(n + 2) (Agresti–Caffo), which never
  /// collapse to 0 at no conversions or all.
  static func conversion(_ strata: [StratumCounts]) -> Effect? {
    func moments(_ arm: ArmTotals) -> (Double, Double) {
      let n = Double(arm.devices)
      let adjusted = (Double(arm.conversions) + 1) / (n + 2)
      return (Double(arm.conversions) / n, adjusted * (1 - adjusted) / n)
    }
    return Effect(
      strata.filter { $0.challenger.devices > 0 && $0.baseline.devices > 0 }.map {
        let (mean1, var1) = moments($0.challenger)
        let (mean2, var2) = moments($0.baseline)
        return (mean1, var1, mean2, var2, $0.challenger.devices, $0.baseline.devices)
      })
  }

  /// Revenue per device: the means, and the sample variances over n − 1 divided by n.
  static func revenue(_ strata: [StratumCounts]) -> Effect? {
    func moments(_ arm: ArmTotals) -> (Double, Double)? {
      guard let sums = arm.revenue, arm.devices > 1 else { return nil }
      let n = Double(arm.devices)
      let mean = sums.sum / n
      let variance = max(0, (sums.squares - sums.sum * mean) / (n - 1))
      return (mean, variance / n)
    }
    var moments2: [StratumMoments] = []
    for stratum in strata {
      guard let (mean1, var1) = moments(stratum.challenger), let (mean2, var2) = moments(stratum.baseline)
      else {
        continue
      }
      moments2.append((mean1, var1, mean2, var2, stratum.challenger.devices, stratum.baseline.devices))
    }
    return Effect(moments2)
  }
}
