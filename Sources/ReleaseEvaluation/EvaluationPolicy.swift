/// How a challenger is judged and promoted (`release.config.json`'s `rollouts`, per customer
/// overridable). The defaults are the issue's.
public struct EvaluationPolicy: Hashable, Sendable {
  /// The non-inferiority margin, relative to the baseline's conversion rate: a challenger is
  /// promoted when its rate is surely not below the baseline's by more than this share.
  public var margin: Double
  /// The minimum evidence before any promote or rollback: conversions in each arm.
  public var minimumConversions: Int
  /// The rollout percentages a promoted challenger climbs, one step per run with new evidence.
  public var schedule: [Int]
  /// The confidence of the always-valid intervals (0.95: α = 0.05).
  public var confidence: Double
  /// The standard deviation of the mixture over the true difference, relative to the
  /// baseline's rate (τ = mixtureScale × baseline rate). See `AlwaysValidInterval`.
  public var mixtureScale: Double
  /// The p-value of the sample-ratio chi-square test below which the split is broken.
  public var sampleRatioThreshold: Double

  public init(
    margin: Double = 0.02, minimumConversions: Int = 100, schedule: [Int] = [10, 25, 50, 100],
    confidence: Double = 0.95, mixtureScale: Double = 0.1, sampleRatioThreshold: Double = 0.001
  ) {
    self.margin = margin
    self.minimumConversions = minimumConversions
    self.schedule = schedule
    self.confidence = confidence
    self.mixtureScale = mixtureScale
    self.sampleRatioThreshold = sampleRatioThreshold
  }

  /// The default policy.
  public static let standard = EvaluationPolicy()

  /// The schedule's next percentage above `percent`; nil at or past its last step.
  public func nextStep(after percent: Int) -> Int? { schedule.sorted().first { $0 > percent } }
}
