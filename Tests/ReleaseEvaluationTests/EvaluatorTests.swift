import Foundation
import XCTest

@testable import ReleaseEvaluation

final class EvaluatorTests: XCTestCase {
  let start = OutcomeDate("2026-05-01")!
  let today = OutcomeDate("2026-06-30")!
  let header = "date,customer,flow,modelVersion,devices,conversions"

  /// A CSV of cumulative rows: per day (challenger devices, conversions, baseline devices,
  /// conversions) added to the totals; model 7 is the challenger, 6 the baseline.
  func csv(_ days: [(Int, Int, Int, Int)], extraRows: [String] = []) -> String {
    var lines = [header]
    var totals = (0, 0, 0, 0)
    for (index, day) in days.enumerated() {
      totals = (totals.0 + day.0, totals.1 + day.1, totals.2 + day.2, totals.3 + day.3)
      let date = start.adding(days: index)
      if totals.0 > 0 { lines.append("\(date),acme,checkout,7,\(totals.0),\(totals.1)") }
      if totals.2 > 0 { lines.append("\(date),acme,checkout,6,\(totals.2),\(totals.3)") }
    }
    return (lines + extraRows).joined(separator: "\n") + "\n"
  }

  func outcomes(_ text: String) throws -> Outcomes {
    try OutcomesReader.read(
      text, source: "outcomes.csv", known: ["acme": ["checkout", "search"]], today: today)
  }

  func judge(_ text: String, percent: Double = 10, policy: EvaluationPolicy = .standard) throws -> Judgement {
    Evaluator.judge(
      Challenge(
        customer: "acme", flow: "checkout", challenger: 7, baseline: 6, challengerPercent: percent,
        policy: policy),
      outcomes: try outcomes(text))
  }

  func testAChallengerThatConvertsNobodyIsRolledBackByTheHarmCheckBeforeTheGateOpens() throws {
    // 0 of 200 against 90 of 1,800: far from 100 expected conversions on the challenger.
    let judgement = try judge(csv(Array(repeating: (200, 0, 1_800, 90), count: 3)))
    XCTAssertEqual(judgement.decision, .rollback)
    XCTAssertEqual(judgement.decidedOn, start)
    XCTAssertNil(judgement.gateOpenedOn, "200 devices × 5 % is 10 expected conversions")
    XCTAssertTrue(try XCTUnwrap(judgement.days.first).rolledBackByHarmCheck)
    XCTAssertEqual(judgement.reasonCode, "harm")
    XCTAssertTrue(EvaluationReport.decisionText(judgement).contains("harm check"))
  }

  func testTheGateCountsExposureNotTheChallengersConversions() throws {
    // 1,000 challenger devices a day at 5 %: 50, 100, 150 expected conversions; the challenger
    // converts at 3 %, 30 a day, never 100 conversions by day 3.
    let days = Array(repeating: (1_000, 30, 9_000, 450), count: 3)
    let judgement = try judge(csv(days))
    XCTAssertEqual(judgement.gateOpenedOn, start.adding(days: 1))
    XCTAssertEqual(judgement.days.map(\.gateOpen), [false, true, true])
    XCTAssertLessThan(judgement.challengerArm.conversions, 100)
    XCTAssertEqual(judgement.decision, .rollback)
    let lenient = try judge(csv(days), policy: EvaluationPolicy(minimumConversions: 50))
    XCTAssertEqual(lenient.gateOpenedOn, start)
  }

