import Foundation
import XCTest

@testable import ReleaseEvaluation

final class EvaluatorTests: XCTestCase {
  let start = OutcomeDate("2026-05-01")!
  let today = OutcomeDate("2026-06-30")!

  /// A CSV of cumulative rows: per day (challenger devices, conversions, baseline devices,
  /// conversions) added to the totals; model 7 is the challenger, 6 the baseline.
  func csv(_ days: [(Int, Int, Int, Int)], extraRows: [String] = []) -> String {
    var lines = ["date,customer,flow,modelVersion,devices,conversions"]
    var totals = (0, 0, 0, 0)
    for (index, day) in days.enumerated() {
      totals = (totals.0 + day.0, totals.1 + day.1, totals.2 + day.2, totals.3 + day.3)
      let date = start.adding(days: index)
      if day.0 > 0 || totals.0 > 0 { lines.append("\(date),acme,checkout,7,\(totals.0),\(totals.1)") }
      if day.2 > 0 || totals.2 > 0 { lines.append("\(date),acme,checkout,6,\(totals.2),\(totals.3)") }
    }
    return (lines + extraRows).joined(separator: "\n") + "\n"
  }

  func judge(_ text: String, percent: Double = 10, policy: EvaluationPolicy = .standard) throws -> Judgement {
    let outcomes = try OutcomesReader.read(
      text, source: "outcomes.csv", known: ["acme": ["checkout", "search"]], today: today)
    return Evaluator.judge(
      Challenge(
        customer: "acme", flow: "checkout", challenger: 7, baseline: 6, challengerPercent: percent,
        policy: policy),
      outcomes: outcomes)
  }

  func testClearlyWorseChallengerIsRolledBackOnTheFirstDayWithEnoughEvidence() throws {
    // 3 % against 5 %: decisive from day 2, when both arms have 100 conversions.
    let days = Array(repeating: (2_000, 60, 18_000, 900), count: 6)
    let judgement = try judge(csv(days))
    XCTAssertEqual(judgement.decision, .rollback)
    XCTAssertEqual(judgement.days.map(\.decision).first, .continue, "day 1 has 60 challenger conversions")
    XCTAssertEqual(judgement.decidedOn, judgement.days.first { $0.decision == .rollback }?.date)
    XCTAssertEqual(judgement.decidedOn, start.adding(days: 1))
    let difference = try XCTUnwrap(judgement.difference)
    XCTAssertEqual(difference.estimate, -0.02, accuracy: 1e-12)
    XCTAssertLessThan(difference.high, 0)
    let relative = try XCTUnwrap(judgement.relative)
    XCTAssertEqual(relative.estimate, -0.4, accuracy: 1e-12)
    XCTAssertLessThan(relative.high, 0)
    XCTAssertNil(judgement.devicesNeeded)
    XCTAssertFalse(judgement.sampleRatioMismatch)
  }

  func testMinimumEvidenceRuleHoldsBackADecision() throws {
    // The same clear difference, but only 60 challenger conversions: never below 100.
    let days = [(2_000, 60, 18_000, 900)]
    let judgement = try judge(csv(days))
    XCTAssertEqual(judgement.decision, .continue)
    XCTAssertLessThan(try XCTUnwrap(judgement.difference).high, 0, "the interval alone would roll back")
    XCTAssertNil(judgement.decidedOn)
    guard case .about(let devices)? = judgement.devicesNeeded else {
      return XCTFail("expected an estimate, got \(String(describing: judgement.devicesNeeded))")
    }
    // 100 conversions at 3 % need about 3,334 challenger devices: two thirds more of both arms.
    XCTAssertEqual(Double(devices), 20_000 * (100.0 / 60 - 1), accuracy: 2)

    let lenient = try judge(csv(days), policy: EvaluationPolicy(minimumConversions: 50))
    XCTAssertEqual(lenient.decision, .rollback)
    XCTAssertEqual(lenient.decidedOn, start)
  }

  func testBetterChallengerIsPromotedAndDecidedOnIsTheFirstPromotingDay() throws {
    let days = Array(repeating: (2_000, 140, 18_000, 900), count: 5)
    let judgement = try judge(csv(days))
    XCTAssertEqual(judgement.decision, .promote)
    let first = try XCTUnwrap(judgement.days.firstIndex { $0.decision == .promote })
    XCTAssertEqual(judgement.decidedOn, judgement.days[first].date)
    XCTAssertTrue(judgement.days[..<first].allSatisfy { $0.decision == .continue })
    XCTAssertGreaterThan(try XCTUnwrap(judgement.difference).low, -0.02 * 0.05)
  }

