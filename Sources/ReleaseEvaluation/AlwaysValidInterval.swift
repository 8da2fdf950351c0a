import Foundation

/// An estimate with its confidence interval.
public struct Interval: Hashable, Sendable {
  public let estimate: Double
  public let low: Double
  public let high: Double

  init(estimate: Double, low: Double, high: Double) {
    self.estimate = estimate
    self.low = low
    self.high = high
  }
}

/// The always-valid confidence interval of the mixture sequential probability ratio test
/// (mSPRT): Johari, Koomen, Pekelis & Walsh, "Always Valid Inference: Continuous Monitoring of
/// A/B Tests", Operations Research 70(3), 2022 (arXiv:1512.04922); the method of Optimizely's
/// Stats Engine.
///
/// For an estimate θ̂ that is asymptotically normal with variance V around the true θ, the
/// mSPRT with a normal mixture N(0, τ²) over θ has the likelihood ratio
/// Λ = √(V/(V+τ²)) · exp(τ²θ̂² / (2V(V+τ²))); it rejects θ = θ₀ once Λ ≥ 1/α, at any time, with
/// probability at most α however often one looks. Inverting it gives the interval
///
///     θ̂ ± √( V(V+τ²)/τ² · (log((V+τ²)/V) − 2 log α) )
///
/// which holds, with probability 1 − α, at every look at once. The running intersection of
/// the intervals over the looks is valid as well (the paper's always-valid interval), so a
/// daily judge keeps it.
///
/// τ is where the mixture puts its weight; the interval is narrowest (≈ 3.0 √V at α = 0.05)
/// when τ² ≈ 8 V, and only slowly wider away from it. The policy ties it to the baseline
/// rate: τ = 0.1 × baseline rate, relative effects of about ±10 %, the size a model change
/// plausibly makes. In the setting (5 % baseline, 2,000 challenger devices a day) that
/// is the best τ around day 8, and a 20 % change is seen in about 3 days. τ tied to the margin
/// (2 % of the rate) would be best only at 25 times the devices, and slower before.
enum AlwaysValidInterval {
  /// The half width of the interval for variance `variance`, mixture variance `mixtureVariance`
  /// and error `alpha`; infinite when either variance is not positive.
  static func halfWidth(variance: Double, mixtureVariance: Double, alpha: Double) -> Double {
    guard variance > 0, mixtureVariance > 0, variance.isFinite else { return .infinity }
    let ratio = (variance + mixtureVariance) / variance
    return (variance * ratio * variance / mixtureVariance * (log(ratio) - 2 * log(alpha))).squareRoot()
  }

  static func interval(estimate: Double, variance: Double, mixtureVariance: Double, alpha: Double) -> Interval
  {
    let half = halfWidth(variance: variance, mixtureVariance: mixtureVariance, alpha: alpha)
    return Interval(estimate: estimate, low: estimate - half, high: estimate + half)
  }
}

/// The chi-square goodness-of-fit test of a two-way split (sample ratio mismatch).
enum SampleRatio {
  /// The p-value of `challenger` of `challenger + baseline` devices against a challenger share
  /// of `share` (0 < share < 1): chi-square with 1 degree of freedom; nil when not testable.
  static func pValue(challenger: Int, baseline: Int, share: Double) -> Double? {
    let total = Double(challenger + baseline)
    guard total > 0, share > 0, share < 1 else { return nil }
    let expectedChallenger = total * share
    let expectedBaseline = total * (1 - share)
    let statistic =
      pow(Double(challenger) - expectedChallenger, 2) / expectedChallenger
      + pow(Double(baseline) - expectedBaseline, 2) / expectedBaseline
    return chiSquareSurvival1(statistic)
  }

  /// P(X > x) for X chi-square with 1 degree of freedom: X = Z², so P(|Z| > √x) = erfc(√(x/2)).
  static func chiSquareSurvival1(_ x: Double) -> Double {
    guard x > 0 else { return 1 }
    return erfc((x / 2).squareRoot())
  }
}
