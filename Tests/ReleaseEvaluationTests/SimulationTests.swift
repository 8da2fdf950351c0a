import Foundation
import XCTest

@testable import ReleaseEvaluation

/// The proof: rollouts simulated with fixed seeds and judged as a daily job would.
/// Each rollout is 14 days of 20,000 new devices a day, each on the challenger with
/// probability 10 %, each converting with its arm's probability; after each day's cumulative
/// row the rollout is judged, and the first decision other than `continue` stands.
final class SimulationTests: XCTestCase {
  static let rollouts = 500
  static let days = 14
  static let devicesPerDay = 20_000
  static let challengerShare = 0.1

  struct Outcome {
    var decisions: [Decision: Int] = [:]
    var decisionDays: [Int] = []

    func share(_ decision: Decision) -> Double { Double(decisions[decision, default: 0]) / Double(rollouts) }
    var medianDecisionDay: Int? {
      guard !decisionDays.isEmpty else { return nil }
      return decisionDays.sorted()[decisionDays.count / 2]
    }
  }

  /// Daily cumulative counts of one simulated rollout.
  static func rollout(challengerRate: Double, baselineRate: Double, random: inout SplitMix64) -> [DailyCounts]
  {
    var challenger = ArmCounts.zero
    var baseline = ArmCounts.zero
    let start = OutcomeDate(year: 2026, month: 5, day: 1)!
    return (0..<days).map { day in
      let onChallenger = random.binomial(devicesPerDay, challengerShare)
      let onBaseline = devicesPerDay - onChallenger
      challenger = ArmCounts(
        devices: challenger.devices + onChallenger,
        conversions: challenger.conversions + random.binomial(onChallenger, challengerRate))
      baseline = ArmCounts(
        devices: baseline.devices + onBaseline,
        conversions: baseline.conversions + random.binomial(onBaseline, baselineRate))
      return DailyCounts(date: start.adding(days: day), challenger: challenger, baseline: baseline)
    }
  }

  static func simulate(challengerRate: Double, baselineRate: Double = 0.05, seed: UInt64) -> Outcome {
    var random = SplitMix64(seed: seed)
    var outcome = Outcome()
    let challenge = Challenge(customer: "c", flow: "f", challenger: 2, baseline: 1, challengerPercent: 10)
    for _ in 0..<rollouts {
      let series = rollout(challengerRate: challengerRate, baselineRate: baselineRate, random: &random)
      // Day by day the judge sees only the rows so far: `days[d]` is what a run on day d says.
      let judgement = Evaluator.judge(challenge, series: series, ignoredRows: 0)
      if let index = judgement.days.firstIndex(where: { $0.decision != .continue }) {
        outcome.decisions[judgement.days[index].decision, default: 0] += 1
        outcome.decisionDays.append(index + 1)
      } else {
        outcome.decisions[.continue, default: 0] += 1
      }
    }
    return outcome
  }

  /// The mistake to avoid: a two-proportion z-test after each day, stopping at the first
  /// p < 0.05; a rollback when the challenger looks worse.
  static func simulateNaive(challengerRate: Double, baselineRate: Double = 0.05, seed: UInt64) -> Double {
    var random = SplitMix64(seed: seed)
    var rolledBack = 0
    for _ in 0..<rollouts {
      let series = rollout(challengerRate: challengerRate, baselineRate: baselineRate, random: &random)
      for day in series {
        let (c, b) = (day.challenger, day.baseline)
        let pooled = Double(c.conversions + b.conversions) / Double(c.devices + b.devices)
        let z =
          (c.rate - b.rate)
          / (pooled * (1 - pooled) * (1 / Double(c.devices) + 1 / Double(b.devices))).squareRoot()
        if erfc(abs(z) / 2.squareRoot()) < 0.05 {
          if z < 0 { rolledBack += 1 }
          break
        }
      }
    }
    return Double(rolledBack) / Double(rollouts)
  }

  func testEqualChallengerIsRarelyRolledBack() {
    let outcome = Self.simulate(challengerRate: 0.05, seed: 0x5EED_0001)
    let rate = outcome.share(.rollback)
    print(
      "simulation equal (5.0 % vs 5.0 %): rolled back \(percent(rate)), promoted \(percent(outcome.share(.promote))), "
        + "invalid \(percent(outcome.share(.invalid)))")
    XCTAssertLessThanOrEqual(
      rate, 0.05,
      "an equal challenger was rolled back in \(percent(rate)) of \(Self.rollouts) rollouts (at most 5 %)")
  }

