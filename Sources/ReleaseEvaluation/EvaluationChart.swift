import Foundation
import ReleaseSystem

extension EvaluationReport {
  /// An SVG chart (900 × 600) of a judgement: above, the cumulative conversion rate of each
  /// arm by day with its devices; below, the relative effect on conversions (challenger /
  /// baseline − 1) with its always-valid interval as a band, both thresholds labelled (0:
  /// rollback below it; −margin: promote above it); the day the exposure gate opened and the
  /// decision day marked across both; for a `continue`, about how many more days it needs.
  public static func svg(_ judgement: Judgement) -> String {
    var chart = SVGChart(width: 900, height: 600)
    let frame = ChartFrame(count: judgement.days.count)
    let title =
      "\(judgement.customer) / \(judgement.flow): model \(judgement.challenger) vs "
      + "baseline \(judgement.baseline) at \(percentText(judgement.challengerPercent)) %"
    chart.text(title, x: 450, y: 28, size: 18, anchor: "middle", weight: "bold")
    var verdict = "Decision: \(decisionText(judgement))"
    if let decidedOn = judgement.decidedOn { verdict += " on \(decidedOn)" }
    chart.text(
      verdict, x: 450, y: 50, size: 14, anchor: "middle", color: decisionColor(judgement.decision),
      id: "verdict")
    drawRates(&chart, judgement, frame)
    drawEffect(&chart, judgement, frame)
    let days = judgement.days
    let labelEvery = max(1, Int((Double(days.count) / 7).rounded(.up)))
    for index in days.indices where index % labelEvery == 0 {
      for base in [265.0, 530.0] {
        chart.line(from: (frame.x(index), base), to: (frame.x(index), base + 5), color: "#444444", width: 1)
        chart.text(days[index].date.description, x: frame.x(index), y: base + 20, size: 12, anchor: "middle")
      }
    }
    chart.text("Date (UTC)", x: 475, y: 585, size: 13, anchor: "middle")
    drawMarkers(&chart, judgement, frame)
    return chart.document
  }

  /// Where the days go across.
  struct ChartFrame {
    let count: Int
    let left = 90.0
    let right = 860.0
    var range: (left: Double, right: Double) { (left, right) }
    func x(_ index: Int) -> Double {
      count <= 1 ? (left + right) / 2 : left + (right - left) * Double(index) / Double(count - 1)
    }
  }

  private static let colors = (challenger: "#d95f02", baseline: "#1f5fbf", band: "#f4a261", gate: "#6c757d")

  private static func drawRates(_ chart: inout SVGChart, _ judgement: Judgement, _ frame: ChartFrame) {
    let days = judgement.days
    let rates = days.flatMap { [$0.challenger.rate * 100, $0.baseline.rate * 100] }
    let axis = Axis(values: rates + [0], top: 85, bottom: 265)
    chart.text(
      "Cumulative conversion rate (%)", x: frame.left, y: 76, size: 13, anchor: "start", weight: "bold")
    chart.axes(axis, xRange: frame.range, format: { format($0, axis.decimals) })
    chart.polyline(
      days.indices.map { (frame.x($0), axis.y(days[$0].baseline.rate * 100)) }, color: colors.baseline,
      width: 2.5)
    chart.polyline(
      days.indices.map { (frame.x($0), axis.y(days[$0].challenger.rate * 100)) }, color: colors.challenger,
      width: 2.5)
    chart.legend(
      [
        .init(
          label: "challenger \(judgement.challenger): \(grouped(judgement.challengerArm.devices)) devices",
          color: colors.challenger),
        .init(
          label: "baseline \(judgement.baseline): \(grouped(judgement.baselineArm.devices)) devices",
          color: colors.baseline),
      ], right: frame.right, y: 76)
  }

  private static func drawEffect(_ chart: inout SVGChart, _ judgement: Judgement, _ frame: ChartFrame) {
    let days = judgement.days
    let margin = -judgement.policy.margin * 100
    let estimated = days.indices.compactMap { index in days[index].relative.map { (index, $0) } }
    let bounds = estimated.flatMap { [$0.1.low * 100, $0.1.high * 100, $0.1.estimate * 100] }.filter(
      \.isFinite)
    let axis = Axis(values: bounds + [0, margin], top: 350, bottom: 530)
    chart.text(
      "Relative effect on conversions, challenger / baseline − 1 (%)", x: frame.left, y: 341, size: 13,
      anchor: "start", weight: "bold")
    chart.axes(axis, xRange: frame.range, format: { signed($0, axis.decimals) })
    chart.beginClip(left: frame.left, top: 350, right: frame.right, bottom: 530)
    let band =
      estimated.map { (frame.x($0.0), axis.y(clamped($0.1.high * 100, axis))) }
      + estimated.reversed().map { (frame.x($0.0), axis.y(clamped($0.1.low * 100, axis))) }
    chart.polygon(band, fill: colors.band, opacity: 0.35)
    chart.horizontal(y: axis.y(0), xRange: frame.range, color: "#c0392b", dash: nil)
    chart.horizontal(y: axis.y(margin), xRange: frame.range, color: "#1e8449", dash: "6 4")
    chart.polyline(
      estimated.map { (frame.x($0.0), axis.y($0.1.estimate * 100)) }, color: colors.challenger, width: 2.5)
    chart.endClip()
    chart.text(
      "0 %: rollback when the interval is below", x: frame.right - 4, y: axis.y(0) - 5, size: 11,
      anchor: "end",
      color: "#c0392b", id: "threshold-rollback")
    chart.text(
      "\(signed(margin, 1)) % (−margin): promote when the interval is above", x: frame.right - 4,
      y: axis.y(margin) + 14, size: 11, anchor: "end", color: "#1e8449", id: "threshold-promote")
    chart.legend(
      [
        .init(label: "estimate", color: colors.challenger),
        .init(label: "always-valid interval", color: colors.band, style: .band),
      ], right: frame.right, y: 341)
  }

