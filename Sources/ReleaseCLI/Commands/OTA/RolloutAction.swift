import ReleaseEvaluation
import ReleaseOTA

/// What `release ota evaluate --apply` does about one judgement of an offer.
enum RolloutAction: Equatable {
  case rollback
  case raise(to: Int)
  /// No new device takes it; a person looks (more devices than its split gives).
  case pause
  /// Nothing, and why.
  case none(String)

  /// A rollback at once; a promote one schedule step up, only when the outcomes hold a date
  /// after the offer's `since` (the split's first date): a raise sets `since` to today, so the
  /// same export, or one of the same day, never raises twice.
  init(_ judgement: Judgement, offer: RolloutState.Offer) {
    switch judgement.decision {
    case .rollback: self = .rollback
    case .continue: self = .none("not enough evidence yet")
    case .invalid:
      // Devices vanishing from its arm look exactly like a challenger that crashes apps.
      switch judgement.sampleRatioDirection {
      case .fewer?: self = .rollback
      case .more?: self = .pause
      case nil: self = .none("the data cannot be judged")
      }
    case .promote:
      if let since = offer.since, let latest = judgement.days.last?.date, latest <= since {
        self = .none("no outcomes dated after its split began on \(since)")
      } else if let next = judgement.policy.nextStep(after: offer.rolloutPercent) {
        self = .raise(to: next)
      } else {
        self = .none("already at the schedule's last step (\(offer.rolloutPercent)%)")
      }
    }
  }
}
