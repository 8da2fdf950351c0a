import Foundation

/// What a person looks at: per judged challenger an SVG chart and a Markdown table row.
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
      "| Customer | Flow | Challenger | Baseline | Decision | Decided on | Challenger devices (rate) "
        + "| Baseline devices (rate) | Difference (95 % always-valid) | Relative | Sample ratio | Ignored rows |",
      "|---|---|--:|--:|---|---|--:|--:|---|---|---|--:|",
    ]
    for judgement in judgements {
      let cells = [
        markdownEscaped(judgement.customer),
        markdownEscaped(judgement.flow),
        String(judgement.challenger),
        String(judgement.baseline),
        "**\(decisionText(judgement))**",
        judgement.decidedOn?.description ?? "–",
        arm(judgement.challengerArm),
        arm(judgement.baselineArm),
        judgement.difference.map { interval($0, points: true) } ?? "–",
        judgement.relative.map { interval($0, points: false) } ?? "–",
        srmText(judgement),
        String(judgement.ignoredRows),
      ]
      lines.append("| " + cells.joined(separator: " | ") + " |")
    }
    return lines.joined(separator: "\n") + "\n"
  }

  /// The decision, with the devices a `continue` needs or why the data is `invalid`.
  static func decisionText(_ judgement: Judgement) -> String {
    switch (judgement.decision, judgement.devicesNeeded, judgement.invalidReason) {
    case (.continue, .about(let devices)?, _): return "continue (about \(grouped(devices)) more devices)"
    case (.continue, .noneExpected?, _): return "continue (no decision expected: inside the margin)"
    case (.invalid, _, .noBaselineRows?): return "invalid (no baseline rows)"
    case (.invalid, _, .noChallengerRows?): return "invalid (no challenger rows)"
    case (.invalid, _, .sampleRatioMismatch?): return "invalid (sample ratio mismatch)"
    default: return judgement.decision.rawValue
    }
  }

  private static func srmText(_ judgement: Judgement) -> String {
    guard let pValue = judgement.days.last?.sampleRatioPValue else { return "–" }
    let share = judgement.challengerArm.devices * 100
    let total = judgement.challengerArm.devices + judgement.baselineArm.devices
    let observed = total > 0 ? Double(share) / Double(total) : 0
    let verdict = judgement.sampleRatioMismatch ? "mismatch" : "ok"
    return "\(verdict): \(format(observed, 1)) % of \(percentText(judgement.challengerPercent)) %, "
      + "p = \(pValue < 0.0001 ? "< 0.0001" : format(pValue, 4))"
  }

  private static func arm(_ counts: ArmCounts) -> String {
    "\(grouped(counts.devices)) (\(format(counts.rate * 100, 2)) %)"
  }

  private static func interval(_ interval: Interval, points: Bool) -> String {
    let unit = points ? " pp" : " %"
    func value(_ x: Double) -> String { x.isFinite ? signed(x * 100, 2) : (x > 0 ? "+∞" : "−∞") }
    return "\(value(interval.estimate))\(unit) [\(value(interval.low)), \(value(interval.high))]"
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

  static func format(_ value: Double, _ decimals: Int) -> String {
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

  static func grouped(_ value: Int) -> String {
    let digits = String(value.magnitude)
    var result = ""
    for (index, character) in digits.enumerated() {
      if index > 0, (digits.count - index) % 3 == 0 { result += "," }
      result.append(character)
    }
    return (value < 0 ? "-" : "") + result
  }
}
