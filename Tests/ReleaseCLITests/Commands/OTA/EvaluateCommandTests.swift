import Foundation
import ReleaseEvaluation
import ReleaseSystem
import ReleaseTestSupport
import XCTest

@testable import ReleaseCLI
@testable import ReleaseCore
@testable import ReleaseOTA
@testable import ReleaseSettings

#if canImport(FoundationXML)
  import FoundationXML
#endif

/// `release ota evaluate` in process, on a workspace copy of the project: the decisions it
/// reaches from simulated exports, what `--apply` does to `rollouts.json` (and what it leaves
/// alone), its refusals, its outputs and its report.
final class EvaluateCommandTests: XCTestCase {
  struct CLIRun {
    var code: Int32
    var standardOutput: [String]
    var standardError: [String]
    var all: String { (standardOutput + standardError).joined(separator: "\n") }
  }

  func run(
    _ arguments: [String], in workspace: Workspace, clock: SettableClock, environment: [String: String] = [:]
  ) -> CLIRun {
    let output = CapturedOutput()
    var base = ProcessInfo.processInfo.environment
    base["CI"] = "true"
    for key in ["GITHUB_ACTIONS", "GITHUB_STEP_SUMMARY"] { base.removeValue(forKey: key) }
    let services = Services(
      processRunner: SystemProcessRunner(), clock: clock, root: workspace.root,
      environment: base.merging(environment) { $1 }, output: output)
    let code = CommandLineInterface.main(arguments: arguments, services: services)
    return CLIRun(code: code, standardOutput: output.standardOutput, standardError: output.standardError)
  }

  /// The offer of `version` in rollouts.json, as plain values.
  func offer(
    _ workspace: Workspace, _ version: Int, customer: String = "acme", flow: String = "onboarding_upsell"
  )
    throws -> [String: Any]
  {
    let root = try XCTUnwrap(
      JSONSerialization.jsonObject(with: Data(contentsOf: workspace.file("rollouts.json"))) as? [String: Any])
    let flows = try XCTUnwrap((root["customers"] as? [String: Any])?[customer] as? [String: Any])
    let offers = try XCTUnwrap((flows[flow] as? [String: Any])?["models"] as? [[String: Any]])
    return try XCTUnwrap(offers.first { $0["modelVersion"] as? Int == version }, "v\(version) offered")
  }

  let start = OutcomeDate("2026-11-01")!

  /// A workspace with acme's onboarding_upsell v74 rolled out to `percent`% on 2026-11-01 and
  /// the clock on 2026-11-15, after 14 days of outcomes.
  func rolledOut(percent: Int = 10) throws -> (Workspace, SettableClock) {
    let workspace = try Workspace()
    let clock = SettableClock("2026-11-01")
    let rollout = run(
      ["rollout", "acme", "onboarding_upsell", "74", "--percent", String(percent)], in: workspace,
      clock: clock)
    XCTAssertEqual(rollout.code, 0, rollout.all)
    clock.set("2026-11-15")
    return (workspace, clock)
  }

  func write(_ simulation: OutcomesSimulation, to name: String = "outcomes.csv", in workspace: Workspace)
    throws
  {
    try simulation.csv().write(to: workspace.file(name), atomically: true, encoding: .utf8)
  }

