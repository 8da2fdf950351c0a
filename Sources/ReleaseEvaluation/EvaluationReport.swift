import Foundation
import ReleaseSystem

/// What a person looks at: per judged challenger an SVG chart and a Markdown table row, and one
/// self-contained HTML page of them all.
/// Every piece of text from the input (customer ids, flow names) is escaped for its format.
public enum EvaluationReport {
  /// A file name for a judgement's chart, from characters safe in any file system.
  public static func chartFileName(_ judgement: Judgement) -> String {
    let name = "\(judgement.customer)-\(judgement.flow)-\(judgement.challenger)-vs-\(judgement.baseline)"
    let safe = name.unicodeScalars.map { scalar -> String in
      CharacterSet.alphanumerics.contains(scalar) && scalar.isASCII || "-_.".unicodeScalars.contains(scalar)
        ? String(scalar) : "_"
    }
    return safe.joined() + ".svg"
  }

  /// The Markdown summary: a heading and one table row per judgement.
  public static func markdown(_ judgements: [Judgement]) -> String {
    var lines = [
      "## Challengers judged by their outcomes",
      "",
      "| Customer | Flow | Challenger | Baseline | Share | Decision | Decided on | Challenger devices (rate) "
        + "| Baseline devices (rate) | Conversions, relative (always-valid) | Revenue per device, relative "
        + "| Gate opened | Sample ratio | Ignored rows |",
      "|---|---|--:|--:|--:|---|---|--:|--:|---|---|---|---|--:|",
    ]
    for judgement in judgements {
      let cells = [
        markdownEscaped(judgement.customer),
        markdownEscaped(judgement.flow),
        String(judgement.challenger),
        String(judgement.baseline),
        "\(percentText(judgement.challengerPercent)) %",
        "**\(decisionText(judgement))**",
        judgement.decidedOn?.description ?? "–",
        arm(judgement.challengerArm),
        arm(judgement.baselineArm),
        metricText(judgement.conversion),
        metricText(judgement.revenue),
        judgement.gateOpenedOn?.description ?? "not yet",
        srmText(judgement),
        String(judgement.ignoredRows),
      ]
      lines.append("| " + cells.joined(separator: " | ") + " |")
    }
    return lines.joined(separator: "\n") + "\n"
  }

  /// The decision, with the days a `continue` needs or why the data is `invalid`.
  public static func decisionText(_ judgement: Judgement) -> String {
    switch (judgement.decision, judgement.devicesNeeded, judgement.invalidReason) {
    case (.continue, .about(_, let days?)?, _):
      return "continue (about \(grouped(days)) more days at current traffic)"
    case (.continue, .about(let devices, nil)?, _): return "continue (about \(grouped(devices)) more devices)"
    case (.continue, .noneExpected?, _): return "continue (no decision expected: inside the margin)"
    case (.rollback, _, _) where judgement.days.last?.rolledBackByHarmCheck == true:
      return "rollback (harm check: surely fewer conversions)"
    case (.invalid, _, let reason?): return "invalid (\(invalidText(reason)))"
    default: return judgement.decision.rawValue
    }
  }

  /// Why a judgement is invalid, in a few words.
  public static func invalidText(_ reason: InvalidReason) -> String {
    switch reason {
    case .noBaselineRows: return "no baseline rows"
    case .noChallengerRows: return "no challenger rows"
    case .sampleRatioMismatch(let share, let expected, _, let direction):
      return
        "sample ratio mismatch: \(direction == .fewer ? "fewer" : "more") challenger devices than expected, "
        + "\(format(share * 100, 1)) % of \(format(expected * 100, 1)) %"
    case .badSeries(let problems):
      return "inconsistent rows: " + problems.prefix(3).map(\.description).joined(separator: "; ")
        + (problems.count > 3 ? "; and \(problems.count - 3) more" : "")
    case .emptyIntersection(let metric): return "the \(metric.rawValue) intervals contradict each other"
    case .exportNotRestarted(let splitStart):
      return
        "the export did not restart its counts at the split of \(splitStart): an export without a splitStart "
        + "column must restart its counts at each split; fix the export (or add splitStart), nothing retracted"
    }
  }

  static func srmText(_ judgement: Judgement) -> String {
    let share = judgement.challengerArm.devices * 100
    let total = judgement.challengerArm.devices + judgement.baselineArm.devices
    guard total > 0 else { return "–" }
    let observed = Double(share) / Double(total)
    let verdict = judgement.sampleRatioMismatch ? "mismatch" : "ok"
    let expected = judgement.days.last?.expectedShare ?? judgement.expectedShare
    return "\(verdict): \(format(observed, 1)) % of \(format(expected * 100, 1)) % expected"
  }

  private static func arm(_ counts: ArmCounts) -> String {
    "\(grouped(counts.devices)) (\(format(counts.rate * 100, 2)) %)"
  }

  public static func metricText(_ metric: MetricJudgement?) -> String {
    guard let metric else { return "–" }
    var text = interval(metric.interval)
    if metric.emptyIntersection {
      text += " (empty intersection)"
    } else if metric.estimateOutside {
      text += " (estimate outside its interval)"
    }
    return text
  }