  /// The trap: two early days with no challenger conversion. Intervals are kept only
  /// from the day the gate opens, so the early bad luck does not roll back a better challenger.
  func testEarlyBadLuckBeforeTheGateIsNotKept() throws {
    var days = Array(repeating: (25, 0, 225, 11), count: 2)
    days += Array(repeating: (500, 29, 4_500, 225), count: 20)
    let judgement = try judge(csv(days))
    XCTAssertNotEqual(judgement.decision, .rollback)
    XCTAssertFalse(judgement.days.contains { $0.decision == .rollback })
    let relative = try XCTUnwrap(judgement.relative)
    XCTAssertTrue(relative.low <= relative.estimate && relative.estimate <= relative.high, "\(relative)")
    // Before the gate each day's interval is its own: day 2 is not narrower than day 1 by
    // intersection, and the gated days' intersection lies inside every gated day's own.
    let gate = try XCTUnwrap(judgement.days.firstIndex { $0.gateOpen })
    XCTAssertGreaterThan(gate, 1)
    for day in judgement.days[gate...] {
      let interval = try XCTUnwrap(day.relative)
      XCTAssertGreaterThanOrEqual(interval.low, try XCTUnwrap(judgement.days[gate].relative).low)
    }
  }

  func testBetterChallengerIsPromotedAndDecidedOnIsTheFirstPromotingDay() throws {
    let judgement = try judge(csv(Array(repeating: (2_000, 140, 18_000, 900), count: 5)))
    XCTAssertEqual(judgement.decision, .promote)
    let first = try XCTUnwrap(judgement.days.firstIndex { $0.decision == .promote })
    XCTAssertEqual(judgement.decidedOn, judgement.days[first].date)
    XCTAssertTrue(judgement.days[..<first].allSatisfy { $0.decision == .continue })
    XCTAssertGreaterThan(try XCTUnwrap(judgement.relative).low, -0.02)
  }

  func testContinueSaysHowManyMoreDaysAtCurrentTraffic() throws {
    let slightlyBetter = try judge(csv(Array(repeating: (2_000, 104, 18_000, 900), count: 3)))
    XCTAssertEqual(slightlyBetter.decision, .continue)
    guard case .about(let devices, let days?)? = slightlyBetter.devicesNeeded else {
      return XCTFail("expected an estimate, got \(String(describing: slightlyBetter.devicesNeeded))")
    }
    // 20,000 new devices a day.
    XCTAssertEqual(days, Int((Double(devices) / 20_000).rounded(.up)))
    XCTAssertTrue(EvaluationReport.decisionText(slightlyBetter).contains("more days at current traffic"))
  }

  func testASplitWithMoreOrFewerDevicesThanExpectedIsInvalidWithItsDirection() throws {
    let more = try judge(csv(Array(repeating: (2_800, 140, 17_200, 860), count: 5)))
    XCTAssertEqual(more.decision, .invalid)
    XCTAssertEqual(more.sampleRatioDirection, .more)
    let fewer = try judge(csv(Array(repeating: (1_200, 60, 18_800, 940), count: 5)))
    XCTAssertEqual(fewer.sampleRatioDirection, .fewer)
    guard case .sampleRatioMismatch(let share, let expected, let factor, _)? = fewer.invalidReason else {
      return XCTFail("\(String(describing: fewer.invalidReason))")
    }
    XCTAssertEqual(share, 0.06, accuracy: 1e-9)
    XCTAssertEqual(expected, 0.1, accuracy: 1e-12)
    XCTAssertGreaterThanOrEqual(factor, 1_000)
    XCTAssertTrue(fewer.jsonLine().contains("\"srmDirection\":\"fewer\""), fewer.jsonLine())
    XCTAssertEqual(
      try judge(csv(Array(repeating: (1_200, 60, 18_800, 940), count: 5)), percent: 6).decision, .continue)
  }

