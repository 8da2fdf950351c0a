import Foundation
import XCTest

@testable import ReleaseEvaluation

#if canImport(FoundationXML)
  import FoundationXML
#endif

final class ReportTests: XCTestCase {
  /// A 10 % challenger at 4 % against a 5 % baseline, 14 days, from a fixed seed, judged
  /// from its CSV export; the export also holds 2 rows of another model version.
  func worseJudgement(customer: String = "acme", flow: String = "checkout", challenger: Double = 0.04)
    -> Judgement
  {
    var simulation = RolloutSimulation(
      challengers: [.init(version: 7, rate: challenger, steps: [(0, 10)])], devicesPerDay: 20_000, days: 14)
    simulation.splitStartColumn = false
    var random = SplitMix64(seed: 11)
    let text =
      simulation.export(random: &random).replacingOccurrences(
        of: "acme,checkout,1,", with: "acme,checkout,6,")
      + "2026-03-01,acme,checkout,5,10,1\n2026-03-02,acme,checkout,5,20,1\n"
    let outcomes = try! OutcomesReader.read(
      text, source: "o.csv", known: ["acme": ["checkout"]], today: RolloutSimulation.start.adding(days: 14))
    let challenge = Challenge(
      customer: "acme", flow: "checkout", challenger: 7, baseline: 6, challengerPercent: 10)
    let judgement = Evaluator.judge(challenge, outcomes: outcomes)
    return Judgement(
      customer: customer, flow: flow, challenger: 7, baseline: 6, challengerPercent: 10, expectedShare: 0.1,
      policy: judgement.policy, decision: judgement.decision, decidedOn: judgement.decidedOn,
      invalidReason: judgement.invalidReason, devicesNeeded: judgement.devicesNeeded,
      gateOpenedOn: judgement.gateOpenedOn, ignoredRows: judgement.ignoredRows, strata: judgement.strata,
      days: judgement.days)
  }

  func testChartIsWellFormedXMLWithThresholdsGateAndDecisionDayMarked() throws {
    let judgement = worseJudgement()
    XCTAssertEqual(judgement.decision, .rollback)
    let decidedOn = try XCTUnwrap(judgement.decidedOn)
    let gate = try XCTUnwrap(judgement.gateOpenedOn)
    let svg = EvaluationReport.svg(judgement)
    let document = try XMLDocument(xmlString: svg, options: [])
    let root = try XCTUnwrap(document.rootElement())
    XCTAssertEqual(root.name, "svg")
    func text(_ id: String) throws -> String? {
      try root.nodes(forXPath: "//*[@id='\(id)']").first?.stringValue
    }
    XCTAssertEqual(try text("decision-day"), "rollback on \(decidedOn)")
    XCTAssertEqual(try text("gate-open"), "gate open \(gate)")
    XCTAssertEqual(try text("threshold-rollback"), "0 %: rollback when the interval is below")
    XCTAssertEqual(try text("threshold-promote"), "−2.0 % (−margin): promote when the interval is above")
    let texts = try root.nodes(forXPath: "//*[local-name()='text']").compactMap(\.stringValue)
    XCTAssertTrue(texts.contains("Cumulative conversion rate (%)"), "\(texts)")
    XCTAssertTrue(texts.contains { $0.hasPrefix("Relative effect on conversions") }, "\(texts)")
    XCTAssertTrue(texts.contains(judgement.days[0].date.description))
    let devices = EvaluationReport.grouped(judgement.challengerArm.devices)
    XCTAssertTrue(texts.contains("challenger 7: \(devices) devices"), "\(texts)")
    XCTAssertEqual(try root.nodes(forXPath: "//*[local-name()='polyline']").count, 3)
    XCTAssertEqual(try root.nodes(forXPath: "//*[local-name()='polygon']").count, 1)
  }