  func testEqualArmsContinueWithAnEstimateOrNoneExpected() throws {
    let judgement = try judge(csv(Array(repeating: (2_000, 100, 18_000, 900), count: 3)))
    XCTAssertEqual(judgement.decision, .continue)
    XCTAssertNil(judgement.decidedOn)
    XCTAssertEqual(judgement.devicesNeeded, .noneExpected, "a difference of 0 must shrink below 2 % of 5 %")
    let slightlyBetter = try judge(csv(Array(repeating: (2_000, 110, 18_000, 900), count: 3)))
    guard case .about(let devices)? = slightlyBetter.devicesNeeded else {
      return XCTFail("expected an estimate, got \(String(describing: slightlyBetter.devicesNeeded))")
    }
    XCTAssertGreaterThan(devices, 0)
  }

  func testSampleRatioMismatchIsInvalidAndNeverActedOn() throws {
    // 14 % of the devices on a 10 % challenger, which is also clearly worse.
    let days = Array(repeating: (2_800, 80, 17_200, 860), count: 5)
    let judgement = try judge(csv(days))
    XCTAssertEqual(judgement.decision, .invalid)
    XCTAssertTrue(judgement.sampleRatioMismatch)
    XCTAssertNil(judgement.decidedOn)
    XCTAssertTrue(judgement.days.allSatisfy { $0.decision == .invalid })
    guard case .sampleRatioMismatch(let share, let expected, let pValue)? = judgement.invalidReason else {
      return XCTFail("\(String(describing: judgement.invalidReason))")
    }
    XCTAssertEqual(share, 0.14, accuracy: 1e-9)
    XCTAssertEqual(expected, 0.1)
    XCTAssertLessThan(pValue, 0.001)
    XCTAssertTrue(judgement.jsonLine().contains("\"srm\":true"))
    // The same counts judged against the right percentage are fine.
    XCTAssertEqual(try judge(csv(days), percent: 14).decision, .rollback)
  }

  func testNoBaselineRowsIsInvalid() throws {
    let judgement = try judge(csv(Array(repeating: (2_000, 60, 0, 0), count: 3)))
    XCTAssertEqual(judgement.decision, .invalid)
    XCTAssertEqual(judgement.invalidReason, .noBaselineRows)
    XCTAssertNil(judgement.difference)
    XCTAssertFalse(judgement.sampleRatioMismatch)
    let empty = try judge("date,customer,flow,modelVersion,devices,conversions\n")
    XCTAssertEqual(empty.decision, .invalid)
    XCTAssertEqual(empty.invalidReason, .noBaselineRows)
    XCTAssertTrue(empty.jsonLine().contains("\"difference\":{\"estimate\":null,\"high\":null,\"low\":null}"))
  }

  func testOtherVersionsAreIgnoredAndCountedAndSinceCutsEarlierRows() throws {
    let days = Array(repeating: (2_000, 60, 18_000, 900), count: 4)
    let text = csv(days, extraRows: ["2026-05-02,acme,checkout,5,10,1", "2026-05-02,acme,search,5,10,1"])
    let judgement = try judge(text)
    XCTAssertEqual(judgement.ignoredRows, 1)
    let outcomes = try OutcomesReader.read(
      text, source: "o.csv", known: ["acme": ["checkout", "search"]], today: today)
    let since = Evaluator.judge(
      Challenge(
        customer: "acme", flow: "checkout", challenger: 7, baseline: 6, challengerPercent: 10,
        since: start.adding(days: 2)),
      outcomes: outcomes)
    XCTAssertEqual(since.days.map(\.date), [start.adding(days: 2), start.adding(days: 3)])
    XCTAssertEqual(since.ignoredRows, 0)
  }

  func testArmWithoutRowOnADateKeepsItsCumulativeCounts() throws {
    let text = """
      date,customer,flow,modelVersion,devices,conversions
      2026-05-01,acme,checkout,6,18000,900
      2026-05-01,acme,checkout,7,2000,100
      2026-05-02,acme,checkout,6,36000,1800
      """
    let judgement = try judge(text)
    XCTAssertEqual(judgement.days.count, 2)
    XCTAssertEqual(judgement.challengerArm, ArmCounts(devices: 2_000, conversions: 100))
    XCTAssertEqual(judgement.baselineArm, ArmCounts(devices: 36_000, conversions: 1_800))
  }

