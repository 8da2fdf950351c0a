import Foundation

/// Where a pair stands on a date before the flow's multiplicity correction.
enum PairStatus {
  case invalid(InvalidReason)
  /// The harm check rolled it back.
  case harm
  /// The exposure gate is still closed.
  case gateClosed
  /// Judged by its intervals.
  case open
}

/// Judges the challengers of one flow date by date, as a daily job would.
struct FlowJudge {
  var tracks: [PairTrack]
  /// Hypotheses in the family: every challenger's every metric.
  let family: Int

  init(_ tracks: [PairTrack]) {
    self.tracks = tracks
    family = max(1, tracks.reduce(0) { $0 + $1.metrics.count })
  }

  mutating func run() {
    let dates = tracks.reduce(into: Set<OutcomeDate>()) { $0.formUnion($1.rows.dates) }.sorted()
    for date in dates {
      let statuses = tracks.indices.map { tracks[$0].observe(date, pairs: tracks.count) }
      let levels = holmLevels(statuses)
      for index in tracks.indices {
        tracks[index].conclude(date, status: statuses[index], levels: levels[index])
      }
    }
  }

  /// Holm's step-down over the always-valid p-values of the open pairs' metrics: the k-th
  /// smallest is rejected at α/(m − k + 1) while every smaller one was. Each hypothesis gets the
  /// level it was (or would next be) compared with; one not tested today gets α/m.
  func holmLevels(_ statuses: [PairStatus]) -> [[Metric: Double]] {
    let alpha = tracks.first.map { $0.policy.intervalAlpha } ?? 0.04
    var hypotheses: [(pair: Int, metric: Metric, p: Double)] = []
    for (index, status) in statuses.enumerated() {
      guard case .open = status else { continue }
      for metric in tracks[index].metrics {
        if let track = tracks[index].metricTracks[metric], !track.gated.isEmpty {
          hypotheses.append((index, metric, track.hypothesisP))
        }
      }
    }
    hypotheses.sort { $0.p < $1.p }
    var levels = tracks.map { track in
      Dictionary(uniqueKeysWithValues: track.metrics.map { ($0, alpha / Double(family)) })
    }
    var rejected = 0
    for (rank, hypothesis) in hypotheses.enumerated() {
      let level = alpha / Double(family - rank)
      guard rejected == rank, hypothesis.p <= level else {
        levels[hypothesis.pair][hypothesis.metric] = alpha / Double(family - rejected)
        continue
      }
      levels[hypothesis.pair][hypothesis.metric] = level
      rejected += 1
    }
    return levels
  }
}

extension PairTrack {
  /// Takes in the date's counts: the harm check, the sample ratio test, the gate and the
  /// metrics' gated evidence; says where the pair stands.
  mutating func observe(_ date: OutcomeDate, pairs: Int) -> PairStatus {
    let strata = rows.counts(on: date)
    today = strata
    let (challenger, baseline) = Self.totals(strata)
    deviceTotals.append(challenger.devices + baseline.devices)
    let harmStrata = strata.map {
      HarmTest.Stratum(
        challengerConversions: $0.challenger.conversions, baselineConversions: $0.baseline.conversions,
        challengerShare: Double($0.challenger.devices)
          / Double(max(1, $0.challenger.devices + $0.baseline.devices)))
    }
    // The mixture is computed only when its bound could cross the threshold.
    let harmThreshold = log(Double(pairs) / policy.harmAlpha)
    if HarmTest.logEvidenceBound(harmStrata) >= harmThreshold {
      harmLog = max(harmLog, HarmTest.logEvidence(harmStrata))
    }
    sampleRatioLog = max(
      sampleRatioLog,
      strata.reduce(0) {
        $0
          + SampleRatio.logBayesFactor(
            challenger: $1.challenger.devices, baseline: $1.baseline.devices, share: $1.expectedShare)
      })
    effects = [:]
    effects[.conversion] = Effect.conversion(strata)
    if metrics.contains(.revenue) { effects[.revenue] = Effect.revenue(strata) }
    let exposure = Double(min(challenger.devices, baseline.devices)) * baseline.rate
    if gateOpenedOn == nil, exposure >= Double(policy.minimumConversions), baseline.conversions > 0 {
      gateOpenedOn = date
    }
    if gateOpenedOn != nil { recordGatedEvidence() }
    return status(on: date, strata: strata, pairs: pairs)
  }

  private func status(on date: OutcomeDate, strata: [StratumCounts], pairs: Int) -> PairStatus {
    if !rows.problems.isEmpty { return .invalid(.badSeries(rows.problems)) }
    if !rows.hasRows(challenger: false, on: date) { return .invalid(.noBaselineRows) }
    if !rows.hasRows(challenger: true, on: date) || strata.isEmpty { return .invalid(.noChallengerRows) }
    if harmLog >= log(Double(pairs) / policy.harmAlpha) { return .harm }
    if sampleRatioLog >= log(1 / policy.sampleRatioThreshold) {
      // The mismatch of an export that broke its rule at the split change is the export's,
      // not the challenger's: nothing to retract.
      if let splitStart = rows.countsNotRestartedAt {
        return .invalid(.exportNotRestarted(splitStart: splitStart))
      }
      return .invalid(Self.mismatch(strata, bayesFactor: exp(min(sampleRatioLog, 700))))
    }
    return gateOpenedOn == nil ? .gateClosed : .open
  }

  static func mismatch(_ strata: [StratumCounts], bayesFactor: Double) -> InvalidReason {
    let devices = strata.reduce(0) { $0 + $1.challenger.devices + $1.baseline.devices }
    let expected = expectedShare(strata, otherwise: 0)
    let observed = Double(strata.reduce(0) { $0 + $1.challenger.devices }) / Double(max(1, devices))
    return .sampleRatioMismatch(
      challengerShare: observed, expectedShare: expected, bayesFactor: bayesFactor,
      direction: observed < expected ? .fewer : .more)
  }

