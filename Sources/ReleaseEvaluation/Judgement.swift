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
  /// Worse than the baseline beyond the always-valid interval: retract it.
  case rollback
  /// Not worse than the baseline by more than the margin, with enough evidence: raise it a step.
  case promote
  /// Not enough evidence yet.
  case `continue`
  /// The data cannot be judged (sample ratio mismatch, or no baseline rows).
  case invalid
}

/// Why the data cannot be judged.
public enum InvalidReason: Hashable, Sendable {
  /// The challenger's share of devices is far from its rollout percentage.
  case sampleRatioMismatch(challengerShare: Double, expectedShare: Double, pValue: Double)
  case noBaselineRows
  case noChallengerRows
}

/// How many more devices a `continue` needs before a decision.
public enum DevicesNeeded: Hashable, Sendable {
  /// About this many more devices (both arms, at the current split), if the difference stays
  /// as estimated.
  case about(Int)
  /// No decision expected within 100 times the devices so far: the difference sits inside the
  /// margin, where neither bound of the interval is expected to clear its threshold.
  case noneExpected
  /// No estimate yet: an arm has no conversions.
  case unknown
}

/// One date of a judged series: the counts so far and what a daily run would have said.
public struct DayJudgement: Hashable, Sendable {
  public let date: OutcomeDate
  public let challenger: ArmCounts
  public let baseline: ArmCounts
  /// The always-valid interval of challenger − baseline (running intersection); nil while an
  /// arm has no devices or the baseline no conversions.
  public let difference: Interval?
  /// The same, relative to the baseline's rate.
  public let relative: Interval?
  /// The sample ratio test's p-value; nil when not testable.
  public let sampleRatioPValue: Double?
  public let decision: Decision
  public let invalidReason: InvalidReason?
}

/// The verdict on one challenger against its baseline.
public struct Judgement: Hashable, Sendable {
  public let customer: String
  public let flow: String
  public let challenger: Int
  public let baseline: Int
  /// The challenger's rollout percentage the split was judged against.
  public let challengerPercent: Double
  public let policy: EvaluationPolicy
  /// The decision of a run on the latest date.
  public let decision: Decision
  /// The first date at which a daily run would have reached `decision`; nil for `continue`
  /// and `invalid`.
  public let decidedOn: OutcomeDate?
  public let invalidReason: InvalidReason?
  /// For `continue`: how many more devices a decision needs; nil otherwise.
  public let devicesNeeded: DevicesNeeded?
  /// Rows of the customer's flow, in the judged dates, of other model versions.
  public let ignoredRows: Int
  /// Day by day, oldest first; the last is the latest date.
  public let days: [DayJudgement]

  public var challengerArm: ArmCounts { days.last?.challenger ?? .zero }
  public var baselineArm: ArmCounts { days.last?.baseline ?? .zero }
  public var difference: Interval? { days.last?.difference }
  public var relative: Interval? { days.last?.relative }
  /// True when the sample ratio check failed on the latest date.
  public var sampleRatioMismatch: Bool {
    if case .sampleRatioMismatch = invalidReason { return true }
    return false
  }
}

extension Judgement {
  /// One JSON object on one line (no newline) with the fields `customer`, `flow`,
  /// `challenger`, `baseline`, `decision`, `decidedOn`, `arms` (keyed by the version as a
  /// string: `devices`, `conversions`, `rate`), `difference` and `relative` (`estimate`,
  /// `low`, `high`; null when not estimable), `srm` and `ignoredRows`. Keys sorted.
  public func jsonLine() -> String {
    let encoder = JSONEncoder()
    encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
    guard let data = try? encoder.encode(JudgementRecord(self)) else { return "{}" }
    return String(decoding: data, as: UTF8.self)
  }
}

private struct JudgementRecord: Encodable {
  struct Arm: Encodable {
    let devices: Int
    let conversions: Int
    let rate: Double
  }
  struct Bounds: Encodable {
    let interval: Interval?
    enum CodingKeys: String, CodingKey { case estimate, low, high }
    func encode(to encoder: any Encoder) throws {
      var container = encoder.container(keyedBy: CodingKeys.self)
      try container.encode(interval.map { Self.finite($0.estimate) } ?? nil, forKey: .estimate)
      try container.encode(interval.map { Self.finite($0.low) } ?? nil, forKey: .low)
      try container.encode(interval.map { Self.finite($0.high) } ?? nil, forKey: .high)
    }
    static func finite(_ value: Double) -> Double? { value.isFinite ? value : nil }
  }

  let customer: String
  let flow: String
  let challenger: Int
  let baseline: Int
  let decision: String
  let decidedOn: String?
  let arms: [String: Arm]
  let difference: Bounds
  let relative: Bounds
  let srm: Bool
  let ignoredRows: Int

  init(_ judgement: Judgement) {
    customer = judgement.customer
    flow = judgement.flow
    challenger = judgement.challenger
    baseline = judgement.baseline
    decision = judgement.decision.rawValue
    decidedOn = judgement.decidedOn?.description
    func arm(_ counts: ArmCounts) -> Arm {
      Arm(devices: counts.devices, conversions: counts.conversions, rate: counts.rate)
    }
    arms = [
      String(judgement.baseline): arm(judgement.baselineArm),
      String(judgement.challenger): arm(judgement.challengerArm),
    ]
    difference = Bounds(interval: judgement.difference)
    relative = Bounds(interval: judgement.relative)
    srm = judgement.sampleRatioMismatch
    ignoredRows = judgement.ignoredRows
  }

  enum CodingKeys: String, CodingKey {
    case customer, flow, challenger, baseline, decision, decidedOn, arms, difference, relative, srm,
      ignoredRows
  }

  func encode(to encoder: any Encoder) throws {
    var container = encoder.container(keyedBy: CodingKeys.self)
    try container.encode(customer, forKey: .customer)
    try container.encode(flow, forKey: .flow)
    try container.encode(challenger, forKey: .challenger)
    try container.encode(baseline, forKey: .baseline)
    try container.encode(decision, forKey: .decision)
    try container.encode(decidedOn, forKey: .decidedOn)
    try container.encode(arms, forKey: .arms)
    try container.encode(difference, forKey: .difference)
    try container.encode(relative, forKey: .relative)
    try container.encode(srm, forKey: .srm)
    try container.encode(ignoredRows, forKey: .ignoredRows)
  }
}