  func testABadSeriesMakesOnlyItsChallengerInvalid() throws {
    let text = csv(
      Array(repeating: (2_000, 140, 18_000, 900), count: 3),
      extraRows: [
        "2026-05-01,acme,search,7,100,5", "2026-05-02,acme,search,7,90,5", "2026-05-01,acme,search,6,900,45",
        "2026-05-02,acme,search,6,1800,90",
      ])
    let judged = Evaluator.judge(
      ["checkout", "search"].map {
        Challenge(customer: "acme", flow: $0, challenger: 7, baseline: 6, challengerPercent: 10)
      }, outcomes: try outcomes(text))
    XCTAssertEqual(judged.map(\.decision), [.promote, .invalid])
    guard case .badSeries(let problems)? = judged[1].invalidReason else {
      return XCTFail("\(String(describing: judged[1].invalidReason))")
    }
    // The header, 6 rows of checkout, then search: its second row is line 9.
    XCTAssertEqual(problems.map(\.line), [9])
    XCTAssertTrue(EvaluationReport.decisionText(judged[1]).contains("found devices 90, down from 100"))
  }

  /// Three ramp steps, the export restarting its counts at each `splitStart`: each step is a
  /// stratum with its own expected share, and the evidence of all of them is combined.
  func testRampStepsAreStrataAndKeepTheirEvidence() throws {
    let rows = [
      "2026-05-01,acme,checkout,7,1000,50,2026-05-01", "2026-05-01,acme,checkout,6,9000,450,2026-05-01",
      "2026-05-02,acme,checkout,7,2000,100,2026-05-01", "2026-05-02,acme,checkout,6,18000,900,2026-05-01",
      "2026-05-03,acme,checkout,7,2500,125,2026-05-03", "2026-05-03,acme,checkout,6,7500,375,2026-05-03",
      "2026-05-04,acme,checkout,7,5000,250,2026-05-03", "2026-05-04,acme,checkout,6,15000,750,2026-05-03",
    ]
    let text = ([header + ",splitStart"] + rows).joined(separator: "\n")
    let challenge = Challenge(
      customer: "acme", flow: "checkout", challenger: 7, baseline: 6, challengerPercent: 25,
      periods: [
        SplitPeriod(since: start, share: 0.1), SplitPeriod(since: start.adding(days: 2), share: 0.25),
      ])
    let judgement = Evaluator.judge(challenge, outcomes: try outcomes(text))
    XCTAssertEqual(judgement.strata, 2)
    XCTAssertEqual(judgement.challengerArm, ArmCounts(devices: 7_000, conversions: 350))
    XCTAssertEqual(judgement.baselineArm, ArmCounts(devices: 33_000, conversions: 1_650))
    XCTAssertFalse(judgement.sampleRatioMismatch)
    XCTAssertNotEqual(judgement.decision, .invalid)
    // Judged against one share for both steps, the same rows are a mismatch.
    let unstratified = Evaluator.judge(
      Challenge(
        customer: "acme", flow: "checkout", challenger: 7, baseline: 6, challengerPercent: 25,
        periods: [SplitPeriod(since: start, share: 0.25)]), outcomes: try outcomes(text))
    XCTAssertEqual(unstratified.decision, .invalid)
  }

  func testWithoutSplitStartRowsBeforeTheCurrentSplitAreIgnoredAndCounted() throws {
    let text = csv(
      Array(repeating: (2_000, 100, 18_000, 900), count: 4), extraRows: ["2026-05-02,acme,checkout,5,10,1"])
    let judgement = Evaluator.judge(
      Challenge(
        customer: "acme", flow: "checkout", challenger: 7, baseline: 6, challengerPercent: 10,
        since: start.adding(days: 2)),
      outcomes: try outcomes(text))
    XCTAssertEqual(judgement.days.map(\.date), [start.adding(days: 2), start.adding(days: 3)])
    XCTAssertEqual(judgement.ignoredRows, 5, "4 rows before the split and 1 of another version")
  }

