import Foundation

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
