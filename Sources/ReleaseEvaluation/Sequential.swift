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
/// daily judge keeps it, from the day the exposure gate opens: before it the normal
/// approximation is poor at small counts, and an early unlucky bound must not be kept.
///
/// The estimate is the relative effect (challenger / baseline − 1), so τ is relative too:
/// τ = 0.1, effects of about ±10 %, the size a model change plausibly makes. The interval is
/// narrowest (≈ 3.0 √V at α = 0.05) when τ² ≈ 8 V, and only slowly wider away from it; at a 5 %
/// baseline and 2,000 challenger devices a day a 20 % change is seen in about 3 days.
enum AlwaysValidInterval {
  /// The half width of the interval for variance `variance`, mixture variance `mixtureVariance`
  /// and error `alpha`; infinite when either variance is not positive.
  static func halfWidth(variance: Double, mixtureVariance: Double, alpha: Double) -> Double {
    guard variance > 0, mixtureVariance > 0, variance.isFinite else { return .infinity }
    let ratio = (variance + mixtureVariance) / variance
    return (variance * ratio * variance / mixtureVariance * (log(ratio) - 2 * log(alpha))).squareRoot()
  }

  /// log Λ of the mSPRT of θ = `null`: ½ log(V/(V+τ²)) + τ²(θ̂ − θ₀)² / (2V(V+τ²)); the
  /// interval at level α excludes θ₀ exactly when Λ ≥ 1/α. 0 (no evidence) when either
  /// variance is not positive.
  static func logLikelihoodRatio(estimate: Double, variance: Double, mixtureVariance: Double, null: Double)
    -> Double
  {
    guard variance > 0, mixtureVariance > 0, variance.isFinite, estimate.isFinite else { return 0 }
    let sum = variance + mixtureVariance
    let distance = estimate - null
    return 0.5 * log(variance / sum) + mixtureVariance * distance * distance / (2 * variance * sum)
  }
}

/// The harm check: a one-sided test that the challenger converts less than the baseline, valid
/// at any sample size and however often it is looked at, spending its own α.
///
/// Given where the conversions of a stratum happened, each is the challenger's with
/// probability π = fρ / (fρ + 1 − f), f the challenger's share of the stratum's devices and
/// ρ = p_challenger / p_baseline. Under "ρ ≥ 1" the likelihood ratio of any ρ' < 1 against
/// ρ = 1 is a nonnegative supermartingale in the sequence of conversions (and the product over
/// strata, which follow one another, as well); so is its mixture over ρ' uniform on [0, 1]:
///
///     E = ∫₀¹ Π_s ρ^{x₁ₛ} (1 − fₛ(1 − ρ))^{−(x₁ₛ + x₂ₛ)} dρ
///
/// and by Ville's inequality it ever reaches 1/α with probability at most α. (With equal
/// rates a conversion's arm is hypergeometric rather than binomial, which is less spread, so
/// the test is conservative.) No minimum of evidence applies: a challenger that converts
/// nobody is rolled back within a day or two at a few hundred devices a day.
enum HarmTest {
  struct Stratum {
    let challengerConversions: Int
    let baselineConversions: Int
    /// The challenger's share of the stratum's devices (0 < share < 1).
    let challengerShare: Double
  }

  /// The points of the midpoint rule over ρ.
  static let gridPoints = 500

  /// An upper bound of log E, cheap: the sum over strata of each one's largest log likelihood
  /// ratio (x·KL(π̂ ‖ f) when π̂ = x₁/x is below f, else 0), which no mixture exceeds.
  static func logEvidenceBound(_ strata: [Stratum]) -> Double {
    var bound = 0.0
    for stratum in strata where stratum.challengerShare > 0 && stratum.challengerShare < 1 {
      let total = Double(stratum.challengerConversions + stratum.baselineConversions)
      guard total > 0 else { continue }
      let share = Double(stratum.challengerConversions) / total
      let f = stratum.challengerShare
      guard share < f else { continue }
      let challengerTerm = share > 0 ? share * log(share / f) : 0
      bound += total * (challengerTerm + (1 - share) * log((1 - share) / (1 - f)))
    }
    return bound
  }

  /// log E; 0 without conversions.
  static func logEvidence(_ strata: [Stratum]) -> Double {
    let strata = strata.filter {
      $0.challengerShare > 0 && $0.challengerShare < 1
        && $0.challengerConversions + $0.baselineConversions > 0
    }
    guard !strata.isEmpty else { return 0 }
    var terms: [Double] = []
    terms.reserveCapacity(gridPoints)
    for point in 0..<gridPoints {
      let rho = (Double(point) + 0.5) / Double(gridPoints)
      var value = 0.0
      for stratum in strata {
        let total = Double(stratum.challengerConversions + stratum.baselineConversions)
        value += Double(stratum.challengerConversions) * log(rho)
        value -= total * log(1 - stratum.challengerShare * (1 - rho))
      }
      terms.append(value)
    }
    let largest = terms.max() ?? 0
    let sum = terms.reduce(0) { $0 + exp($1 - largest) }
    return largest + log(sum / Double(gridPoints))
  }
}

/// The sequential sample ratio test: the Bayes factor of a beta-binomial mixture over the
/// challenger's share against its expected share, per stratum, multiplied over strata
/// (Lindon & Malek, "Anytime-Valid Inference for Multinomial Count Data", NeurIPS 2022, for two
/// arms). Under the expected split it is a nonnegative martingale in the sequence of devices,
/// so however often it is looked at it ever reaches 1/threshold with probability at most the
/// threshold. The prior is Beta(c·f, c·(1 − f)) around the expected share f, with c = 1,000:
/// weight on shares a few percent (relative) off f, where a broken split or vanishing devices
/// put it.
enum SampleRatio {
  static let concentration = 1_000.0

  /// log of the Bayes factor for `challenger` and `baseline` devices against the expected
  /// challenger share `share` (0 < share < 1); 0 otherwise.
  static func logBayesFactor(challenger: Int, baseline: Int, share: Double) -> Double {
    guard share > 0, share < 1, challenger >= 0, baseline >= 0 else { return 0 }
    let (a, b) = (concentration * share, concentration * (1 - share))
    let (n1, n2) = (Double(challenger), Double(baseline))
    return logBeta(a + n1, b + n2) - logBeta(a, b) - n1 * log(share) - n2 * log(1 - share)
  }

  static func logBeta(_ x: Double, _ y: Double) -> Double { lgamma(x) + lgamma(y) - lgamma(x + y) }
}
