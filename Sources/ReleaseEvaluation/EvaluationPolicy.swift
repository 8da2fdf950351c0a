/// How a challenger is judged and promoted (`release.config.json`'s `rollouts`, per customer
/// overridable). The defaults are the issue's.
public struct EvaluationPolicy: Hashable, Sendable {
  /// The non-inferiority margin, relative to the baseline's conversion rate: a challenger is
  /// promoted when its rate is surely not below the baseline's by more than this share.
  public var margin: Double
  /// The non-inferiority margin of revenue per device, relative to the baseline's; nil: `margin`.
  public var revenueMargin: Double?
  /// The exposure gate before a promote or rollback by interval: each arm's devices times the
  /// baseline's conversion rate (the conversions the arm would have at the baseline's rate)
  /// reach this. The harm check is not gated.
  public var minimumConversions: Int
  /// The rollout percentages a promoted challenger climbs, one step per run with new evidence.
  public var schedule: [Int]
  /// The confidence of the always-valid intervals (0.95: α = 0.05).
  public var confidence: Double
  /// The standard deviation of the mixture over the true difference, relative to the
  /// baseline's rate (τ = mixtureScale × baseline rate). See `AlwaysValidInterval`.
  public var mixtureScale: Double
  /// The error rate of the sequential sample ratio test: the split is broken once its Bayes
  /// factor reaches 1/threshold.
  public var sampleRatioThreshold: Double
  /// The share of the error budget (1 − confidence) the harm check spends, split among a
  /// flow's challengers; the intervals spend the rest.
  public var harmAlpha: Double

  public init(
    margin: Double = 0.02, minimumConversions: Int = 100, schedule: [Int] = [10, 25, 50, 100],
    confidence: Double = 0.95, mixtureScale: Double = 0.1, sampleRatioThreshold: Double = 0.001,
    harmAlpha: Double = 0.01, revenueMargin: Double? = nil
  ) {
    self.harmAlpha = harmAlpha
    self.revenueMargin = revenueMargin
    self.margin = margin
    self.minimumConversions = minimumConversions
    self.schedule = schedule
    self.confidence = confidence
    self.mixtureScale = mixtureScale
    self.sampleRatioThreshold = sampleRatioThreshold
  }

  /// What the intervals spend, Holm-corrected across a flow's challengers and metrics.
  public var intervalAlpha: Double { max(1e-9, 1 - confidence - harmAlpha) }

  /// The default policy.
  public static let standard = EvaluationPolicy()

  /// The schedule's next percentage above `percent`; nil at or past its last step.
  public func nextStep(after percent: Int) -> Int? { schedule.sorted().first { $0 > percent } }
}
