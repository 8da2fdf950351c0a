import Foundation
import XCTest

@testable import ReleaseEvaluation

/// Simulated rollouts of one flow, exported as the CSV an analytics pipeline writes and judged
/// through `OutcomesReader` and `Evaluator` as the daily job would: every day new devices
/// arrive, each takes a model by the device rule (the highest version whose independent bucket
/// is below its percentage), converts with its arm's probability and, when revenue is
/// simulated, earns a capped lognormal amount when it converts.
struct RolloutSimulation {
  struct Challenger {
    let version: Int
    let rate: Double
    /// (day, percent) steps, the first on day 0.
    let steps: [(day: Int, percent: Int)]
    /// Mean revenue of a converting device; nil: no revenue column.
    var revenuePerConversion: Double?

    func percent(on day: Int) -> Int { steps.last { $0.day <= day }?.percent ?? 0 }
  }

  static let baselineVersion = 1
  static let start = OutcomeDate(year: 2026, month: 3, day: 1)!
  static let revenueCap = 500.0

  var challengers: [Challenger]
  /// New devices a day across the flow.
  var devicesPerDay: Int
  var days: Int
  var baselineRate = 0.05
  var baselineRevenuePerConversion: Double?
  /// Whether the export has `splitStart` (else its counts restart at each split).
  var splitStartColumn = true
  /// Whether the counts restart at each split, as the export rule asks; false: an export
  /// without `splitStart` that breaks the rule, counting on from its first day.
  var restartsCounts = true

  /// The days on which any offer changed: the strata.
  var changeDays: [Int] { Array(Set(challengers.flatMap { $0.steps.map(\.day) })).sorted() }

  /// Each arm's share of the flow's devices on `day`, by the device rule: a version takes the
  /// devices in its bucket that no higher version took.
  func shares(on day: Int) -> [Int: Double] {
    var remaining = 1.0
    var shares: [Int: Double] = [:]
    for challenger in challengers.sorted(by: { $0.version > $1.version }) {
      let share = remaining * Double(challenger.percent(on: day)) / 100
      shares[challenger.version] = share
      remaining -= share
    }
    shares[Self.baselineVersion] = remaining
    return shares
  }

  /// The challenges the judge is given: each challenger's split periods, its share of itself
  /// and the baseline in each.
  var challenges: [Challenge] {
    challengers.map { challenger in
      let periods = changeDays.map { day -> SplitPeriod in
        let shares = shares(on: day)
        let own = shares[challenger.version] ?? 0
        let total = own + (shares[Self.baselineVersion] ?? 0)
        return SplitPeriod(since: Self.start.adding(days: day), share: total > 0 ? own / total : 0)
      }
      return Challenge(
        customer: "acme", flow: "checkout", challenger: challenger.version, baseline: Self.baselineVersion,
        challengerPercent: Double(challenger.percent(on: days - 1)), periods: periods)
    }
  }

  /// The export of the whole simulation: cumulative rows per date, version and split.
  func export(random: inout SplitMix64) -> String {
    let revenue = baselineRevenuePerConversion != nil
    var lines = [
      "date,customer,flow,modelVersion,devices,conversions"
        + (splitStartColumn ? ",splitStart" : "") + (revenue ? ",revenue,revenueSquares" : "")
    ]
    var totals: [Int: (devices: Int, conversions: Int, sum: Double, squares: Double)] = [:]
    var splitStart = 0
    for day in 0..<days {
      if changeDays.contains(day) {
        splitStart = day
        if restartsCounts { totals = [:] }
      }
      var left = devicesPerDay
      var leftShare = 1.0
      for (version, share) in shares(on: day).sorted(by: { $0.key > $1.key }) {
        let devices =
          version == Self.baselineVersion ? left : random.binomial(left, min(1, share / leftShare))
        left -= devices
        leftShare -= share
        let arm = arm(version)
        let conversions = random.binomial(devices, arm.rate)
        var total = totals[version] ?? (0, 0, 0, 0)
        total.devices += devices
        total.conversions += conversions
        if let mean = arm.revenue {
          for _ in 0..<conversions {
            let amount = min(Self.revenueCap, random.lognormal(mean: mean, sigma: 1))
            total.sum += amount
            total.squares += amount * amount
          }
        }
        totals[version] = total
        var line =
          "\(Self.start.adding(days: day)),acme,checkout,\(version),\(total.devices),\(total.conversions)"
        if splitStartColumn { line += ",\(Self.start.adding(days: splitStart))" }
        if revenue { line += ",\(total.sum),\(total.squares)" }
        lines.append(line)
      }
    }
    return lines.joined(separator: "\n") + "\n"
  }

