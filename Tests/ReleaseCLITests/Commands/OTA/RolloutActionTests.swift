import XCTest

@testable import ReleaseCLI
@testable import ReleaseEvaluation
@testable import ReleaseOTA

/// What `ota evaluate --apply` does about a judgement: a rollback at once, a split that lost
/// devices retracted and one that gained them paused, a promote one schedule step up only on
/// outcomes dated after its split began.
final class RolloutActionTests: XCTestCase {
  private let splitBegan = OutcomeDate("2026-11-01")!
  private let policy = EvaluationPolicy(schedule: [5, 20, 60])

  /// An active offer of v74 at `percent`, its split begun on `since`.
  private func offer(percent: Int = 20, since: OutcomeDate?) -> RolloutState.Offer {
    RolloutState.Offer(modelVersion: 74, rolloutPercent: percent, status: .active, salt: "ab", since: since)
  }

  /// A judgement of v74 reaching `decision`, its latest outcomes dated `latest`.
  private func judgement(
    _ decision: Decision, invalidReason: InvalidReason? = nil, latest: OutcomeDate
  ) -> Judgement {
    let day = DayJudgement(
      date: latest, challenger: .zero, baseline: .zero, conversion: nil, revenue: nil, expectedShare: 0.2,
      sampleRatioBayesFactor: 1, harmEvidence: 0, gateOpen: true, decision: decision,
      invalidReason: invalidReason, rolledBackByHarmCheck: false)
    return Judgement(
      customer: "acme", flow: "onboarding_upsell", challenger: 74, baseline: 73, challengerPercent: 20,
      expectedShare: 0.2, policy: policy, decision: decision, decidedOn: nil, invalidReason: invalidReason,
      devicesNeeded: nil, gateOpenedOn: nil, ignoredRows: 0, strata: 1, days: [day])
  }

  private func mismatch(_ direction: SampleRatioDirection) -> InvalidReason {
    .sampleRatioMismatch(challengerShare: 0.1, expectedShare: 0.2, bayesFactor: 5_000, direction: direction)
  }

  private func isNone(_ action: RolloutAction) -> Bool {
    if case .none = action { return true }
    return false
  }

  func testARollbackIsCarriedOutAtOnceAndAContinueChangesNothing() {
    let later = splitBegan.adding(days: 3)
    XCTAssertEqual(
      RolloutAction(judgement(.rollback, latest: later), offer: offer(since: splitBegan)), .rollback)
    XCTAssertTrue(isNone(RolloutAction(judgement(.continue, latest: later), offer: offer(since: splitBegan))))
  }

  func testAnInvalidSplitIsRetractedWhenItLostDevicesPausedWhenItGainedThemElseLeft() {
    let later = splitBegan.adding(days: 3)
    let fewer = judgement(.invalid, invalidReason: mismatch(.fewer), latest: later)
    let more = judgement(.invalid, invalidReason: mismatch(.more), latest: later)
    let noRows = judgement(.invalid, invalidReason: .noBaselineRows, latest: later)

    XCTAssertEqual(RolloutAction(fewer, offer: offer(since: splitBegan)), .rollback)
    XCTAssertEqual(RolloutAction(more, offer: offer(since: splitBegan)), .pause)
    XCTAssertTrue(isNone(RolloutAction(noRows, offer: offer(since: splitBegan))))
  }

  func testAPromoteRaisesToTheScheduleStepAboveItsPercentage() {
    let promoted = judgement(.promote, latest: splitBegan.adding(days: 3))

    XCTAssertEqual(RolloutAction(promoted, offer: offer(percent: 20, since: splitBegan)), .raise(to: 60))
    XCTAssertEqual(RolloutAction(promoted, offer: offer(percent: 10, since: splitBegan)), .raise(to: 20))
    // A split whose start is unknown counts every row.
    XCTAssertEqual(RolloutAction(promoted, offer: offer(percent: 20, since: nil)), .raise(to: 60))
  }

  func testAPromoteWithoutOutcomesAfterItsSplitBeganOrAtTheLastStepIsNotRaised() {
    let sameDay = RolloutAction(judgement(.promote, latest: splitBegan), offer: offer(since: splitBegan))
    guard case .none(let reason) = sameDay else {
      return XCTFail("raised on its split's first day: \(sameDay)")
    }
    XCTAssertTrue(reason.contains(splitBegan.description), reason)

    let atLastStep = RolloutAction(
      judgement(.promote, latest: splitBegan.adding(days: 3)), offer: offer(percent: 60, since: splitBegan))
    guard case .none(let why) = atLastStep else { return XCTFail("raised past the schedule: \(atLastStep)") }
    XCTAssertTrue(why.contains("60%"), why)
  }
}