  /// An export without `splitStart` that counts on across a ramp step 10 → 25 % (breaking the
  /// export rule) shows the challenger far below its new share: a sample ratio mismatch with
  /// fewer devices, which `--apply` would answer by retracting a challenger as good as its
  /// baseline. The judge names the export as the cause instead (`invalid`, no direction, so
  /// nothing is retracted); the same rollout exported as the rule says is judged as usual.
  func testAnExportThatDoesNotRestartAtARampStepIsNotASampleRatioMismatch() throws {
    var simulation = RolloutSimulation(
      challengers: [.init(version: 2, rate: 0.05, steps: [(0, 10), (7, 25)])], devicesPerDay: 2_000, days: 14)
    simulation.splitStartColumn = false
    simulation.restartsCounts = false
    func judged(_ simulation: RolloutSimulation) throws -> Judgement {
      var random = SplitMix64(seed: 34)
      let outcomes = try OutcomesReader.read(
        simulation.export(random: &random), source: "simulated.csv", known: ["acme": ["checkout"]],
        today: RolloutSimulation.start.adding(days: simulation.days))
      return Evaluator.judge(simulation.challenges[0], outcomes: outcomes)
    }
    let counting = try judged(simulation)
    let splitChange = RolloutSimulation.start.adding(days: 7)
    XCTAssertEqual(counting.decision, .invalid, counting.jsonLine())
    XCTAssertEqual(counting.invalidReason, .exportNotRestarted(splitStart: splitChange), counting.jsonLine())
    XCTAssertNil(counting.sampleRatioDirection, "nothing for --apply to retract or pause")
    XCTAssertTrue(counting.jsonLine().contains("\"reason\":\"exportNotRestarted\""), counting.jsonLine())
    XCTAssertTrue(
      EvaluationReport.decisionText(counting).contains("must restart its counts at each split"),
      EvaluationReport.decisionText(counting))

    simulation.restartsCounts = true
    let restarting = try judged(simulation)
    XCTAssertNotEqual(restarting.decision, .invalid, restarting.jsonLine())
  }

  /// An export without `splitStart` restarts its counts at the split of 2026-05-03, as the
  /// rule says: the decrease the reader sees there is the restart, and the series is checked
  /// from that date on; a decrease after it still makes the challenger `invalid`.
  func testAnExportWithoutSplitStartIsCheckedFromTheCurrentSplitOn() throws {
    let rows = [
      "2026-05-01,acme,checkout,7,1000,50", "2026-05-01,acme,checkout,6,9000,450",
      "2026-05-02,acme,checkout,7,2000,100", "2026-05-02,acme,checkout,6,18000,900",
      "2026-05-03,acme,checkout,7,500,25", "2026-05-03,acme,checkout,6,1500,75",
    ]
    let challenge = Challenge(
      customer: "acme", flow: "checkout", challenger: 7, baseline: 6, challengerPercent: 25,
      since: start.adding(days: 2))
    let restarted = Evaluator.judge(
      challenge, outcomes: try outcomes(([header] + rows).joined(separator: "\n")))
    XCTAssertNil(restarted.invalidReason, restarted.jsonLine())
    XCTAssertEqual(restarted.challengerArm, ArmCounts(devices: 500, conversions: 25))
    XCTAssertEqual(restarted.ignoredRows, 4)

    let decreasing = rows + ["2026-05-04,acme,checkout,7,400,30", "2026-05-04,acme,checkout,6,3000,150"]
    let judged = Evaluator.judge(
      challenge, outcomes: try outcomes(([header] + decreasing).joined(separator: "\n")))
    guard case .badSeries(let problems)? = judged.invalidReason else {
      return XCTFail(judged.jsonLine())
    }
    XCTAssertEqual(problems.map(\.line), [8], "the decrease after the restart, not the restart")
  }

