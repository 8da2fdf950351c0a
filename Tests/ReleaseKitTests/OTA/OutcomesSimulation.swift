import Foundation
import ReleaseEvaluation

/// Outcome exports made the way an analytics pipeline would see a rollout: every day
/// `devicesPerDay` new devices, each on the challenger with probability `challengerShare`, each
/// converting (at most once) with its arm's probability; one row per day and arm with the
/// counts cumulative since `start`. Seeded, so every run makes the same file; nothing in it
/// comes from the code under test.
struct OutcomesSimulation {
  var customer = "acme"
  var flow = "onboarding_upsell"
  var challenger = 74
  var baseline = 73
  var challengerRate: Double
  var baselineRate = 0.05
  var challengerShare = 0.10
  var devicesPerDay = 20_000
  var days = 14
  var start: OutcomeDate
  var seed: UInt64 = 1

  /// Rows of another model version (devices still on an older download), which a judgement
  /// ignores and counts.
  var otherVersion: Int? = nil

  /// The CSV, header first, rows in date order.
  func csv() -> String {
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
