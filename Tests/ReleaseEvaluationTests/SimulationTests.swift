import Foundation
import XCTest

@testable import ReleaseEvaluation

/// The proof: rollouts simulated with fixed seeds (`RolloutSimulation`), exported as
/// CSV, read by `OutcomesReader` and judged day by day as the daily job would; the first
/// decision other than `continue` stands. Each rate is asserted through its one-sided 95 %
/// Clopper–Pearson bound, so the number of runs is the fewest that bounds the stated rate.
/// The baseline converts 5 % of its devices; "N a day" is the challenger's devices a day.
/// docs/over-the-air.md states the measured rates: `swift test --filter SimulationTests`.
final class SimulationTests: XCTestCase {
  typealias Challenger = RolloutSimulation.Challenger

  func report(_ name: String, _ tally: Tally) {
    print(
      "simulation \(name): \(tally.runs) runs; rolled back \(tally.count(.rollback)) "
        + "(median day \(tally.median(.rollback).map(String.init) ?? "–")), promoted \(tally.count(.promote)) "
        + "(median day \(tally.median(.promote).map(String.init) ?? "–")), invalid \(tally.count(.invalid))")
  }

  func assertAtMost(
    _ tally: Tally, _ decision: Decision, _ rate: Double, _ name: String, line: UInt = #line
  ) {
    let bound = tally.upperBound(decision)
    XCTAssertLessThanOrEqual(
      bound, rate,
      "\(name): \(tally.count(decision)) of \(tally.runs) \(decision.rawValue); 95 % upper bound \(bound) above \(rate)",
      line: line)
  }

  func testEqualArmsAt200ADayFor60DaysAreRarelyRolledBack() throws {
    let equal = Challenger(version: 2, rate: 0.05, steps: [(0, 10)])
    let tally = try XCTUnwrap(
      try RolloutSimulation(challengers: [equal], devicesPerDay: 2_000, days: 60).run(150, seed: 0x5EED_0101)[
        2])
    report("equal, 200 a day, 60 days", tally)
    assertAtMost(tally, .rollback, 0.05, "false rollback")
    assertAtMost(tally, .invalid, 0.05, "spurious invalid")
  }

  /// At a 90 % rate the plug-in variance collapses when an arm converts all its devices; the
  /// judge's variance never does.
  func testEqualArmsAtANinetyPercentRateAt200ADayAreRarelyRolledBack() throws {
    let equal = Challenger(version: 2, rate: 0.9, steps: [(0, 10)])
    var simulation = RolloutSimulation(challengers: [equal], devicesPerDay: 2_000, days: 60)
    simulation.baselineRate = 0.9
    let tally = try XCTUnwrap(try simulation.run(150, seed: 0x5EED_0111)[2])
    report("equal at 90 %, 200 a day, 60 days", tally)
    assertAtMost(tally, .rollback, 0.05, "false rollback")
  }

  func testDeadChallengerAt200ADayIsRolledBackWithin3Days() throws {
    let dead = Challenger(version: 2, rate: 0, steps: [(0, 10)])
    let tally = try XCTUnwrap(
      try RolloutSimulation(challengers: [dead], devicesPerDay: 2_000, days: 3).run(300, seed: 0x5EED_0102)[2]
    )
    report("0 % against 5 %, 200 a day, 3 days", tally)
    let bound = tally.lowerBound(.rollback, within: 3)
    XCTAssertGreaterThanOrEqual(
      bound, 0.99, "rolled back within 3 days in \(tally.share(.rollback, within: 3))")
  }

  func testTwentyPercentWorseAt2000ADayIsRolledBackWithinAWeek() throws {
    let worse = Challenger(version: 2, rate: 0.04, steps: [(0, 10)])
    let tally = try XCTUnwrap(
      try RolloutSimulation(challengers: [worse], devicesPerDay: 20_000, days: 14).run(50, seed: 0x5EED_0103)[
        2])
    report("20 % worse, 2,000 a day, 14 days", tally)
    XCTAssertGreaterThanOrEqual(tally.lowerBound(.rollback), 0.9, "rolled back in \(tally.share(.rollback))")
    XCTAssertLessThanOrEqual(try XCTUnwrap(tally.median(.rollback)), 7)
    XCTAssertEqual(tally.count(.promote), 0)
  }

  func testTwentyPercentBetterAt2000ADayIsPromoted() throws {
    let better = Challenger(version: 2, rate: 0.06, steps: [(0, 10)])
    let tally = try XCTUnwrap(
      try RolloutSimulation(challengers: [better], devicesPerDay: 20_000, days: 14).run(
        50, seed: 0x5EED_0104)[2])
    report("20 % better, 2,000 a day, 14 days", tally)
    XCTAssertGreaterThanOrEqual(tally.lowerBound(.promote), 0.9, "promoted in \(tally.share(.promote))")
    XCTAssertEqual(tally.count(.rollback), 0)
  }

  func testEqualArmsAt20000ADayAreRarelyRolledBack() throws {
    let equal = Challenger(version: 2, rate: 0.05, steps: [(0, 10)])
    let tally = try XCTUnwrap(
      try RolloutSimulation(challengers: [equal], devicesPerDay: 200_000, days: 14).run(
        100, seed: 0x5EED_0105)[2])
    report("equal, 20,000 a day, 14 days", tally)
    assertAtMost(tally, .rollback, 0.05, "false rollback")
  }