  func testAContinueSaysAboutHowManyMoreDays() throws {
    let judgement = worseJudgement(challenger: 0.0495)
    XCTAssertEqual(judgement.decision, .continue)
    let verdict = try XCTUnwrap(
      try XMLDocument(xmlString: EvaluationReport.svg(judgement), options: []).rootElement()?.nodes(
        forXPath: "//*[@id='verdict']"
      ).first?.stringValue)
    XCTAssertTrue(
      verdict.hasPrefix("Decision: continue (about ") && verdict.hasSuffix(" more days at current traffic)")
        || verdict == "Decision: continue (no decision expected: inside the margin)", verdict)
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
    // Unescaped pipes separate exactly the 14 cells.
    let pipes = row.filter { $0 == "|" }.count
    let escapedPipes = row.components(separatedBy: "\\|").count - 1
    XCTAssertEqual(pipes - escapedPipes, 15, String(row))

    let html = EvaluationReport.html([judgement])
    XCTAssertFalse(html.contains("<b>"))
    XCTAssertTrue(html.contains("a&lt;b&gt;&amp;"), html)
  }

  func testMarkdownSummarisesEachJudgement() {
    let judgement = worseJudgement()
    let markdown = EvaluationReport.markdown([judgement])
    let lines = markdown.split(separator: "\n", omittingEmptySubsequences: false)
    guard lines.count == 6 else { return XCTFail(markdown) }
    XCTAssertEqual(lines[5], "")
    XCTAssertTrue(lines[4].contains("**rollback"), String(lines[4]))
    XCTAssertTrue(lines[4].contains(judgement.decidedOn?.description ?? "?"), String(lines[4]))
    XCTAssertTrue(lines[4].contains("ok: "), String(lines[4]))
    XCTAssertTrue(lines[4].contains(judgement.gateOpenedOn?.description ?? "?"), String(lines[4]))
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

  /// The one page for the model team, loaded by headless Chromium: its DOM holds a row and a
  /// chart per judgement, and the page makes no request (no src, href or URL but the SVG
  /// namespace; a Content-Security-Policy of default-src 'none').
  func testIndexPageIsSelfContainedAndLoadsInHeadlessChromium() throws {
    let chromium = try XCTUnwrap(
      ["chromium", "chromium-browser", "google-chrome"].lazy.compactMap(Self.executable).first,
      "chromium is not installed: run Scripts/setup --test")
    let judgements = [worseJudgement(), worseJudgement(flow: "search", challenger: 0.0495)]
    let html = EvaluationReport.html(judgements)
    XCTAssertFalse(html.contains(" src=") || html.contains(" href="), "a reference in the page")
    XCTAssertEqual(
      html.components(separatedBy: "://").count - 1,
      html.components(separatedBy: "http://www.w3.org/2000/svg").count - 1,
      "a URL other than the SVG namespace")
    let directory = FileManager.default.temporaryDirectory.appendingPathComponent(
      "release-evaluation-\(UUID().uuidString)")
    try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
    defer { try? FileManager.default.removeItem(at: directory) }
    let page = directory.appendingPathComponent("index.html")
    try html.write(to: page, atomically: true, encoding: .utf8)
    let process = Process()
    process.executableURL = URL(fileURLWithPath: chromium)
    process.arguments = [
      "--headless", "--no-sandbox", "--disable-gpu",
      "--user-data-dir=\(directory.appendingPathComponent("p").path)",
      "--dump-dom", page.absoluteString,
    ]
    let pipe = Pipe()
    process.standardOutput = pipe
    process.standardError = FileHandle.nullDevice
    try process.run()
    let dom = String(decoding: pipe.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
    process.waitUntilExit()
    XCTAssertEqual(process.terminationStatus, 0)
    XCTAssertEqual(dom.components(separatedBy: "<tr class=").count - 1, 2, dom)
    XCTAssertEqual(dom.components(separatedBy: "<svg").count - 1, 2)
    XCTAssertTrue(dom.contains("rollback on \(judgements[0].decidedOn?.description ?? "?")"))
  }

  static func executable(_ name: String) -> String? {
    let path = ProcessInfo.processInfo.environment["PATH"] ?? "/usr/bin:/bin"
    return path.split(separator: ":").map { "\($0)/\(name)" }.first {
      FileManager.default.isExecutableFile(atPath: $0)
    }
  }
}
