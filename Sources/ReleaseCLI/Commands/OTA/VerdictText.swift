import Foundation
import ReleaseEvaluation

/// How `release ota evaluate` prints a verdict for a person: a table per challenger, its
/// decision worded as the report words it.
enum VerdictText {
  /// The human table of one judgement.
  static func table(_ judgement: Judgement, _ candidate: EvaluationCandidate) -> [String] {
    let splits = judgement.strata == 1 ? "1 split" : "\(judgement.strata) splits"
    let since =
      candidate.challenge.since.map { "current split from \($0), evidence of \(splits)" }
      ?? "all rows (the split's start is unknown)"
    var lines = [
      "\(judgement.customer) \(judgement.flow): v\(judgement.challenger) (\(candidate.offer.rolloutPercent)% of devices) against v\(judgement.baseline) (\(candidate.baselineOrigin)), \(since)"
    ]
    lines += arms(judgement)
    lines.append(
      "  conversions  \(EvaluationReport.metricText(judgement.conversion)) (relative, always-valid)")
    if judgement.revenue != nil {
      lines.append("  revenue      \(EvaluationReport.metricText(judgement.revenue)) (per device, relative)")
    }
    lines.append("  gate opened  \(judgement.gateOpenedOn?.description ?? "not yet")")
    lines.append("  decision     \(decision(judgement))")
    if judgement.reasonCode == "harm" {
      lines.append("  by           the harm check: surely fewer conversions than the baseline")
    }
    lines.append("  decided on   \(judgement.decidedOn?.description ?? "-")")
    lines.append(
      "  expected     \(fixed(judgement.expectedShare * 100, 1))% of the two arms' devices in the current split"
    )
    lines.append("  ignored      \(judgement.ignoredRows) rows of other model versions or earlier splits")
    return lines
  }

  /// The decision as the report words it; a rollback is one word here, its cause on a line of
  /// its own.
  private static func decision(_ judgement: Judgement) -> String {
    judgement.decision == .rollback ? "rollback" : EvaluationReport.decisionText(judgement)
  }

  /// The arms' devices, conversions and rates, under a heading, in aligned columns.
  private static func arms(_ judgement: Judgement) -> [String] {
    let rows = [
      ["ARM", "MODEL", "DEVICES", "CONVERSIONS", "RATE"],
      [
        "challenger", "v\(judgement.challenger)", grouped(judgement.challengerArm.devices),
        grouped(judgement.challengerArm.conversions), percent(judgement.challengerArm.rate),
      ],
      [
        "baseline", "v\(judgement.baseline)", grouped(judgement.baselineArm.devices),
        grouped(judgement.baselineArm.conversions), percent(judgement.baselineArm.rate),
      ],
    ]
    let widths = (0..<rows[0].count).map { column in rows.map { $0[column].count }.max() ?? 0 }
    return rows.map { row in
      let cells = zip(row, widths).map { $0.padding(toLength: $1, withPad: " ", startingAt: 0) }
      return "  " + cells.joined(separator: "  ").trimmingCharacters(in: .whitespaces)
    }
  }

  private static func percent(_ rate: Double) -> String { fixed(rate * 100, 2) + " %" }

  private static func fixed(_ value: Double, _ decimals: Int) -> String {
    EvaluationReport.format(value, decimals)
  }

  private static func grouped(_ value: Int) -> String { EvaluationReport.grouped(value) }
}