  func testWorseChallengerIsRolledBackWithinAWeek() throws {
    let outcome = Self.simulate(challengerRate: 0.04, seed: 0x5EED_0002)
    let rate = outcome.share(.rollback)
    let median = try XCTUnwrap(outcome.medianDecisionDay)
    print(
      "simulation 20 % worse (4.0 % vs 5.0 %): rolled back \(percent(rate)), median decision day \(median)")
    XCTAssertGreaterThanOrEqual(
      rate, 0.9, "a 20 % worse challenger was rolled back in \(percent(rate)) of rollouts (at least 90 %)")
    XCTAssertEqual(outcome.decisions[.promote, default: 0], 0, "a 20 % worse challenger was promoted")
    XCTAssertLessThanOrEqual(median, 7, "median decision day \(median) (at most 7)")
  }

  func testBetterChallengerIsPromoted() {
    let outcome = Self.simulate(challengerRate: 0.06, seed: 0x5EED_0003)
    let rate = outcome.share(.promote)
    print(
      "simulation 20 % better (6.0 % vs 5.0 %): promoted \(percent(rate)), "
        + "median decision day \(outcome.medianDecisionDay.map(String.init) ?? "none")")
    XCTAssertGreaterThanOrEqual(
      rate, 0.9, "a 20 % better challenger was promoted in \(percent(rate)) of rollouts (at least 90 %)")
    XCTAssertEqual(outcome.decisions[.rollback, default: 0], 0, "a 20 % better challenger was rolled back")
  }

  func testNaiveDailyZTestRollsBackAnEqualChallengerFarMoreOften() {
    let naive = Self.simulateNaive(challengerRate: 0.05, seed: 0x5EED_0001)
    let judged = Self.simulate(challengerRate: 0.05, seed: 0x5EED_0001).share(.rollback)
    print("simulation equal, naive daily z-test (p < 0.05, first look stops): rolled back \(percent(naive))")
    XCTAssertGreaterThan(
      naive, 0.08,
      "the naive daily z-test rolled back an equal challenger in only \(percent(naive)) of rollouts")
    XCTAssertGreaterThan(
      naive, 3 * max(judged, 0.01),
      "naive z-test \(percent(naive)) vs always-valid \(percent(judged)): expected far more false rollbacks")
  }

  func testBinomialSamplerMatchesMeanAndVariance() {
    var random = SplitMix64(seed: 42)
    let draws = (0..<20_000).map { _ in Double(random.binomial(2_000, 0.05)) }
    let mean = draws.reduce(0, +) / Double(draws.count)
    let variance = draws.map { ($0 - mean) * ($0 - mean) }.reduce(0, +) / Double(draws.count - 1)
    XCTAssertEqual(mean, 100, accuracy: 0.3)
    XCTAssertEqual(variance, 95, accuracy: 4)
    var small = SplitMix64(seed: 7)
    let smallDraws = (0..<20_000).map { _ in Double(small.binomial(20, 0.1)) }
    XCTAssertEqual(smallDraws.reduce(0, +) / Double(smallDraws.count), 2, accuracy: 0.05)
    XCTAssertTrue(smallDraws.allSatisfy { $0 >= 0 && $0 <= 20 })
  }

  private func percent(_ share: Double) -> String { String(format: "%.1f %%", share * 100) }
}

/// SplitMix64 (Steele, Lea & Flood 2014): a small, fast, seedable generator.
struct SplitMix64: RandomNumberGenerator {
  private var state: UInt64

  init(seed: UInt64) { state = seed }

  mutating func next() -> UInt64 {
    state &+= 0x9E37_79B9_7F4A_7C15
    var z = state
    z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
    z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
    return z ^ (z >> 31)
  }

  /// A uniform double in (0, 1).
  mutating func uniform() -> Double { (Double(next() >> 11) + 0.5) / 9_007_199_254_740_992 }

  /// A standard normal draw (Box–Muller).
  mutating func normal() -> Double {
    (-2 * log(uniform())).squareRoot() * cos(2 * Double.pi * uniform())
  }

  /// A Binomial(n, p) draw: by inversion of the cumulative distribution when n·p·(1−p) is
  /// small, else the normal approximation with continuity correction (at these sizes, means
  /// of 80–1,100, its error is far below the simulation's own noise).
  mutating func binomial(_ n: Int, _ p: Double) -> Int {
    guard n > 0, p > 0 else { return 0 }
    guard p < 1 else { return n }
    let variance = Double(n) * p * (1 - p)
    if variance < 25 {
      let u = uniform()
      var probability = pow(1 - p, Double(n))
      var cumulative = probability
      var k = 0
      while cumulative < u, k < n {
        probability *= Double(n - k) / Double(k + 1) * p / (1 - p)
        k += 1
        cumulative += probability
      }
      return k
    }
    let draw = (Double(n) * p + variance.squareRoot() * normal()).rounded()
    return min(max(Int(draw), 0), n)
  }
}