  func testRolloutRecordsTheDayEachSplitBeganWithTheInjectedClock() throws {
    let workspace = try Workspace()
    let clock = SettableClock("2026-11-01")
    XCTAssertEqual(
      run(["rollout", "acme", "onboarding_upsell", "74", "--percent", "10"], in: workspace, clock: clock)
        .code, 0)
    XCTAssertEqual(try offer(workspace, 74)["since"] as? String, "2026-11-01")
    clock.set("2026-11-03")
    // The same percentage again is no new split.
    XCTAssertEqual(
      run(["rollout", "acme", "onboarding_upsell", "74", "--percent", "10"], in: workspace, clock: clock)
        .code, 0)
    XCTAssertEqual(try offer(workspace, 74)["since"] as? String, "2026-11-01")
    XCTAssertEqual(
      run(["rollout", "acme", "onboarding_upsell", "74", "--percent", "25"], in: workspace, clock: clock)
        .code, 0)
    XCTAssertEqual(try offer(workspace, 74)["since"] as? String, "2026-11-03")
    clock.set("2026-11-04")
    XCTAssertEqual(run(["rollback", "acme", "onboarding_upsell", "74"], in: workspace, clock: clock).code, 0)
    XCTAssertEqual(try offer(workspace, 74)["since"] as? String, "2026-11-04")
    let splits = try XCTUnwrap(try offer(workspace, 74)["splits"] as? [[String: Any]])
    XCTAssertEqual(splits.map { $0["percent"] as? Int }, [10, 25, 0])
    XCTAssertEqual(splits.map { $0["since"] as? String }, ["2026-11-01", "2026-11-03", "2026-11-04"])
    let recorded = try String(contentsOf: workspace.file("rollouts.json"), encoding: .utf8)
    try recorded.replacingOccurrences(of: "\"percent\" : 25", with: "\"percent\" : 125")
      .write(to: workspace.file("rollouts.json"), atomically: true, encoding: .utf8)
    let badSplit = run(["ota", "status", "acme"], in: workspace, clock: clock)
    XCTAssertEqual(badSplit.code, 2, badSplit.all)
    XCTAssertTrue(
      badSplit.all.contains("customers.acme.onboarding_upsell.models[0].splits[1].percent"), badSplit.all)
    try recorded.write(to: workspace.file("rollouts.json"), atomically: true, encoding: .utf8)

    // A file without `since` (written before it was recorded) still reads; a bad one is refused
    // with its path.
    let text = try String(contentsOf: workspace.file("rollouts.json"), encoding: .utf8)
    try text.replacingOccurrences(of: "\"since\" : \"2026-11-04\",", with: "")
      .write(to: workspace.file("rollouts.json"), atomically: true, encoding: .utf8)
    XCTAssertEqual(run(["ota", "status", "acme"], in: workspace, clock: clock).code, 0)
    try text.replacingOccurrences(of: "2026-11-04", with: "2026-13-04")
      .write(to: workspace.file("rollouts.json"), atomically: true, encoding: .utf8)
    let bad = run(["ota", "status", "acme"], in: workspace, clock: clock)
    XCTAssertEqual(bad.code, 2, bad.all)
    XCTAssertTrue(
      bad.all.contains("customers.acme.onboarding_upsell.models[0].since") && bad.all.contains("YYYY-MM-DD"),
      bad.all)
  }

  func testAWorseChallengerIsRolledBack() throws {
    let (workspace, clock) = try rolledOut()
    try write(
      OutcomesSimulation(challengerRate: 0.04, start: start, seed: 7, otherVersion: 72), in: workspace)
    let result = run(
      ["ota", "evaluate", "--outcomes", "outcomes.csv", "--apply"], in: workspace, clock: clock)
    XCTAssertEqual(result.code, 0, result.all)
    XCTAssertTrue(result.standardOutput.contains("  decision     rollback"), result.all)
    XCTAssertTrue(
      result.standardOutput.contains("  ignored      14 rows of other model versions or earlier splits"),
      result.all)
    XCTAssertTrue(result.standardOutput.contains("+++ b/rollouts.json"), result.all)
    let retracted = try offer(workspace, 74)
    XCTAssertEqual(retracted["status"] as? String, "retracted")
    XCTAssertEqual(retracted["rolloutPercent"] as? Int, 0)
    XCTAssertEqual(retracted["since"] as? String, "2026-11-15")
    let splits = try XCTUnwrap(retracted["splits"] as? [[String: Any]])
    XCTAssertEqual(splits.map { $0["percent"] as? Int }, [10, 0])
    XCTAssertEqual(splits.map { $0["since"] as? String }, ["2026-11-01", "2026-11-15"])
  }

  func testAGoodChallengerIsRaisedOneStepAndJudgedAgainFromItsNewSplit() throws {
    let (workspace, clock) = try rolledOut()
    try write(OutcomesSimulation(challengerRate: 0.06, start: start, seed: 11), in: workspace)
    let result = run(
      ["ota", "evaluate", "acme", "--outcomes", "outcomes.csv", "--apply"], in: workspace, clock: clock)
    XCTAssertEqual(result.code, 0, result.all)
    XCTAssertTrue(result.standardOutput.contains("  decision     promote"), result.all)
    var raised = try offer(workspace, 74)
    XCTAssertEqual(raised["rolloutPercent"] as? Int, 25, "one step along the default schedule")
    XCTAssertEqual(raised["status"] as? String, "active")
    XCTAssertEqual(raised["since"] as? String, "2026-11-15")

    // The same export again, without splitStart: nothing after the new split began, so nothing
    // is judged or raised.
    let again = run(
      ["ota", "evaluate", "--outcomes", "outcomes.csv", "--apply"], in: workspace, clock: clock)
    XCTAssertEqual(again.code, 0, again.all)
    XCTAssertTrue(again.standardOutput.contains("  decision     continue"), again.all)
    raised = try offer(workspace, 74)
    XCTAssertEqual(raised["rolloutPercent"] as? Int, 25)
  }