  /// The gate's opening and the decision day, across both panels.
  private static func drawMarkers(_ chart: inout SVGChart, _ judgement: Judgement, _ frame: ChartFrame) {
    let days = judgement.days
    if let opened = judgement.gateOpenedOn, let index = days.firstIndex(where: { $0.date == opened }) {
      chart.line(
        from: (frame.x(index), 85), to: (frame.x(index), 530), color: colors.gate, width: 1.5, dash: "2 3")
      chart.text(
        "gate open \(opened)", x: frame.x(index) + 4, y: 97, size: 11, anchor: "start", color: colors.gate,
        id: "gate-open")
    }
    if let decidedOn = judgement.decidedOn, let index = days.firstIndex(where: { $0.date == decidedOn }) {
      let color = decisionColor(judgement.decision)
      chart.line(from: (frame.x(index), 85), to: (frame.x(index), 530), color: color, width: 2, dash: "5 3")
      let anchor = index > days.count / 2 ? "end" : "start"
      let offset = anchor == "end" ? -6.0 : 6.0
      chart.text(
        "\(judgement.decision.rawValue) on \(decidedOn)", x: frame.x(index) + offset, y: 312, size: 13,
        anchor: anchor, weight: "bold", color: color, id: "decision-day")
    }
  }

  private static func decisionColor(_ decision: Decision) -> String {
    switch decision {
    case .rollback: return "#c0392b"
    case .promote: return "#1e8449"
    case .continue: return "#555555"
    case .invalid: return "#8e44ad"
    }
  }

  private static func clamped(_ value: Double, _ axis: Axis) -> Double {
    min(max(value, axis.low - (axis.high - axis.low)), axis.high + (axis.high - axis.low))
  }
}

/// A vertical axis: a range rounded out to tick steps of 1, 2 or 5 × 10ⁿ.
struct Axis {
  let low: Double
  let high: Double
  let step: Double
  let top: Double
  let bottom: Double

  init(values: [Double], top: Double, bottom: Double) {
    var low = values.filter(\.isFinite).min() ?? 0
    var high = values.filter(\.isFinite).max() ?? 1
    if high - low < 1e-9 {
      low -= 0.5
      high += 0.5
    }
    let raw = (high - low) / 5
    let magnitude = pow(10, (log10(raw)).rounded(.down))
    let normalized = raw / magnitude
    let step = (normalized < 1.5 ? 1 : normalized < 3 ? 2 : normalized < 7 ? 5 : 10) * magnitude
    self.low = (low / step).rounded(.down) * step
    self.high = (high / step).rounded(.up) * step
    self.step = step
    self.top = top
    self.bottom = bottom
  }

  var ticks: [Double] {
    let steps = ((high - low) / step).rounded()
    guard steps.isFinite, steps >= 0, steps <= 100 else { return [low, high].filter(\.isFinite) }
    let count = Int(steps)
    return (0...count).map { low + Double($0) * step }
  }

  /// Decimals that tell the ticks apart.
  var decimals: Int { max(0, -Int(log10(step).rounded(.down))) }

  func y(_ value: Double) -> Double { bottom - (value - low) / (high - low) * (bottom - top) }
}

/// A small SVG writer; every text goes through `XMLText.escaped`.
struct SVGChart {
  private(set) var body: [String] = []
  let width: Double
  let height: Double
  private var clips = 0

  init(width: Double, height: Double) {
    self.width = width
    self.height = height
  }

  var document: String {
    """
    <?xml version="1.0" encoding="UTF-8"?>
    <svg xmlns="http://www.w3.org/2000/svg" width="\(n(width))" height="\(n(height))" \
    viewBox="0 0 \(n(width)) \(n(height))" font-family="DejaVu Sans, Helvetica, Arial, sans-serif">
    <rect x="0" y="0" width="\(n(width))" height="\(n(height))" fill="#ffffff"/>

    """ + body.joined(separator: "\n") + "\n</svg>\n"
  }

