import Foundation
import XCTest

@testable import ReleaseEvaluation

#if canImport(FoundationXML)
  import FoundationXML
#endif

final class ReportTests: XCTestCase {
  /// A 10 % challenger at 4 % against a 5 % baseline, 14 days, from a fixed seed.
  func worseJudgement(customer: String = "acme", flow: String = "checkout") -> Judgement {
    var random = SplitMix64(seed: 11)
    let series = SimulationTests.rollout(challengerRate: 0.04, baselineRate: 0.05, random: &random)
    return Evaluator.judge(
      Challenge(customer: customer, flow: flow, challenger: 7, baseline: 6, challengerPercent: 10),
      series: series, ignoredRows: 2)
  }

  func testChartIsWellFormedXMLWithTheDecisionDayMarked() throws {
    let judgement = worseJudgement()
    XCTAssertEqual(judgement.decision, .rollback)
    let decidedOn = try XCTUnwrap(judgement.decidedOn)
    let svg = EvaluationReport.svg(judgement)
    let document = try XMLDocument(xmlString: svg, options: [])
    let root = try XCTUnwrap(document.rootElement())
    XCTAssertEqual(root.name, "svg")
    let marker = try XCTUnwrap(try root.nodes(forXPath: "//*[@id='decision-day']").first)
    XCTAssertEqual(marker.stringValue, "rollback on \(decidedOn)")
    let texts = try root.nodes(forXPath: "//*[local-name()='text']").compactMap(\.stringValue)
    XCTAssertTrue(texts.contains("Cumulative conversion rate (%)"), "\(texts)")
    XCTAssertTrue(texts.contains { $0.hasPrefix("Difference, challenger − baseline") }, "\(texts)")
    XCTAssertTrue(texts.contains("Date (UTC), cumulative since the split began"))
    XCTAssertTrue(texts.contains(judgement.days[0].date.description))
    XCTAssertTrue(texts.contains("challenger 7"))
    XCTAssertTrue(texts.contains("baseline 6"))
    XCTAssertEqual(try root.nodes(forXPath: "//*[local-name()='polyline']").count, 3)
    XCTAssertEqual(try root.nodes(forXPath: "//*[local-name()='polygon']").count, 1)
  }

  func testTextFromTheInputIsEscapedInSVGAndMarkdown() throws {
    let hostile = "a<b>&\"c'|*x*\n# h"
    let judgement = worseJudgement(customer: hostile, flow: "f|[l](u)")
    let svg = EvaluationReport.svg(judgement)
    let document = try XMLDocument(xmlString: svg, options: [])
    let title = try XCTUnwrap(try document.rootElement()?.nodes(forXPath: "//*[local-name()='text']").first)
    XCTAssertEqual(title.stringValue, "\(hostile) / f|[l](u): model 7 vs baseline 6 at 10 %")
    XCTAssertFalse(svg.contains("<b>"))

    let markdown = EvaluationReport.markdown([judgement])
    let row = try XCTUnwrap(markdown.split(separator: "\n").last)
    XCTAssertTrue(row.contains(##"a\<b\>\&\"c\'\|\*x\* \# h"##), String(row))
    XCTAssertTrue(row.contains(#"f\|\[l\]\(u\)"#), String(row))
    // Unescaped pipes separate exactly the 12 cells.
    let pipes = row.filter { $0 == "|" }.count
    let escapedPipes = row.components(separatedBy: "\\|").count - 1
    XCTAssertEqual(pipes - escapedPipes, 13, String(row))
  }

  func testMarkdownSummarisesEachJudgement() {
    let judgement = worseJudgement()
    let markdown = EvaluationReport.markdown([judgement])
    let lines = markdown.split(separator: "\n", omittingEmptySubsequences: false)
    guard lines.count == 6 else { return XCTFail(markdown) }
    XCTAssertEqual(lines[5], "")
    XCTAssertTrue(lines[4].contains("**rollback**"), String(lines[4]))
    XCTAssertTrue(lines[4].contains(judgement.decidedOn?.description ?? "?"), String(lines[4]))
    XCTAssertTrue(lines[4].contains("ok: "), String(lines[4]))
    XCTAssertTrue(lines[4].hasSuffix("| 2 |"), String(lines[4]))
    XCTAssertEqual(EvaluationReport.chartFileName(judgement), "acme-checkout-7-vs-6.svg")
    XCTAssertEqual(
      [10, 12.5, 100, 0.25].map(EvaluationReport.percentText), ["10", "12.5", "100", "0.25"])
    XCTAssertEqual(
      EvaluationReport.chartFileName(worseJudgement(customer: "../x", flow: "a b")), ".._x-a_b-7-vs-6.svg")
  }

  /// Renders the chart with headless Chromium, as a person would see it, and checks the
  /// screenshot is a 900 × 600 PNG with content. Chromium is part of `Scripts/setup --test`.
  func testChartRendersInHeadlessChromium() throws {
    let chromium = try XCTUnwrap(
      ["chromium", "chromium-browser", "google-chrome"].lazy.compactMap(Self.executable).first,
      "chromium is not installed: run Scripts/setup --test")
    let directory = FileManager.default.temporaryDirectory.appendingPathComponent(
      "release-evaluation-\(UUID().uuidString)")
    try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
    defer { try? FileManager.default.removeItem(at: directory) }
    let svgFile = directory.appendingPathComponent("chart.svg")
    let pngFile = directory.appendingPathComponent("chart.png")
    try EvaluationReport.svg(worseJudgement()).write(to: svgFile, atomically: true, encoding: .utf8)

    let process = Process()
    process.executableURL = URL(fileURLWithPath: chromium)
    process.arguments = [
      "--headless", "--no-sandbox", "--disable-gpu", "--hide-scrollbars",
      "--user-data-dir=\(directory.appendingPathComponent("profile").path)",
      "--screenshot=\(pngFile.path)", "--window-size=900,600", svgFile.absoluteString,
    ]
    process.standardOutput = FileHandle.nullDevice
    process.standardError = FileHandle.nullDevice
    try process.run()
    process.waitUntilExit()
    XCTAssertEqual(process.terminationStatus, 0)

    let png = try Data(contentsOf: pngFile)
    if let keep = ProcessInfo.processInfo.environment["RELEASE_EVALUATION_SCREENSHOT"] {
      try png.write(to: URL(fileURLWithPath: keep))
    }
    XCTAssertEqual(Array(png.prefix(8)), [0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A], "not a PNG")
    func bigEndian(_ offset: Int) -> Int { png[offset..<offset + 4].reduce(0) { $0 << 8 | Int($1) } }
    XCTAssertEqual(bigEndian(16), 900, "width")
    XCTAssertEqual(bigEndian(20), 600, "height")
    // A blank 900 × 600 page compresses to a few kilobytes; lines, a band and text do not.
    XCTAssertGreaterThan(png.count, 20_000, "the screenshot looks blank (\(png.count) bytes)")
  }

  static func executable(_ name: String) -> String? {
    let path = ProcessInfo.processInfo.environment["PATH"] ?? "/usr/bin:/bin"
    return path.split(separator: ":").map { "\($0)/\(name)" }.first {
      FileManager.default.isExecutableFile(atPath: $0)
    }
  }
}
