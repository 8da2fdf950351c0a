import Foundation

/// Cumulative counts of one arm.
public struct ArmCounts: Hashable, Sendable {
  public let devices: Int
  public let conversions: Int

  init(devices: Int, conversions: Int) {
    self.devices = devices
    self.conversions = conversions
  }

  public static let zero = ArmCounts(devices: 0, conversions: 0)

  /// The conversion rate; 0 without devices.
  public var rate: Double { devices > 0 ? Double(conversions) / Double(devices) : 0 }
}

/// What to do with a challenger.
public enum Decision: String, Hashable, Sendable, CaseIterable {
  /// Worse than the baseline beyond the always-valid interval, or surely fewer conversions
  /// (the harm check): retract it.
  case rollback
  /// Not worse than the baseline by more than the margin on any metric, with enough
  /// exposure: raise it a step.
  case promote
  /// Not enough evidence yet.
  case `continue`
  /// The data cannot be judged (sample ratio mismatch, an inconsistent series, no rows of an
  /// arm, intervals that contradict each other): a person looks.
  case invalid
}

/// Which way the challenger's share of devices is off.
public enum SampleRatioDirection: String, Hashable, Sendable {
  /// Fewer devices than expected: devices vanish from its arm, as when it crashes apps.
  case fewer
  /// More devices than expected.
  case more
}

/// Why the data cannot be judged.
public enum InvalidReason: Hashable, Sendable {
  /// The challenger's share of devices is far from the one its split gives (sequential test).
  case sampleRatioMismatch(
    challengerShare: Double, expectedShare: Double, bayesFactor: Double, direction: SampleRatioDirection)
  case noBaselineRows
  case noChallengerRows
  /// A series of the challenger or baseline is inconsistent (its problems, each with its line).
  case badSeries([OutcomeProblem])
  /// The running intersection of a metric's intervals is empty: the data contradict each
  /// other (or the model of them is wrong).
  case emptyIntersection(metric: Metric)
  /// The export has no `splitStart` column and did not restart its counts at the split that
  /// began on `splitStart` (each arm's first row of the split counts on from the row before):
  /// the export rule is broken, so the sample ratio test that fired on it says nothing about
  /// the challenger, and nothing is retracted or paused.
  case exportNotRestarted(splitStart: OutcomeDate)
}

/// What a challenger is judged on.
public enum Metric: String, Hashable, Sendable, CaseIterable {
  /// Conversions per device.
  case conversion
  /// Revenue per device.
  case revenue
}

/// How many more days (and devices) a `continue` needs before a decision.
public enum DevicesNeeded: Hashable, Sendable {
  /// About this many more devices (both arms) and, at the recent daily traffic, days, if the
  /// effect stays as estimated.
  case about(devices: Int, days: Int?)
  /// No decision expected within 100 times the devices so far: the effect sits inside the
  /// margin, where neither bound of the interval is expected to clear its threshold.
  case noneExpected
  /// No estimate yet: an arm has no conversions.
  case unknown
}

/// A metric's relative effect (challenger / baseline − 1) on one date.
public struct MetricJudgement: Hashable, Sendable {
  /// The always-valid interval, the running intersection since the gate opened, at `level`;
  /// before the gate opens, that day's interval alone.
  public let interval: Interval
  /// The error rate the interval was computed at (Holm's share of the budget).
  public let level: Double
  /// The day's estimate is outside the intersection.
  public let estimateOutside: Bool
  /// The intersection is empty (`interval.low > interval.high`).
  public var emptyIntersection: Bool { interval.low > interval.high }
  /// Per arm: conversion rate or revenue per device (stratified).
  public let challengerMean: Double
  public let baselineMean: Double
}

/// One date of a judged series: the counts so far and what a daily run would have said.
public struct DayJudgement: Hashable, Sendable {
  public let date: OutcomeDate
  /// Devices and conversions summed over the strata judged.
  public let challenger: ArmCounts
  public let baseline: ArmCounts
  public let conversion: MetricJudgement?
  public let revenue: MetricJudgement?
  /// The challenger's expected share of the two arms' devices, over the strata judged (each
  /// stratum's expected share weighted by its devices).
  public let expectedShare: Double
  /// The sample ratio test's Bayes factor (running maximum); 1 when not testable.
  public let sampleRatioBayesFactor: Double
  /// The harm check's evidence (running maximum).
  public let harmEvidence: Double
  /// The exposure gate is open: promote and rollback by interval may be decided.
  public let gateOpen: Bool
  public let decision: Decision
  public let invalidReason: InvalidReason?
  /// A rollback by the harm check rather than by an interval.
  public let rolledBackByHarmCheck: Bool

  /// The relative conversion interval, as the earlier field name had it.
  public var relative: Interval? { conversion?.interval }
}

/// The verdict on one challenger against its baseline.
public struct Judgement: Hashable, Sendable {
  public let customer: String
  public let flow: String
  public let challenger: Int
  public let baseline: Int
  /// The challenger's rollout percentage now.
  public let challengerPercent: Double
  /// The challenger's expected share of the two arms' devices in the current split.
  public let expectedShare: Double
  public let policy: EvaluationPolicy
  /// The decision of a run on the latest date.
  public let decision: Decision
  /// The first date at which a daily run would have reached `decision`; nil for `continue`
  /// and `invalid`.
  public let decidedOn: OutcomeDate?
  public let invalidReason: InvalidReason?
  /// For `continue`: how much more evidence a decision needs; nil otherwise.
  public let devicesNeeded: DevicesNeeded?
  /// The first date on which the exposure gate was open.
  public let gateOpenedOn: OutcomeDate?
  /// Rows of the flow of other model versions, or of splits not judged.
  public let ignoredRows: Int
  /// How many splits (strata) the evidence comes from.
  public let strata: Int
  /// Day by day, oldest first; the last is the latest date.
  public let days: [DayJudgement]