  static func interval(_ interval: Interval) -> String {
    func value(_ x: Double) -> String { x.isFinite ? signed(x * 100, 1) : (x > 0 ? "+∞" : "−∞") }
    return "\(value(interval.estimate)) % [\(value(interval.low)), \(value(interval.high))]"
  }

  /// Escapes CommonMark and table punctuation; line breaks become spaces.
  static func markdownEscaped(_ text: String) -> String {
    var escaped = ""
    for scalar in text.unicodeScalars {
      if scalar.isASCII, "\\`*_{}[]<>()#+-.!|~&\"'=:".unicodeScalars.contains(scalar) {
        escaped += "\\"
        escaped.unicodeScalars.append(scalar)
      } else if scalar.properties.generalCategory == .control
        || scalar.properties.generalCategory == .lineSeparator
        || scalar.properties.generalCategory == .paragraphSeparator
      {
        escaped += " "
      } else {
        escaped.unicodeScalars.append(scalar)
      }
    }
    return escaped
  }

  /// `value` with `decimals` decimals, whatever the locale (the report and `ota evaluate`'s table).
  package static func format(_ value: Double, _ decimals: Int) -> String {
    String(format: "%.\(decimals)f", locale: Locale(identifier: "en_US_POSIX"), value)
  }

  /// A rollout percentage: whole numbers without decimals (10), others with up to two (12.5).
  static func percentText(_ value: Double) -> String {
    var text = format(value, 2)
    while text.hasSuffix("0") { text.removeLast() }
    if text.hasSuffix(".") { text.removeLast() }
    return text
  }

  static func signed(_ value: Double, _ decimals: Int) -> String {
    let text = format(abs(value), decimals)
    return value < 0 && text.contains(where: { $0 != "0" && $0 != "." }) ? "−" + text : "+" + text
  }

  /// Thousands separated by commas.
  package static func grouped(_ value: Int) -> String {
    let digits = String(value.magnitude)
    var result = ""
    for (index, character) in digits.enumerated() {
      if index > 0, (digits.count - index) % 3 == 0 { result += "," }
      result.append(character)
    }
    return (value < 0 ? "-" : "") + result
  }
}

extension EvaluationReport {
  /// One self-contained page (no external requests: styles inline, charts as inline SVG) for
  /// the model team: a row per judged challenger (customer, flow, versions, share, decision,
  /// decided on, relative effects with their intervals, sample ratio, revenue when given),
  /// then each one's chart.
  public static func html(_ judgements: [Judgement]) -> String {
    let headers = [
      "Customer", "Flow", "Challenger", "Baseline", "Share", "Decision", "Decided on",
      "Conversions (relative)",
      "Revenue per device (relative)", "Gate opened", "Sample ratio",
    ]
    var rows: [String] = []
    var charts: [String] = []
    for (index, judgement) in judgements.enumerated() {
      let cells = [
        judgement.customer, judgement.flow, "v\(judgement.challenger)", "v\(judgement.baseline)",
        "\(percentText(judgement.challengerPercent)) %", decisionText(judgement),
        judgement.decidedOn?.description ?? "–", metricText(judgement.conversion),
        metricText(judgement.revenue),
        judgement.gateOpenedOn?.description ?? "not yet", srmText(judgement),
      ]
      rows.append(
        "<tr class=\"\(judgement.decision.rawValue)\">"
          + cells.map { "<td>\(XMLText.escaped($0))</td>" }.joined() + "</tr>")
      var svg = svg(judgement)
      if let start = svg.range(of: "<svg") { svg = String(svg[start.lowerBound...]) }
      charts.append(
        "<section id=\"challenger-\(index + 1)\"><h2>\(XMLText.escaped(chartTitle(judgement)))</h2>\n\(svg)</section>"
      )
    }
    return """
      <!DOCTYPE html>
      <html lang="en"><head><meta charset="utf-8">
      <meta http-equiv="Content-Security-Policy" content="default-src 'none'; style-src 'unsafe-inline'">
      <title>Challengers judged by their outcomes</title>
      <style>
      body { font-family: "DejaVu Sans", Helvetica, Arial, sans-serif; margin: 24px; color: #222; }
      table { border-collapse: collapse; font-size: 13px; } td, th { border: 1px solid #ccc; padding: 4px 8px; }
      th { background: #f3f3f3; text-align: left; } tr.rollback td { background: #fdecea; }
      tr.promote td { background: #e9f7ef; } tr.invalid td { background: #f4ecf7; }
      section { margin-top: 32px; }
      </style></head><body>
      <h1>Challengers judged by their outcomes</h1>
      <table id="judgements"><thead><tr>\(headers.map { "<th>\($0)</th>" }.joined())</tr></thead>
      <tbody>
      \(rows.joined(separator: "\n"))
      </tbody></table>
      \(charts.joined(separator: "\n"))
      </body></html>

      """
  }

  static func chartTitle(_ judgement: Judgement) -> String {
    "\(judgement.customer) / \(judgement.flow): v\(judgement.challenger) vs v\(judgement.baseline)"
  }
}