  /// An offer written before `since` was recorded (unknown start): every row counts, and a
  /// promote raises it, recording the new split's day.
  func testAnOfferWithoutSinceIsJudgedOnEveryRowAndRaised() throws {
    let (workspace, clock) = try rolledOut()
    let text = try String(contentsOf: workspace.file("rollouts.json"), encoding: .utf8)
    let withoutSplits = try XCTUnwrap(
      text.range(of: #",\s*"splits" : \[[^\]]*\]"#, options: .regularExpression))
    try text.replacingCharacters(in: withoutSplits, with: "")
      .replacingOccurrences(of: "\"since\" : \"2026-11-01\",", with: "")
      .write(to: workspace.file("rollouts.json"), atomically: true, encoding: .utf8)
    XCTAssertNil(try offer(workspace, 74)["since"])
    XCTAssertNil(try offer(workspace, 74)["splits"])
    try write(OutcomesSimulation(challengerRate: 0.06, start: start, seed: 11), in: workspace)
    let result = run(
      ["ota", "evaluate", "--outcomes", "outcomes.csv", "--apply"], in: workspace, clock: clock)
    XCTAssertEqual(result.code, 0, result.all)
    XCTAssertTrue(
      result.standardOutput.first?.hasSuffix("all rows (the split's start is unknown)") == true, result.all)
    let raised = try offer(workspace, 74)
    XCTAssertEqual(raised["rolloutPercent"] as? Int, 25)
    XCTAssertEqual(raised["since"] as? String, "2026-11-15")
  }

  /// A promote is applied only on outcomes dated after the split began: judged over older rows
  /// (`--since`), a split that began on the export's last date is not raised.
  func testAPromoteWithoutOutcomesAfterTheSplitBeganIsNotApplied() throws {
    let workspace = try Workspace()
    let clock = SettableClock("2026-11-14")
    XCTAssertEqual(
      run(["rollout", "acme", "onboarding_upsell", "74", "--percent", "10"], in: workspace, clock: clock)
        .code, 0)
    try write(OutcomesSimulation(challengerRate: 0.06, start: start, seed: 11), in: workspace)
    let result = run(
      ["ota", "evaluate", "--outcomes", "outcomes.csv", "--since", "2026-11-01", "--apply"], in: workspace,
      clock: clock)
    XCTAssertEqual(result.code, 0, result.all)
    XCTAssertTrue(result.standardOutput.contains("  decision     promote"), result.all)
    XCTAssertTrue(
      result.standardError.contains(
        "acme onboarding_upsell v74: promote; nothing to apply (no outcomes dated after its split began on 2026-11-14)"
      ), result.all)
    XCTAssertEqual(try offer(workspace, 74)["rolloutPercent"] as? Int, 10)
  }

  /// A split that is off is invalid, exit 1, and acted on: fewer devices than expected (as when
  /// a challenger crashes apps) retracts it; more pauses it for a person.
  func testASampleRatioMismatchExitsOneAndIsActedOnWithApply() throws {
    for (share, status) in [(0.15, "paused"), (0.06, "retracted")] {
      let (workspace, clock) = try rolledOut()
      try write(
        OutcomesSimulation(challengerRate: 0.05, challengerShare: share, start: start, seed: 3), in: workspace
      )
      let before = Workspace.snapshot(workspace.root)
      let judged = run(
        ["ota", "evaluate", "--outcomes", "outcomes.csv", "--json"], in: workspace, clock: clock)
      XCTAssertEqual(judged.code, 1, judged.all)
      let object = try XCTUnwrap(
        try JSONSerialization.jsonObject(with: Data(XCTUnwrap(judged.standardOutput.first).utf8))
          as? [String: Any])
      XCTAssertEqual(object["decision"] as? String, "invalid")
      XCTAssertEqual(object["srm"] as? Bool, true)
      XCTAssertEqual(object["srmDirection"] as? String, share > 0.1 ? "more" : "fewer")
      XCTAssertTrue(
        judged.standardError.contains { $0.contains("v74: invalid (sample ratio mismatch") }, judged.all)
      XCTAssertEqual(Workspace.snapshot(workspace.root), before, "without --apply nothing changes")
      let applied = run(
        ["ota", "evaluate", "--outcomes", "outcomes.csv", "--apply"], in: workspace, clock: clock)
      XCTAssertEqual(applied.code, 1, applied.all)
      XCTAssertEqual(try offer(workspace, 74)["status"] as? String, status, applied.all)
      let splits = try XCTUnwrap(try offer(workspace, 74)["splits"] as? [[String: Any]])
      XCTAssertEqual(splits.map { $0["percent"] as? Int }, [10, 0], "no new device takes it from today")
      if status == "paused" {
        // Offered again by a person: active at its percentage from that day.
        clock.set("2026-11-16")
        let resumed = run(
          ["rollout", "acme", "onboarding_upsell", "74", "--percent", "10"], in: workspace, clock: clock)
        XCTAssertEqual(resumed.code, 0, resumed.all)
        let again = try offer(workspace, 74)
        XCTAssertEqual(again["status"] as? String, "active")
        XCTAssertEqual((again["splits"] as? [[String: Any]])?.map { $0["percent"] as? Int }, [10, 0, 10])
      }
    }
  }

  /// Only what cannot be read at all refuses the file (exit 2, every line); an inconsistent
  /// series makes its challenger invalid (exit 1) and rows of unknown customers are skipped.
  func testBadOutcomesAreRefusedWithEveryLineAndNothingIsWritten() throws {
    let (workspace, clock) = try rolledOut()
    try """
    date,customer,flow,modelVersion,devices,conversions
    2026-11-01,acme,onboarding_upsell,73,100,5
    2026-11-01,acme,onboarding_upsell,74,ten,1
    2026-11-03,acme,onboarding_upsell,73,-4,1
    2026-11-03,acme,onboarding_upsell,73,2000000000000,1
    """.write(to: workspace.file("outcomes.csv"), atomically: true, encoding: .utf8)
    let before = Workspace.snapshot(workspace.root)
    let result = run(
      ["ota", "evaluate", "--outcomes", "outcomes.csv", "--apply", "--report", "report"], in: workspace,
      clock: clock)
    XCTAssertEqual(result.code, 2, result.all)
    XCTAssertEqual(result.standardOutput, [])
    for (number, fragment) in [(3, "\"ten\""), (4, "-4"), (5, "expected at most 10^12")] {
      XCTAssertTrue(
        result.standardError.contains { $0.contains("outcomes.csv:\(number): ") && $0.contains(fragment) },
        "line \(number): \(result.all)")
    }
    XCTAssertEqual(Workspace.snapshot(workspace.root), before)

    var bytes = Data("date,customer,flow,modelVersion,devices,conversions\n".utf8)
    bytes += Data([0x32, 0xC3, 0x28, 0x0A])
    try bytes.write(to: workspace.file("outcomes.csv"))
    let binary = run(["ota", "evaluate", "--outcomes", "outcomes.csv"], in: workspace, clock: clock)
    XCTAssertEqual(binary.code, 2, binary.all)
    XCTAssertTrue(binary.all.contains("outcomes.csv:2: found bytes that are not UTF-8"), binary.all)

    try """
    date,customer,flow,modelVersion,devices,conversions
    2026-11-02,acme,onboarding_upsell,73,90,5
    2026-11-01,acme,onboarding_upsell,73,100,5
    2026-11-01,acme,onboarding_upsell,74,10,1
    2026-11-02,nobody,onboarding_upsell,73,90,5
    """.write(to: workspace.file("outcomes.csv"), atomically: true, encoding: .utf8)
    let inconsistent = run(["ota", "evaluate", "--outcomes", "outcomes.csv"], in: workspace, clock: clock)
    XCTAssertEqual(inconsistent.code, 1, inconsistent.all)
    XCTAssertTrue(
      inconsistent.all.contains("outcomes.csv:2: found devices 90, down from 100 on line 3"), inconsistent.all
    )
    XCTAssertTrue(
      inconsistent.all.contains("skipped 1 rows of customers or flows not judged"), inconsistent.all)
  }

  func testDryRunPrintsTheDiffAndWritesNothing() throws {
    let (workspace, clock) = try rolledOut()
    try write(OutcomesSimulation(challengerRate: 0.04, start: start, seed: 7), in: workspace)
    let before = Workspace.snapshot(workspace.root)
    let result = run(
      [
        "ota", "evaluate", "--outcomes", "outcomes.csv", "--apply", "--dry-run", "--report", "report",
        "--publish", "dir:published",
      ], in: workspace, clock: clock, environment: ["GITHUB_STEP_SUMMARY": workspace.file("summary.md").path])
    XCTAssertEqual(result.code, 0, result.all)
    XCTAssertTrue(result.standardOutput.contains("+            \"status\" : \"retracted\""), result.all)
    XCTAssertTrue(
      result.standardError.contains(
        "dry run: acme: onboarding_upsell v74 retracted; rollouts.json not written"), result.all)
    XCTAssertEqual(Workspace.snapshot(workspace.root), before)

    let alone = run(
      ["ota", "evaluate", "--outcomes", "outcomes.csv", "--dry-run"], in: workspace, clock: clock)
    XCTAssertEqual(alone.code, 2, alone.all)
    XCTAssertEqual(
      alone.standardError, ["error: --dry-run: previews what --apply would change; give --apply too"])
  }

  func testJSONLinesCarryEveryField() throws {
    let (workspace, clock) = try rolledOut()
    try write(
      OutcomesSimulation(challengerRate: 0.04, start: start, seed: 7, otherVersion: 72), in: workspace)
    let result = run(
      ["ota", "evaluate", "acme", "onboarding_upsell", "--outcomes", "outcomes.csv", "--json"], in: workspace,
      clock: clock)
    XCTAssertEqual(result.code, 0, result.all)
    XCTAssertEqual(result.standardOutput.count, 1, result.all)
    let object = try XCTUnwrap(
      try JSONSerialization.jsonObject(with: Data(result.standardOutput[0].utf8)) as? [String: Any])
    XCTAssertEqual(
      Set(object.keys),
      [
        "customer", "flow", "challenger", "baseline", "decision", "decidedOn", "reason", "arms", "relative",
        "revenue", "gateOpenedOn", "srm", "srmDirection", "strata", "ignoredRows",
      ])
    XCTAssertEqual(object["customer"] as? String, "acme")
    XCTAssertEqual(object["flow"] as? String, "onboarding_upsell")
    XCTAssertEqual(object["challenger"] as? Int, 74)
    XCTAssertEqual(object["baseline"] as? Int, 73)
    XCTAssertEqual(object["decision"] as? String, "rollback")
    let decidedOn = try XCTUnwrap(object["decidedOn"] as? String)
    XCTAssertNotNil(OutcomeDate(decidedOn))
    XCTAssertEqual(object["srm"] as? Bool, false)
    XCTAssertEqual(object["ignoredRows"] as? Int, 14)
    // The arms are the simulated export's last counts.
    let csv = try String(contentsOf: workspace.file("outcomes.csv"), encoding: .utf8)
    let last = csv.split(separator: "\n").filter { $0.hasPrefix("2026-11-14,") }.map {
      $0.split(separator: ",")
    }
    let arms = try XCTUnwrap(object["arms"] as? [String: [String: Any]])
    for row in last where row[3] != "72" {
      let arm = try XCTUnwrap(arms[String(row[3])])
      XCTAssertEqual(arm["devices"] as? Int, Int(row[4]))
      XCTAssertEqual(arm["conversions"] as? Int, Int(row[5]))
      XCTAssertEqual(
        try XCTUnwrap(arm["rate"] as? Double), Double(row[5])! / Double(row[4])!, accuracy: 1e-12)
    }
    for key in ["relative"] {
      let bounds = try XCTUnwrap(object[key] as? [String: Any])
      let (low, estimate, high) = (
        try XCTUnwrap(bounds["low"] as? Double), try XCTUnwrap(bounds["estimate"] as? Double),
        try XCTUnwrap(bounds["high"] as? Double)
      )
      XCTAssertLessThanOrEqual(low, estimate, key)
      XCTAssertLessThan(high, 0, "\(key): a rollback's interval lies below 0")
      XCTAssertEqual(bounds["estimateOutsideInterval"] as? Bool, estimate > high, key)
      XCTAssertEqual(bounds["emptyIntersection"] as? Bool, false, key)
    }
  }

  func testReportWritesAChartThatParsesAsXMLAndTheStepSummary() throws {
    let (workspace, clock) = try rolledOut()
    try write(OutcomesSimulation(challengerRate: 0.04, start: start, seed: 7), in: workspace)
    let summary = workspace.file("step-summary.md")
    try "earlier step\n".write(to: summary, atomically: true, encoding: .utf8)
    let result = run(
      ["ota", "evaluate", "--outcomes", "outcomes.csv", "--report", "report"], in: workspace, clock: clock,
      environment: ["GITHUB_STEP_SUMMARY": summary.path])
    XCTAssertEqual(result.code, 0, result.all)
    let report = workspace.file("report")
    let files = try FileManager.default.contentsOfDirectory(atPath: report.path).sorted()
    XCTAssertEqual(
      files,
      [
        "acme-onboarding_upsell-74-vs-73.md", "acme-onboarding_upsell-74-vs-73.svg", "index.html",
        "summary.md",
      ])
    let page = try String(contentsOf: report.appendingPathComponent("index.html"), encoding: .utf8)
    XCTAssertTrue(page.contains("<td>onboarding_upsell</td>") && page.contains("<svg"), page)
    let parser = XMLParser(data: try Data(contentsOf: report.appendingPathComponent(files[1])))
    XCTAssertTrue(parser.parse(), "\(parser.parserError.map { "\($0)" } ?? "")")
    let table = try String(contentsOf: report.appendingPathComponent("summary.md"), encoding: .utf8)
    XCTAssertTrue(table.contains("| **rollback"), table)
    let stepSummary = try String(contentsOf: summary, encoding: .utf8)
    XCTAssertTrue(stepSummary.hasPrefix("earlier step\n"), "appended, not replaced")
    XCTAssertTrue(stepSummary.hasSuffix(table), stepSummary)
  }

  func testRevenueMarginDefaultsToTheMarginAndIsOverridden() throws {
    let workspace = try Workspace()
    let config = workspace.file("release.config.json")
    try #"{"rollouts": {"margin": 0.04, "customers": {"acme": {"revenueMargin": 0.07}}}}"#
      .write(to: config, atomically: true, encoding: .utf8)
    let services = Services(
      processRunner: SystemProcessRunner(), clock: SettableClock("2026-11-01"), root: workspace.root,
      environment: [:], output: CapturedOutput())
    let policies = try XCTUnwrap(
      try ReleaseConfiguration.load(explicitPath: nil, services: services).rollouts)
    XCTAssertEqual(policies.policy(for: "acme").revenueMargin, 0.07)
    XCTAssertEqual(policies.policy(for: "acme").margin, 0.04)
    XCTAssertNil(policies.policy(for: "globex").revenueMargin, "nil: the margin applies")
  }

  func testPolicyFromTheConfigurationWithPerCustomerOverrides() throws {
    let (workspace, clock) = try rolledOut()
    try write(OutcomesSimulation(challengerRate: 0.06, start: start, seed: 11), in: workspace)
    let config = workspace.file("release.config.json")
    // acme needs more conversions than the export has: no decision yet.
    try #"{"rollouts": {"schedule": [10, 50, 100], "customers": {"acme": {"minimumConversions": 1000000}}}}"#
      .write(to: config, atomically: true, encoding: .utf8)
    let strict = run(
      ["ota", "evaluate", "--outcomes", "outcomes.csv", "--apply"], in: workspace, clock: clock)
    XCTAssertEqual(strict.code, 0, strict.all)
    XCTAssertTrue(strict.standardOutput.contains { $0.hasPrefix("  decision     continue") }, strict.all)
    XCTAssertEqual(try offer(workspace, 74)["rolloutPercent"] as? Int, 10)
    // The top level's schedule: a promote goes from 10 to 50.
    try
      #"{"rollouts": {"margin": 0.05, "schedule": [10, 50, 100], "customers": {"acme": {"minimumConversions": 50}}}}"#
      .write(to: config, atomically: true, encoding: .utf8)
    let promoted = run(
      ["ota", "evaluate", "--outcomes", "outcomes.csv", "--apply"], in: workspace, clock: clock)
    XCTAssertEqual(promoted.code, 0, promoted.all)
    XCTAssertEqual(try offer(workspace, 74)["rolloutPercent"] as? Int, 50)

    // Every problem of the section, each with its path; unknown keys refused.
    try """
    {"rollouts": {"margn": 0.02, "minimumConversions": 0, "schedule": [50, 25],
      "customers": {"acme": {"margin": 1.5, "speed": 2, "revenueMargin": -1}, "nobody": {}}}}
    """.write(to: config, atomically: true, encoding: .utf8)
    let before = Workspace.snapshot(workspace.root)
    let bad = run(["ota", "evaluate", "--outcomes", "outcomes.csv", "--apply"], in: workspace, clock: clock)
    XCTAssertEqual(bad.code, 2, bad.all)
    for fragment in [
      "rollouts.margn: unknown key (did you mean \"margin\"?)", "rollouts.minimumConversions",
      "rollouts.schedule", "rollouts.customers.acme.margin", "rollouts.customers.acme.speed",
      "rollouts.customers.acme.revenueMargin",
    ] {
      XCTAssertTrue(bad.standardError.contains { $0.contains(fragment) }, "\(fragment): \(bad.all)")
    }
    XCTAssertEqual(Workspace.snapshot(workspace.root), before)
    try #"{"rollouts": {"customers": {"nobody": {"margin": 0.01}}}}"#.write(
      to: config, atomically: true, encoding: .utf8)
    let unknown = run(["ota", "evaluate", "--outcomes", "outcomes.csv"], in: workspace, clock: clock)
    XCTAssertEqual(unknown.code, 2, unknown.all)
    XCTAssertTrue(unknown.all.contains("rollouts.customers.nobody"), unknown.all)
  }

  /// The docs' walkthrough files, docs/examples/outcomes-{worse,better}.csv, are this
  /// simulation's output (`UPDATE_SAMPLES=1` rewrites them), and judged as the walkthrough says:
  /// the worse one is rolled back, the better one promoted.
  func testTheSampleOutcomesAreTheSimulationsAndJudgedAsTheDocsSay() throws {
    let samples: [(String, OutcomesSimulation, String)] = [
      (
        "outcomes-worse.csv",
        OutcomesSimulation(challengerRate: 0.04, start: start, seed: 20, otherVersion: 72), "rollback"
      ),
      ("outcomes-better.csv", OutcomesSimulation(challengerRate: 0.06, start: start, seed: 21), "promote"),
    ]
    for (name, simulation, decision) in samples {
      let file = RepositoryRoot.url.appendingPathComponent("docs/examples/\(name)")
      if ProcessInfo.processInfo.environment["UPDATE_SAMPLES"] == "1" {
        try FileManager.default.createDirectory(
          at: file.deletingLastPathComponent(), withIntermediateDirectories: true)
        try simulation.csv().write(to: file, atomically: true, encoding: .utf8)
      }
      XCTAssertEqual(
        try String(contentsOf: file, encoding: .utf8), simulation.csv(),
        "\(name) is stale: UPDATE_SAMPLES=1 swift test --filter EvaluateCommandTests/testTheSample")
      let (workspace, clock) = try rolledOut()
      let result = run(
        ["ota", "evaluate", "acme", "--outcomes", file.path, "--since", "2026-11-01", "--json"],
        in: workspace,
        clock: clock)
      XCTAssertEqual(result.code, 0, result.all)
      XCTAssertTrue(result.standardOutput.first?.contains("\"decision\":\"\(decision)\"") == true, result.all)
    }
  }

  /// Issue 20's end to end, in process: a challenger at 10 %, a worse export evaluated with
  /// `--apply --publish`, and the published manifest (read back from the destination) no
  /// longer offers it.
  func testAWorseChallengerEvaluatedWithApplyAndPublishIsNoLongerOffered() throws {
    let (workspace, clock) = try rolledOut()
    try write(OutcomesSimulation(challengerRate: 0.04, start: start, seed: 7), in: workspace)
    let published = workspace.file("published")
    let first = run(["ota", "publish", "--publish", "dir:published"], in: workspace, clock: clock)
    XCTAssertEqual(first.code, 0, first.all)
    func offers() throws -> [[String: Any]] {
      let manifest = try XCTUnwrap(
        JSONSerialization.jsonObject(
          with: Data(contentsOf: published.appendingPathComponent("ota/acme/models.json"))) as? [String: Any])
      let flows = try XCTUnwrap(manifest["flows"] as? [String: Any])
      return try XCTUnwrap((flows["onboarding_upsell"] as? [String: Any])?["models"] as? [[String: Any]])
    }
    XCTAssertEqual(try offers().first { $0["modelVersion"] as? Int == 74 }?["status"] as? String, "active")

    let result = run(
      ["ota", "evaluate", "--outcomes", "outcomes.csv", "--apply", "--publish", "dir:published"],
      in: workspace,
      clock: clock)
    XCTAssertEqual(result.code, 0, result.all)
    let offered = try offers().filter { $0["status"] as? String == "active" }.compactMap {
      $0["modelVersion"] as? Int
    }
    let all = try offers()
    XCTAssertFalse(offered.contains(74), "published: \(all)")
  }
}

/// Ramp steps through the commands: each `rollout --percent` is a split in rollouts.json, and an
/// export that restarts its counts at each `splitStart` is judged on all of them.
extension EvaluateCommandTests {
  func testAChallengerRampedThroughThreeStepsKeepsEveryStepsEvidence() throws {
    let workspace = try Workspace()
    let clock = SettableClock("2026-11-01")
    for (day, percent) in [("2026-11-01", "10"), ("2026-11-05", "25"), ("2026-11-09", "50")] {
      clock.set(day)
      let step = run(
        ["rollout", "acme", "onboarding_upsell", "74", "--percent", percent], in: workspace, clock: clock)
      XCTAssertEqual(step.code, 0, step.all)
    }
    let splits = try XCTUnwrap(try offer(workspace, 74)["splits"] as? [[String: Any]])
    XCTAssertEqual(splits.map { $0["percent"] as? Int }, [10, 25, 50])
    // Equal arms, 20,000 new devices a day, each step's exact share; counts restart at each step.
    var lines = ["date,customer,flow,modelVersion,devices,conversions,splitStart"]
    let steps = [
      (OutcomeDate("2026-11-01")!, 0.10), (OutcomeDate("2026-11-05")!, 0.25),
      (OutcomeDate("2026-11-09")!, 0.5),
    ]
    for (index, (since, share)) in steps.enumerated() {
      let days = index < 2 ? 4 : 3
      for day in 0..<days {
        let challenger = Int(20_000 * share) * (day + 1)
        let baseline = 20_000 * (day + 1) - challenger
        let date = since.adding(days: day)
        lines.append("\(date),acme,onboarding_upsell,74,\(challenger),\(challenger / 20),\(since)")
        lines.append("\(date),acme,onboarding_upsell,73,\(baseline),\(baseline / 20),\(since)")
      }
    }
    try (lines.joined(separator: "\n") + "\n").write(
      to: workspace.file("outcomes.csv"), atomically: true, encoding: .utf8)
    clock.set("2026-11-12")
    let result = run(
      ["ota", "evaluate", "--outcomes", "outcomes.csv", "--json"], in: workspace, clock: clock)
    XCTAssertEqual(result.code, 0, result.all)
    let line = try XCTUnwrap(result.standardOutput.first)
    let object = try XCTUnwrap(try JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any])
    XCTAssertEqual(object["strata"] as? Int, 3)
    XCTAssertEqual(object["srm"] as? Bool, false)
    XCTAssertEqual(object["decision"] as? String, "continue")
    let arms = try XCTUnwrap(object["arms"] as? [String: [String: Any]])
    XCTAssertEqual(arms["74"]?["devices"] as? Int, 2_000 * 4 + 5_000 * 4 + 10_000 * 3)
  }

  /// The device rule's precedence: the higher version takes its percentage first.
  func testTwoChallengersExpectedSharesFollowTheDeviceRule() throws {
    let since = OutcomeDate("2026-11-01")!
    func offer(_ version: Int, _ percent: Int) -> RolloutState.Offer {
      RolloutState.Offer(
        modelVersion: version, rolloutPercent: percent, status: .active,
        salt: "00112233445566778899aabbccddeeff",
        since: since)
    }
    let flow = RolloutState.Flow(paused: false, models: [offer(74, 10), offer(75, 10)])
    let lower = SplitShares.periods(flow, challenger: 74, baseline: 73, bundledVersion: 73)
    let higher = SplitShares.periods(flow, challenger: 75, baseline: 73, bundledVersion: 73)
    // v75 takes 10 %; v74 10 % of the other 90 % (9 %); the bundled v73 the remaining 81 %.
    XCTAssertEqual(try XCTUnwrap(lower.last).share, 0.09 / (0.09 + 0.81), accuracy: 1e-12)
    XCTAssertEqual(try XCTUnwrap(higher.last).share, 0.10 / (0.10 + 0.81), accuracy: 1e-12)
    XCTAssertEqual(lower.map(\.since), [since])
  }
}