  func arm(_ version: Int) -> (rate: Double, revenue: Double?) {
    guard let challenger = challengers.first(where: { $0.version == version }) else {
      return (baselineRate, baselineRevenuePerConversion)
    }
    return (challenger.rate, challenger.revenuePerConversion)
  }

  /// What happened to each challenger over `runs` simulations: its first decision other than
  /// `continue` (what the daily job acts on), and the day (1-based) it came.
  func run(_ runs: Int, seed: UInt64) throws -> [Int: Tally] {
    var random = SplitMix64(seed: seed)
    var tallies: [Int: Tally] = [:]
    let today = Self.start.adding(days: days)
    for _ in 0..<runs {
      let outcomes = try OutcomesReader.read(
        export(random: &random), source: "simulated.csv", known: ["acme": ["checkout"]], today: today)
      for judgement in Evaluator.judge(challenges, outcomes: outcomes) {
        var tally = tallies[judgement.challenger] ?? Tally()
        tally.runs += 1
        if let index = judgement.days.firstIndex(where: { $0.decision != .continue }) {
          tally.decisions[judgement.days[index].decision, default: 0] += 1
          tally.decisionDays[judgement.days[index].decision, default: []].append(index + 1)
        }
        tallies[judgement.challenger] = tally
      }
    }
    return tallies
  }
}

/// Decisions over many simulated rollouts.
struct Tally {
  var runs = 0
  var decisions: [Decision: Int] = [:]
  var decisionDays: [Decision: [Int]] = [:]

  func count(_ decision: Decision) -> Int { decisions[decision, default: 0] }
  func share(_ decision: Decision) -> Double { Double(count(decision)) / Double(max(runs, 1)) }
  func median(_ decision: Decision) -> Int? {
    guard let days = decisionDays[decision], !days.isEmpty else { return nil }
    return days.sorted()[days.count / 2]
  }
  func share(_ decision: Decision, within days: Int) -> Double {
    Double(decisionDays[decision, default: []].filter { $0 <= days }.count) / Double(max(runs, 1))
  }

  /// The one-sided 95 % Clopper–Pearson upper bound of the rate of `decision`.
  func upperBound(_ decision: Decision) -> Double { ClopperPearson.upper(count(decision), of: runs) }
  /// The one-sided 95 % Clopper–Pearson lower bound of the rate of `decision` (within `days`).
  func lowerBound(_ decision: Decision, within days: Int = .max) -> Double {
    ClopperPearson.lower(decisionDays[decision, default: []].filter { $0 <= days }.count, of: runs)
  }
}

/// Exact binomial confidence bounds, one-sided at 95 %, by bisection on the binomial tail.
enum ClopperPearson {
  static func upper(_ successes: Int, of trials: Int, confidence: Double = 0.95) -> Double {
    guard successes < trials else { return 1 }
    // The p at which P(X ≤ successes) = 1 − confidence.
    return bisect { cdf(successes, trials, $0) > 1 - confidence }
  }

  static func lower(_ successes: Int, of trials: Int, confidence: Double = 0.95) -> Double {
    guard successes > 0 else { return 0 }
    // The p at which P(X ≥ successes) = 1 − confidence.
    return bisect { 1 - cdf(successes - 1, trials, $0) < 1 - confidence }
  }

  /// The boundary of a predicate true below it and false above.
  private static func bisect(_ below: (Double) -> Bool) -> Double {
    var (low, high) = (0.0, 1.0)
    for _ in 0..<60 {
      let middle = (low + high) / 2
      if below(middle) { low = middle } else { high = middle }
    }
    return (low + high) / 2
  }

  /// P(X ≤ k) for X ~ Binomial(n, p), summed in log space.
  static func cdf(_ k: Int, _ n: Int, _ p: Double) -> Double {
    guard p > 0 else { return 1 }
    guard p < 1 else { return k >= n ? 1 : 0 }
    var total = 0.0
    for i in 0...k {
      let logChoose: Double = lgamma(Double(n + 1)) - lgamma(Double(i + 1)) - lgamma(Double(n - i + 1))
      let logPowers: Double = Double(i) * log(p) + Double(n - i) * log(1 - p)
      total += exp(logChoose + logPowers)
    }
    return min(1, total)
  }
}

extension SplitMix64 {
  /// A lognormal draw with the given mean and log-standard deviation `sigma`.
  mutating func lognormal(mean: Double, sigma: Double) -> Double {
    exp(log(mean) - sigma * sigma / 2 + sigma * normal())
  }
}
