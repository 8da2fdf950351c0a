import Foundation
import ReleaseEvaluation

/// Outcome exports made the way an analytics pipeline would see a rollout: every day
/// `devicesPerDay` new devices, each on the challenger with probability `challengerShare`, each
/// converting (at most once) with its arm's probability; one row per day and arm with the
/// counts cumulative since `start`. Seeded, so every run makes the same file; nothing in it
/// comes from the code under test.
package struct OutcomesSimulation {
  package var customer = "acme"
  package var flow = "onboarding_upsell"
  package var challenger = 74
  package var baseline = 73
  package var challengerRate: Double
  package var baselineRate = 0.05
  package var challengerShare = 0.10
  package var devicesPerDay = 20_000
  package var days = 14
  package var start: OutcomeDate
  package var seed: UInt64 = 1

  /// Rows of another model version (devices still on an older download), which a judgement
  /// ignores and counts.
  package var otherVersion: Int? = nil

  package init(
    customer: String = "acme", flow: String = "onboarding_upsell", challenger: Int = 74, baseline: Int = 73,
    challengerRate: Double, baselineRate: Double = 0.05, challengerShare: Double = 0.10,
    devicesPerDay: Int = 20_000,
    days: Int = 14, start: OutcomeDate, seed: UInt64 = 1, otherVersion: Int? = nil
  ) {
    self.customer = customer
    self.flow = flow
    self.challenger = challenger
    self.baseline = baseline
    self.challengerRate = challengerRate
    self.baselineRate = baselineRate
    self.challengerShare = challengerShare
    self.devicesPerDay = devicesPerDay
    self.days = days
    self.start = start
    self.seed = seed
    self.otherVersion = otherVersion
  }

  /// The CSV, header first, rows in date order.
  package func csv() -> String {
    var random = SplitMix64(seed: seed)
    var lines = ["date,customer,flow,modelVersion,devices,conversions"]
    var challengerCounts = (devices: 0, conversions: 0)
    var baselineCounts = (devices: 0, conversions: 0)
    for day in 0..<days {
      for _ in 0..<devicesPerDay {
        let onChallenger = Double.random(in: 0..<1, using: &random) < challengerShare
        let converted =
          Double.random(in: 0..<1, using: &random) < (onChallenger ? challengerRate : baselineRate)
        if onChallenger {
          challengerCounts.devices += 1
          challengerCounts.conversions += converted ? 1 : 0
        } else {
          baselineCounts.devices += 1
          baselineCounts.conversions += converted ? 1 : 0
        }
      }
      let date = start.adding(days: day)
      lines.append(
        "\(date),\(customer),\(flow),\(baseline),\(baselineCounts.devices),\(baselineCounts.conversions)")
      lines.append(
        "\(date),\(customer),\(flow),\(challenger),\(challengerCounts.devices),\(challengerCounts.conversions)"
      )
      if let otherVersion {
        lines.append("\(date),\(customer),\(flow),\(otherVersion),\(10 * (day + 1)),\(day)")
      }
    }
    return lines.joined(separator: "\n") + "\n"
  }
}