  mutating func text(
    _ text: String, x: Double, y: Double, size: Double, anchor: String, weight: String = "normal",
    color: String = "#222222", id: String? = nil
  ) {
    let identifier = id.map { " id=\"\(XMLText.escaped($0))\"" } ?? ""
    body.append(
      "<text\(identifier) x=\"\(n(x))\" y=\"\(n(y))\" font-size=\"\(n(size))\" text-anchor=\"\(anchor)\" "
        + "font-weight=\"\(weight)\" fill=\"\(color)\">\(XMLText.escaped(text))</text>")
  }

  mutating func line(
    from start: (Double, Double), to end: (Double, Double), color: String, width: Double, dash: String? = nil
  ) {
    let dashing = dash.map { " stroke-dasharray=\"\($0)\"" } ?? ""
    body.append(
      "<line x1=\"\(n(start.0))\" y1=\"\(n(start.1))\" x2=\"\(n(end.0))\" y2=\"\(n(end.1))\" "
        + "stroke=\"\(color)\" stroke-width=\"\(n(width))\"\(dashing)/>")
  }

  mutating func horizontal(y: Double, xRange: (left: Double, right: Double), color: String, dash: String?) {
    line(from: (xRange.left, y), to: (xRange.right, y), color: color, width: 1.5, dash: dash)
  }

  mutating func polyline(_ points: [(Double, Double)], color: String, width: Double) {
    guard !points.isEmpty else { return }
    if points.count == 1 {
      body.append(
        "<circle cx=\"\(n(points[0].0))\" cy=\"\(n(points[0].1))\" r=\"3.5\" fill=\"\(color)\"/>")
      return
    }
    body.append(
      "<polyline points=\"\(pointList(points))\" fill=\"none\" stroke=\"\(color)\" stroke-width=\"\(n(width))\" "
        + "stroke-linejoin=\"round\"/>")
  }

  mutating func polygon(_ points: [(Double, Double)], fill: String, opacity: Double) {
    guard points.count >= 3 else { return }
    body.append("<polygon points=\"\(pointList(points))\" fill=\"\(fill)\" fill-opacity=\"\(n(opacity))\"/>")
  }

  mutating func axes(_ axis: Axis, xRange: (left: Double, right: Double), format: (Double) -> String) {
    for tick in axis.ticks {
      let y = axis.y(tick)
      line(from: (xRange.left, y), to: (xRange.right, y), color: "#e3e3e3", width: 1)
      text(format(tick), x: xRange.left - 8, y: y + 4, size: 12, anchor: "end")
    }
    line(from: (xRange.left, axis.top), to: (xRange.left, axis.bottom), color: "#444444", width: 1)
    line(from: (xRange.left, axis.bottom), to: (xRange.right, axis.bottom), color: "#444444", width: 1)
  }

  struct LegendEntry {
    enum Style { case line, dashed, band }
    let label: String
    let color: String
    var style = Style.line
  }

  /// A legend in one row, ending at `right`, its text's baseline at `y`.
  mutating func legend(_ entries: [LegendEntry], right: Double, y: Double) {
    // About 7 px a character at 12 px: wide enough for DejaVu Sans, the widest of the fonts.
    let widths = entries.map { 30 + 7 * Double($0.label.count) + 16 }
    var x = right - widths.reduce(0, +) + 16
    for (entry, width) in zip(entries, widths) {
      switch entry.style {
      case .line: line(from: (x, y - 4), to: (x + 22, y - 4), color: entry.color, width: 3)
      case .dashed: line(from: (x, y - 4), to: (x + 22, y - 4), color: entry.color, width: 2, dash: "6 4")
      case .band:
        body.append(
          "<rect x=\"\(n(x))\" y=\"\(n(y - 10))\" width=\"22\" height=\"12\" fill=\"\(entry.color)\" "
            + "fill-opacity=\"0.35\"/>")
      }
      text(entry.label, x: x + 28, y: y, size: 12, anchor: "start")
      x += width
    }
  }

  mutating func beginClip(left: Double, top: Double, right: Double, bottom: Double) {
    clips += 1
    body.append(
      "<clipPath id=\"clip\(clips)\"><rect x=\"\(n(left))\" y=\"\(n(top))\" width=\"\(n(right - left))\" "
        + "height=\"\(n(bottom - top))\"/></clipPath>")
    body.append("<g clip-path=\"url(#clip\(clips))\">")
  }

  mutating func endClip() { body.append("</g>") }

  private func pointList(_ points: [(Double, Double)]) -> String {
    points.map { "\(n($0.0)),\(n($0.1))" }.joined(separator: " ")
  }

  private func n(_ value: Double) -> String {
    guard value.isFinite else { return "0" }
    return EvaluationReport.format(value, 1)
  }
}