  func testJSONLineHasExactlyTheIssuesFields() throws {
    let judgement = try judge(csv(Array(repeating: (2_000, 60, 18_000, 900), count: 3)))
    let line = judgement.jsonLine()
    XCTAssertFalse(line.contains("\n"))
    let object = try XCTUnwrap(JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any])
    XCTAssertEqual(
      Set(object.keys),
      [
        "customer", "flow", "challenger", "baseline", "decision", "decidedOn", "arms", "difference",
        "relative",
        "srm", "ignoredRows",
      ])
    XCTAssertEqual(object["decision"] as? String, "rollback")
    XCTAssertEqual(object["decidedOn"] as? String, "2026-05-02")
    XCTAssertEqual(object["challenger"] as? Int, 7)
    let arms = try XCTUnwrap(object["arms"] as? [String: [String: Any]])
    XCTAssertEqual(Set(arms.keys), ["6", "7"])
    XCTAssertEqual(arms["7"]?["devices"] as? Int, 6_000)
    XCTAssertEqual(arms["7"]?["conversions"] as? Int, 180)
    XCTAssertEqual(try XCTUnwrap(arms["7"]?["rate"] as? Double), 0.03, accuracy: 1e-12)
    let difference = try XCTUnwrap(object["difference"] as? [String: Double])
    XCTAssertEqual(Set(difference.keys), ["estimate", "low", "high"])
    XCTAssertEqual(try XCTUnwrap(difference["estimate"]), -0.02, accuracy: 1e-12)
    XCTAssertEqual(
      Set(try XCTUnwrap(object["relative"] as? [String: Double]).keys), ["estimate", "low", "high"])

    let pending = try judge(csv([(2_000, 60, 18_000, 900)]))
    XCTAssertTrue(pending.jsonLine().contains("\"decidedOn\":null"), pending.jsonLine())
  }

  func testIntervalFormulaAndChiSquare() {
    // θ̂ ± √(V(V+τ²)/τ² · (log((V+τ²)/V) − 2 log α)) with V = τ² = 1e-4, α = 0.05.
    let half = AlwaysValidInterval.halfWidth(variance: 1e-4, mixtureVariance: 1e-4, alpha: 0.05)
    XCTAssertEqual(half, (2e-4 * (log(2) - 2 * log(0.05))).squareRoot(), accuracy: 1e-15)
    XCTAssertEqual(half, 0.036564, accuracy: 1e-6)
    // Always wider than the fixed-horizon 1.96 √V.
    for ratio in [0.01, 0.1, 1, 8, 100, 10_000] {
      XCTAssertGreaterThan(
        AlwaysValidInterval.halfWidth(variance: 1e-4, mixtureVariance: ratio * 1e-4, alpha: 0.05), 1.96e-2)
    }
    XCTAssertEqual(AlwaysValidInterval.halfWidth(variance: 0, mixtureVariance: 1, alpha: 0.05), .infinity)
    // The chi-square(1) survival function: 3.841 → 0.05, 10.828 → 0.001, 6.635 → 0.01.
    XCTAssertEqual(SampleRatio.chiSquareSurvival1(3.841_459), 0.05, accuracy: 1e-6)
    XCTAssertEqual(SampleRatio.chiSquareSurvival1(10.827_566), 0.001, accuracy: 1e-7)
    XCTAssertEqual(SampleRatio.chiSquareSurvival1(6.634_897), 0.01, accuracy: 1e-7)
    XCTAssertEqual(SampleRatio.chiSquareSurvival1(0), 1)
    XCTAssertEqual(try XCTUnwrap(SampleRatio.pValue(challenger: 1_000, baseline: 9_000, share: 0.1)), 1)
    XCTAssertNil(SampleRatio.pValue(challenger: 0, baseline: 0, share: 0.1))
  }

  func testPolicyDefaultsAndSchedule() {
    let policy = EvaluationPolicy.standard
    XCTAssertEqual(policy.margin, 0.02)
    XCTAssertEqual(policy.minimumConversions, 100)
    XCTAssertEqual(policy.schedule, [10, 25, 50, 100])
    XCTAssertEqual(policy.nextStep(after: 10), 25)
    XCTAssertEqual(policy.nextStep(after: 30), 50)
    XCTAssertNil(policy.nextStep(after: 100))
  }
}