  func testTwoChallengersShareTheErrorBudgetByHolm() throws {
    var lines = [header]
    for day in 0..<5 {
      let date = start.adding(days: day)
      let n = day + 1
      lines += [
        "\(date),acme,checkout,8,\(2_000 * n),\(100 * n)", "\(date),acme,checkout,7,\(1_800 * n),\(90 * n)",
      ]
      lines += ["\(date),acme,checkout,6,\(16_200 * n),\(810 * n)"]
    }
    let challenges = [7, 8].map { version in
      Challenge(
        customer: "acme", flow: "checkout", challenger: version, baseline: 6, challengerPercent: 10,
        periods: [SplitPeriod(since: start, share: version == 8 ? 2_000.0 / 18_200 : 0.1)])
    }
    let judged = Evaluator.judge(challenges, outcomes: try outcomes(lines.joined(separator: "\n")))
    let alpha = EvaluationPolicy.standard.intervalAlpha
    for judgement in judged {
      XCTAssertEqual(judgement.decision, .continue)
      XCTAssertEqual(try XCTUnwrap(judgement.conversion).level, alpha / 2, accuracy: 1e-15)
    }
    let alone = Evaluator.judge(challenges[0], outcomes: try outcomes(lines.joined(separator: "\n")))
    XCTAssertEqual(try XCTUnwrap(alone.conversion).level, alpha, accuracy: 1e-15)
  }

  func testLessRevenuePerDeviceIsRolledBackThoughConversionsAreEqual() throws {
    var lines = [header + ",revenue,revenueSquares"]
    for day in 0..<6 {
      let n = Double(day + 1)
      let date = start.adding(days: day)
      // 5 % convert; each converter earns 20 (baseline) or 14 (challenger), spread 10.
      lines.append(
        "\(date),acme,checkout,7,\(Int(2_000 * n)),\(Int(100 * n)),\(1_400 * n),\(100 * n * (196 + 100))")
      lines.append(
        "\(date),acme,checkout,6,\(Int(18_000 * n)),\(Int(900 * n)),\(18_000 * n),\(900 * n * (400 + 100))")
    }
    let judgement = try judge(lines.joined(separator: "\n"))
    XCTAssertEqual(judgement.decision, .rollback)
    let revenue = try XCTUnwrap(judgement.revenue)
    XCTAssertEqual(revenue.interval.estimate, 0.7 - 1, accuracy: 1e-12)
    XCTAssertLessThan(revenue.interval.high, 0)
    XCTAssertGreaterThan(try XCTUnwrap(judgement.relative).high, 0, "conversions alone are not worse")
    XCTAssertTrue(judgement.jsonLine().contains("\"revenue\":{"), judgement.jsonLine())
  }

  func testAnEstimateOutsideItsIntervalIsReported() throws {
    // Day 1: 60 % better; day 2 (cumulative): 15 % better, inside day 2's own interval but
    // below the intersection's lower bound, which day 1 set.
    let judgement = try judge(csv([(4_000, 320, 36_000, 1_800), (4_000, 140, 36_000, 1_800)]))
    let conversion = try XCTUnwrap(judgement.conversion)
    XCTAssertFalse(conversion.emptyIntersection)
    XCTAssertTrue(conversion.estimateOutside, "\(conversion.interval)")
    XCTAssertLessThan(conversion.interval.estimate, conversion.interval.low)
    XCTAssertTrue(EvaluationReport.markdown([judgement]).contains("estimate outside its interval"))
    let relative = try jsonMetric(judgement, "relative")
    XCTAssertEqual(relative["estimateOutsideInterval"] as? Bool, true, judgement.jsonLine())
    XCTAssertEqual(relative["emptyIntersection"] as? Bool, false, judgement.jsonLine())
  }