  static func expectedShare(_ strata: [StratumCounts], otherwise: Double) -> Double {
    let devices = strata.reduce(0.0) { $0 + Double($1.challenger.devices + $1.baseline.devices) }
    guard devices > 0 else { return otherwise }
    return strata.reduce(0.0) {
      $0 + $1.expectedShare * Double($1.challenger.devices + $1.baseline.devices)
    } / devices
  }

  static func totals(_ strata: [StratumCounts]) -> (ArmCounts, ArmCounts) {
    var (n1, x1, n2, x2) = (0, 0, 0, 0)
    for stratum in strata {
      n1 += stratum.challenger.devices
      x1 += stratum.challenger.conversions
      n2 += stratum.baseline.devices
      x2 += stratum.baseline.conversions
    }
    return (ArmCounts(devices: n1, conversions: x1), ArmCounts(devices: n2, conversions: x2))
  }

  /// The day's estimates join the gated history; the running p-values take them in.
  private mutating func recordGatedEvidence() {
    let tau2 = policy.mixtureScale * policy.mixtureScale
    for metric in metrics {
      guard let effect = effects[metric], effect.variance > 0, effect.variance.isFinite else { continue }
      var track = metricTracks[metric] ?? MetricTrack()
      track.gated.append((effect.estimate, effect.variance))
      let promoteThreshold = -margin(metric)
      if effect.estimate < 0 {
        let logRatio = AlwaysValidInterval.logLikelihoodRatio(
          estimate: effect.estimate, variance: effect.variance, mixtureVariance: tau2, null: 0)
        track.rollbackP = min(track.rollbackP, exp(-logRatio))
      }
      if effect.estimate > promoteThreshold {
        let logRatio = AlwaysValidInterval.logLikelihoodRatio(
          estimate: effect.estimate, variance: effect.variance, mixtureVariance: tau2, null: promoteThreshold)
        track.promoteP = min(track.promoteP, exp(-logRatio))
      }
      metricTracks[metric] = track
    }
  }

  /// The date's decision, with each metric's interval at its Holm level.
  mutating func conclude(_ date: OutcomeDate, status: PairStatus, levels: [Metric: Double]) {
    var judged: [Metric: MetricJudgement] = [:]
    for metric in metrics {
      judged[metric] = metricJudgement(metric, level: levels[metric] ?? policy.intervalAlpha)
    }
    var decision = Decision.continue
    var reason: InvalidReason?
    switch status {
    case .invalid(let why): (decision, reason) = (.invalid, why)
    case .harm: decision = .rollback
    case .gateClosed: decision = .continue
    case .open:
      if let empty = metrics.first(where: { judged[$0]?.emptyIntersection == true }) {
        (decision, reason) = (.invalid, .emptyIntersection(metric: empty))
      } else {
        decision = intervalDecision(levels)
      }
    }
    let (challenger, baseline) = Self.totals(today)
    var harm = false
    if case .harm = status { harm = true }
    days.append(
      DayJudgement(
        date: date, challenger: challenger, baseline: baseline, conversion: judged[.conversion],
        revenue: judged[.revenue],
        expectedShare: Self.expectedShare(today, otherwise: challenge.periods.last?.share ?? 0),
        sampleRatioBayesFactor: exp(min(sampleRatioLog, 700)),
        harmEvidence: exp(min(harmLog, 700)), gateOpen: gateOpenedOn != nil, decision: decision,
        invalidReason: reason, rolledBackByHarmCheck: harm))
  }

  private func intervalDecision(_ levels: [Metric: Double]) -> Decision {
    func track(_ metric: Metric) -> MetricTrack? { metricTracks[metric] }
    let alpha = policy.intervalAlpha
    if metrics.contains(where: { (track($0)?.rollbackP ?? 1) <= (levels[$0] ?? alpha) }) { return .rollback }
    let promoted = metrics.allSatisfy { metric in
      guard let track = track(metric), !track.gated.isEmpty else { return false }
      return track.promoteP <= (levels[metric] ?? alpha)
    }
    return promoted ? .promote : .continue
  }

  /// The metric's interval at `level`: the running intersection since the gate opened, or the
  /// day's own before; nil without an estimate.
  mutating func metricJudgement(_ metric: Metric, level: Double) -> MetricJudgement? {
    guard let effect = effects[metric] else { return nil }
    let tau2 = policy.mixtureScale * policy.mixtureScale
    let history = metricTracks[metric]?.gated ?? []
    let days = history.isEmpty ? [(effect.estimate, effect.variance)] : history
    // The running intersection at this level so far, when the level is the one it was kept at.
    var (low, high, counted) = (-Double.infinity, Double.infinity, 0)
    if let kept = metricTracks[metric]?.intersection, kept.level == level, !history.isEmpty {
      (low, high, counted) = (kept.low, kept.high, kept.days)
    }
    for (estimate, variance) in days[counted...] {
      let half = AlwaysValidInterval.halfWidth(variance: variance, mixtureVariance: tau2, alpha: level)
      (low, high) = (max(low, estimate - half), min(high, estimate + half))
    }
    if !history.isEmpty { metricTracks[metric]?.intersection = (level, low, high, history.count) }
    return MetricJudgement(
      interval: Interval(estimate: effect.estimate, low: low, high: high), level: level,
      estimateOutside: low <= high && (effect.estimate < low || effect.estimate > high),
      challengerMean: effect.challengerMean, baselineMean: effect.baselineMean)
  }
}