  /// Ramped 10 → 25 → 50 % (days 0, 20, 40), the export restarting its counts at each
  /// `splitStart`: every step's evidence is kept, no series is refused.
  func testEqualArmsRampedThroughThreeStepsAreRarelyRolledBack() throws {
    let ramped = Challenger(version: 2, rate: 0.05, steps: [(0, 10), (20, 25), (40, 50)])
    let simulation = RolloutSimulation(challengers: [ramped], devicesPerDay: 2_000, days: 60)
    let tally = try XCTUnwrap(try simulation.run(150, seed: 0x5EED_0106)[2])
    report("equal, ramped 10 → 25 → 50 %, 200 a day at first, 60 days", tally)
    assertAtMost(tally, .rollback, 0.05, "false rollback")
    assertAtMost(tally, .invalid, 0.05, "invalid")
  }

  /// Two equal challengers at 10 % each: the higher version takes its 10 % first, the lower
  /// one 10 % of the rest (9 % of the flow).
  func testTwoEqualChallengersAreRarelyInvalid() throws {
    let two = [
      Challenger(version: 2, rate: 0.05, steps: [(0, 10)]),
      Challenger(version: 3, rate: 0.05, steps: [(0, 10)]),
    ]
    let tallies = try RolloutSimulation(challengers: two, devicesPerDay: 20_000, days: 30).run(
      150, seed: 0x5EED_0107)
    for version in [2, 3] {
      let tally = try XCTUnwrap(tallies[version])
      report("two equal challengers at 10 % each, v\(version), 30 days", tally)
      assertAtMost(tally, .invalid, 0.02, "invalid v\(version)")
    }
  }

  /// Revenue: a lognormal amount (log-sd 1, capped at 500) for each converting device.
  func revenueSimulation(conversion: Double, revenuePerDevice: Double) -> RolloutSimulation {
    var challenger = Challenger(version: 2, rate: 0.05 * conversion, steps: [(0, 10)])
    challenger.revenuePerConversion = 20 * revenuePerDevice / conversion
    var simulation = RolloutSimulation(challengers: [challenger], devicesPerDay: 20_000, days: 30)
    simulation.baselineRevenuePerConversion = 20
    return simulation
  }

  func testMoreConversionsButLessRevenueIsRarelyPromoted() throws {
    let simulation = revenueSimulation(conversion: 1.05, revenuePerDevice: 0.92)
    let tally = try XCTUnwrap(try simulation.run(40, seed: 0x5EED_0108)[2])
    report("+5 % conversion, −8 % revenue per device, 2,000 a day, 30 days", tally)
    assertAtMost(tally, .promote, 0.10, "promoted")
  }

  func testEqualRevenueIsRarelyRolledBack() throws {
    let tally = try XCTUnwrap(
      try revenueSimulation(conversion: 1, revenuePerDevice: 1).run(100, seed: 0x5EED_0109)[2])
    report("equal conversion and revenue, 2,000 a day, 30 days", tally)
    assertAtMost(tally, .rollback, 0.05, "false rollback")
  }

  /// The daily job sees only the export so far: judging a prefix of the file gives the same
  /// decisions as the whole file's day by day.
  func testEachDayIsWhatARunOnThatDayDecides() throws {
    let simulation = RolloutSimulation(
      challengers: [Challenger(version: 2, rate: 0.04, steps: [(0, 10), (3, 25)])], devicesPerDay: 20_000,
      days: 6)
    var random = SplitMix64(seed: 0x5EED_0110)
    let text = simulation.export(random: &random)
    let known = ["acme": Set(["checkout"])]
    let today = RolloutSimulation.start.adding(days: 6)
    let whole = Evaluator.judge(
      simulation.challenges, outcomes: try OutcomesReader.read(text, source: "s", known: known, today: today))[
        0]
    XCTAssertEqual(whole.days.count, 6)
    for day in 0..<6 {
      let cut = RolloutSimulation.start.adding(days: day + 1).description
      let prefix = text.split(separator: "\n").filter { $0 < cut || $0.hasPrefix("date") }.joined(
        separator: "\n")
      let judged = Evaluator.judge(
        simulation.challenges,
        outcomes: try OutcomesReader.read(prefix, source: "s", known: known, today: today))[0]
      XCTAssertEqual(judged.days.last?.decision, whole.days[day].decision, "day \(day)")
      XCTAssertEqual(judged.days.last?.relative, whole.days[day].relative, "day \(day)")
    }
  }

  func testClopperPearsonBoundsMatchTheirDefinition() {
    // 0 of n: the upper bound solves (1 − p)^n = 0.05.
    XCTAssertEqual(ClopperPearson.upper(0, of: 150), 1 - pow(0.05, 1 / 150.0), accuracy: 1e-9)
    // n of n: the lower bound solves p^n = 0.05.
    XCTAssertEqual(ClopperPearson.lower(300, of: 300), pow(0.05, 1 / 300.0), accuracy: 1e-9)
    // The binomial tail at the bound is 0.05.
    XCTAssertEqual(ClopperPearson.cdf(3, 100, ClopperPearson.upper(3, of: 100)), 0.05, accuracy: 1e-9)
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
}