  /// A metric's object (`relative` or `revenue`) of the judgement's `--json` line.
  func jsonMetric(_ judgement: Judgement, _ key: String) throws -> [String: Any] {
    let line = judgement.jsonLine()
    let object = try XCTUnwrap(JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any], line)
    return try XCTUnwrap(object[key] as? [String: Any], line)
  }

  func testAnEmptyIntersectionIsReportedAndInvalid() throws {
    // Day 1 says 60 % better, day 2 (cumulative) 10 % better: the intervals cannot both hold.
    let text = csv([(4_000, 320, 36_000, 1_800), (396_000, 21_680, 3_564_000, 178_200)])
    let judgement = try judge(text)
    XCTAssertEqual(judgement.days.first?.decision, .promote)
    XCTAssertEqual(judgement.decision, .invalid)
    XCTAssertEqual(judgement.invalidReason, .emptyIntersection(metric: .conversion))
    XCTAssertTrue(try XCTUnwrap(judgement.conversion).emptyIntersection)
    XCTAssertTrue(EvaluationReport.markdown([judgement]).contains("empty intersection"))
    // The JSON line says so too, with the bounds that contradict each other (low above high).
    let relative = try jsonMetric(judgement, "relative")
    XCTAssertEqual(relative["emptyIntersection"] as? Bool, true, judgement.jsonLine())
    XCTAssertEqual(relative["estimateOutsideInterval"] as? Bool, false, judgement.jsonLine())
    XCTAssertGreaterThan(
      try XCTUnwrap(relative["low"] as? Double), try XCTUnwrap(relative["high"] as? Double))
    XCTAssertTrue(judgement.jsonLine().contains("\"reason\":\"emptyIntersection\""), judgement.jsonLine())
  }

  /// Counts at the reader's limit on every row: nothing traps, the judgement is made.
  func testCountsAtTheLimitDoNotTrap() throws {
    let limit = OutcomesReader.maximumCount
    var lines = [header + ",splitStart"]
    for day in 0..<30 {
      let date = start.adding(days: day)
      lines += [
        "\(date),acme,checkout,7,\(limit),\(limit / 2),\(date)",
        "\(date),acme,checkout,6,\(limit),\(limit / 2),\(date)",
      ]
    }
    let periods = (0..<30).map { SplitPeriod(since: start.adding(days: $0), share: 0.5) }
    let judgement = Evaluator.judge(
      Challenge(
        customer: "acme", flow: "checkout", challenger: 7, baseline: 6, challengerPercent: 50,
        periods: periods),
      outcomes: try outcomes(lines.joined(separator: "\n")))
    XCTAssertEqual(judgement.strata, 30)
    XCTAssertEqual(judgement.challengerArm.devices, 30 * limit)
    XCTAssertNotEqual(judgement.decision, .invalid)
    XCTAssertFalse(EvaluationReport.svg(judgement).isEmpty)
  }

  func testNoBaselineRowsIsInvalid() throws {
    let judgement = try judge(csv(Array(repeating: (2_000, 60, 0, 0), count: 3)))
    XCTAssertEqual(judgement.decision, .invalid)
    XCTAssertEqual(judgement.invalidReason, .noBaselineRows)
    // No rows of either arm (a split that began today): nothing to judge yet.
    let empty = try judge(header + "\n")
    XCTAssertEqual(empty.decision, .continue)
    XCTAssertEqual(empty.devicesNeeded, .unknown)
    XCTAssertTrue(
      empty.jsonLine().contains(
        "\"relative\":{\"emptyIntersection\":false,\"estimate\":null,\"estimateOutsideInterval\":false,\"high\":null,\"low\":null}"
      ), empty.jsonLine())
  }

  func testJSONLineHasTheDocumentedFields() throws {
    let line = try judge(csv(Array(repeating: (2_000, 60, 18_000, 900), count: 3))).jsonLine()
    XCTAssertFalse(line.contains("\n"))
    let object = try XCTUnwrap(JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any])
    XCTAssertEqual(
      Set(object.keys),
      [
        "customer", "flow", "challenger", "baseline", "decision", "decidedOn", "reason", "arms", "relative",
        "revenue", "gateOpenedOn", "srm", "srmDirection", "strata", "ignoredRows",
      ])
    let arms = try XCTUnwrap(object["arms"] as? [String: [String: Any]])
    XCTAssertEqual(arms["7"]?["devices"] as? Int, 6_000)
    XCTAssertEqual(arms["7"]?["conversions"] as? Int, 180)
    let relative = try XCTUnwrap(object["relative"] as? [String: Any])
    XCTAssertEqual(
      Set(relative.keys), ["estimate", "low", "high", "estimateOutsideInterval", "emptyIntersection"])
    XCTAssertEqual(try XCTUnwrap(relative["estimate"] as? Double), 0.03 / 0.05 - 1, accuracy: 1e-12)
  }

  func testIntervalAndLikelihoodRatioAgree() {
    // θ̂ ± √(V(V+τ²)/τ² · (log((V+τ²)/V) − 2 log α)) with V = τ² = 1e-4, α = 0.05.
    let half = AlwaysValidInterval.halfWidth(variance: 1e-4, mixtureVariance: 1e-4, alpha: 0.05)
    XCTAssertEqual(half, (2e-4 * (log(2) - 2 * log(0.05))).squareRoot(), accuracy: 1e-15)
    // At the interval's edge the likelihood ratio is exactly 1/α.
    let ratio = AlwaysValidInterval.logLikelihoodRatio(
      estimate: 0.3 + half, variance: 1e-4, mixtureVariance: 1e-4, null: 0.3)
    XCTAssertEqual(ratio, -log(0.05), accuracy: 1e-9)
    XCTAssertEqual(AlwaysValidInterval.halfWidth(variance: 0, mixtureVariance: 1, alpha: 0.05), .infinity)
  }

  /// The harm check's mixture against its definition, integrated independently with a fine
  /// trapezoid rule; its bound is never below it.
  func testHarmEvidenceMatchesItsIntegral() {
    let strata = [
      HarmTest.Stratum(challengerConversions: 3, baselineConversions: 60, challengerShare: 0.1),
      HarmTest.Stratum(challengerConversions: 10, baselineConversions: 50, challengerShare: 0.25),
    ]
    let steps = 200_000
    var integral = 0.0
    for step in 0...steps {
      let rho = Double(step) / Double(steps)
      var value = 1.0
      for s in strata {
        value *=
          pow(rho, Double(s.challengerConversions))
          * pow(1 - s.challengerShare * (1 - rho), -Double(s.challengerConversions + s.baselineConversions))
      }
      integral += (step == 0 || step == steps ? 0.5 : 1) * value / Double(steps)
    }
    XCTAssertEqual(HarmTest.logEvidence(strata), log(integral), accuracy: 1e-3)
    XCTAssertGreaterThanOrEqual(HarmTest.logEvidenceBound(strata), HarmTest.logEvidence(strata))
  }

  /// The sample ratio Bayes factor against the beta-binomial marginal, integrated independently.
  func testSampleRatioBayesFactorMatchesItsIntegral() {
    let (n1, n2, f) = (30, 170, 0.1)
    let (a, b) = (SampleRatio.concentration * f, SampleRatio.concentration * (1 - f))
    let steps = 200_000
    var integral = 0.0
    let logNormaliser = lgamma(a + b) - lgamma(a) - lgamma(b)
    for step in 1..<steps {
      let p = Double(step) / Double(steps)
      let logDensity = logNormaliser + (a - 1 + Double(n1)) * log(p) + (b - 1 + Double(n2)) * log(1 - p)
      integral += exp(logDensity - Double(n1) * log(f) - Double(n2) * log(1 - f)) / Double(steps)
    }
    XCTAssertEqual(
      SampleRatio.logBayesFactor(challenger: n1, baseline: n2, share: f), log(integral), accuracy: 1e-4)
  }

  func testPolicyDefaultsAndSchedule() {
    let policy = EvaluationPolicy.standard
    XCTAssertEqual(policy.margin, 0.02)
    XCTAssertNil(policy.revenueMargin)
    XCTAssertEqual(policy.minimumConversions, 100)
    XCTAssertEqual(policy.harmAlpha, 0.01)
    XCTAssertEqual(policy.intervalAlpha, 0.04, accuracy: 1e-15)
    XCTAssertEqual(policy.nextStep(after: 10), 25)
    XCTAssertNil(policy.nextStep(after: 100))
  }
}