  public var challengerArm: ArmCounts { days.last?.challenger ?? .zero }
  public var baselineArm: ArmCounts { days.last?.baseline ?? .zero }
  public var relative: Interval? { days.last?.conversion?.interval }
  public var revenue: MetricJudgement? { days.last?.revenue }
  public var conversion: MetricJudgement? { days.last?.conversion }
  /// True when the sample ratio check failed on the latest date.
  public var sampleRatioMismatch: Bool {
    if case .sampleRatioMismatch = invalidReason { return true }
    return false
  }
  /// Which way the split is off, when it is.
  public var sampleRatioDirection: SampleRatioDirection? {
    if case .sampleRatioMismatch(_, _, _, let direction) = invalidReason { return direction }
    return nil
  }
}

extension Judgement {
  /// One JSON object on one line (no newline) with the fields `customer`, `flow`,
  /// `challenger`, `baseline`, `decision`, `decidedOn`, `reason` (why `invalid`, or `harm`
  /// for a rollback by the harm check; else null), `arms` (keyed by the version as a string:
  /// `devices`, `conversions`, `rate`), `relative` and `revenue` (the relative effect per
  /// metric: `estimate`, `low`, `high`, null when not estimable; `estimateOutsideInterval`,
  /// `emptyIntersection`, false when not estimable; `revenue` null without revenue
  /// columns), `gateOpenedOn`, `srm`,
  /// `srmDirection`, `strata` and `ignoredRows`. Keys sorted.
  public func jsonLine() -> String {
    let encoder = JSONEncoder()
    encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
    guard let data = try? encoder.encode(JudgementRecord(self)) else { return "{}" }
    return String(decoding: data, as: UTF8.self)
  }

  /// Why `invalid` (or `harm` for a rollback by the harm check), in a word; nil otherwise.
  public var reasonCode: String? {
    if decision == .rollback, days.last?.rolledBackByHarmCheck == true { return "harm" }
    switch invalidReason {
    case .sampleRatioMismatch?: return "sampleRatioMismatch"
    case .noBaselineRows?: return "noBaselineRows"
    case .noChallengerRows?: return "noChallengerRows"
    case .badSeries?: return "badSeries"
    case .emptyIntersection?: return "emptyIntersection"
    case .exportNotRestarted?: return "exportNotRestarted"
    case nil: return nil
    }
  }
}

private struct JudgementRecord: Encodable {
  struct Arm: Encodable {
    let devices: Int
    let conversions: Int
    let rate: Double
  }
  /// A metric's relative effect, and whether its running intersection says something is off
  /// (never reset silently: an empty one makes the challenger `invalid`).
  struct Bounds: Encodable {
    let metric: MetricJudgement?
    enum CodingKeys: String, CodingKey {
      case estimate, low, high, estimateOutsideInterval, emptyIntersection
    }
    func encode(to encoder: any Encoder) throws {
      var container = encoder.container(keyedBy: CodingKeys.self)
      let interval = metric?.interval
      try container.encode(interval.map { Self.finite($0.estimate) } ?? nil, forKey: .estimate)
      try container.encode(interval.map { Self.finite($0.low) } ?? nil, forKey: .low)
      try container.encode(interval.map { Self.finite($0.high) } ?? nil, forKey: .high)
      try container.encode(metric?.estimateOutside ?? false, forKey: .estimateOutsideInterval)
      try container.encode(metric?.emptyIntersection ?? false, forKey: .emptyIntersection)
    }
    static func finite(_ value: Double) -> Double? { value.isFinite ? value : nil }
  }

  let judgement: Judgement

  init(_ judgement: Judgement) { self.judgement = judgement }

  enum CodingKeys: String, CodingKey {
    case customer, flow, challenger, baseline, decision, decidedOn, reason, arms, relative, revenue,
      gateOpenedOn, srm, srmDirection, strata, ignoredRows
  }

  func encode(to encoder: any Encoder) throws {
    let j = judgement
    var container = encoder.container(keyedBy: CodingKeys.self)
    try container.encode(j.customer, forKey: .customer)
    try container.encode(j.flow, forKey: .flow)
    try container.encode(j.challenger, forKey: .challenger)
    try container.encode(j.baseline, forKey: .baseline)
    try container.encode(j.decision.rawValue, forKey: .decision)
    try container.encode(j.decidedOn?.description, forKey: .decidedOn)
    try container.encode(j.reasonCode, forKey: .reason)
    func arm(_ counts: ArmCounts) -> Arm {
      Arm(devices: counts.devices, conversions: counts.conversions, rate: counts.rate)
    }
    try container.encode(
      [String(j.baseline): arm(j.baselineArm), String(j.challenger): arm(j.challengerArm)], forKey: .arms)
    try container.encode(Bounds(metric: j.conversion), forKey: .relative)
    try container.encode(j.revenue.map { Bounds(metric: $0) }, forKey: .revenue)
    try container.encode(j.gateOpenedOn?.description, forKey: .gateOpenedOn)
    try container.encode(j.sampleRatioMismatch, forKey: .srm)
    try container.encode(j.sampleRatioDirection?.rawValue, forKey: .srmDirection)
    try container.encode(j.strata, forKey: .strata)
    try container.encode(j.ignoredRows, forKey: .ignoredRows)
  }
}
