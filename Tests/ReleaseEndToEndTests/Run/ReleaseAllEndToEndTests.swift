import Foundation
import ReleaseCLITestSupport
import ReleaseSystem
import ReleaseTestSupport
import XCTest

@testable import ReleaseCore

/// The SDK version a customer's first release takes (the repository's).
private let firstVersion = Workspace.sdkVersion()
/// The release after a customer's first when only its models or entry changed.
private let nextPatch = Workspace.sdkVersion(plusPatches: 1)

#if canImport(FoundationXML)
  import FoundationXML
#endif

/// `release all` as CI runs it: skip decisions, re-releasing only what a change touches,
/// failure isolation, and the machine-readable outputs.
final class ReleaseAllEndToEndTests: XCTestCase {
  /// acme and ember share onboarding_upsell v73; bluebird alone uses v72.
  static let manifest = """
    [
      {"id": "acme", "bundle_identifiers": ["com.acme.fitness"], "app_id": "3f2b8c1e-6d4a-4e9b-9a51-0c7d2e8f4a10",
       "customModels": [{"flowId": 8362, "flowName": "onboarding_upsell", "modelVersion": 73}]},
      {"id": "bluebird", "bundle_identifiers": ["com.bluebird.notes"], "app_id": "a91c44d2-0b7e-4c3f-8d26-5e1f9b0a7c33",
       "customModels": [{"flowId": 8362, "flowName": "onboarding_upsell", "modelVersion": 72}]},
      {"id": "ember", "bundle_identifiers": ["app.ember.meditate"], "app_id": "0e6b2d9f-4c7a-4b1e-8f3d-a5c9e1b7d062",
       "customModels": [{"flowId": 8362, "flowName": "onboarding_upsell", "modelVersion": 73},
                        {"flowId": 8365, "flowName": "rating_request", "modelVersion": 30}]}
    ]
    """

  func events(_ run: Workspace.Run) throws -> [[String: Any]] {
    try run.standardOutput.map { line in
      try XCTUnwrap(JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any], line)
    }
  }

  func statuses(_ run: Workspace.Run) throws -> [String: String] {
    let summary = try XCTUnwrap(try events(run).last { $0["event"] as? String == "summary" })
    let customers = try XCTUnwrap(summary["customers"] as? [[String: Any]])
    return Dictionary(
      uniqueKeysWithValues: customers.map { ($0["id"] as! String, "\($0["version"]!) \($0["status"]!)") })
  }

  func testSkipsWhatIsUpToDateAndRereleasesOnlyWhatAChangeTouches() throws {
    let workspace = try Workspace(manifest: Self.manifest)
    let all = { try workspace.runWithoutCompiling(["all", "--json", "--skip-tests"]) }
    let cold = try all()
    XCTAssertEqual(cold.exitCode, 0, cold.allOutput)
    XCTAssertEqual(
      try statuses(cold),
      [
        "acme": "\(firstVersion) built", "bluebird": "\(firstVersion) built",
        "ember": "\(firstVersion) built",
      ])

    // Unchanged: nothing is rebuilt and dist/ keeps its bytes.
    let before = Workspace.snapshot(workspace.dist).filter {
      $0.key.hasSuffix(".zip") || $0.key.hasSuffix(".json")
    }
    let rerun = try all()
    XCTAssertEqual(rerun.exitCode, 0, rerun.allOutput)
    XCTAssertEqual(
      try statuses(rerun),
      [
        "acme": "\(firstVersion) up to date", "bluebird": "\(firstVersion) up to date",
        "ember": "\(firstVersion) up to date",
      ])
    // Each up-to-date customer has its own event, with the artifact it stands for.
    let skipped = try events(rerun).filter { $0["event"] as? String == "customer_skipped" }
    XCTAssertEqual(skipped.map { $0["id"] as? String }, ["acme", "bluebird", "ember"])
    XCTAssertEqual(
      skipped.map { $0["artifact"] as? String },
      [
        "dist/acme/\(firstVersion)/ContextSDK_Acme-\(firstVersion).zip",
        "dist/bluebird/\(firstVersion)/ContextSDK_Bluebird-\(firstVersion).zip",
        "dist/ember/\(firstVersion)/ContextSDK_Ember-\(firstVersion).zip",
      ])
    XCTAssertFalse(try events(rerun).contains { $0["event"] as? String == "customer_started" })
    XCTAssertEqual(
      Workspace.snapshot(workspace.dist).filter { $0.key.hasSuffix(".zip") || $0.key.hasSuffix(".json") },
      before)

    // bluebird's model changes: the dry run says why, and writes nothing.
    try ModelFiles.touchModel(workspace.file("models/onboarding_upsell/72.mlmodel"))
    let plan = workspace.run(["all", "--json", "--dry-run"])
    XCTAssertEqual(plan.exitCode, 0, plan.allOutput)
    let planned = try XCTUnwrap(
      try events(plan).first { $0["event"] as? String == "plan" }?["customers"] as? [[String: String]])
    XCTAssertEqual(planned.map { $0["action"] }, ["up to date", "build", "up to date"])
    XCTAssertEqual(planned[1]["version"], "\(nextPatch)")
    XCTAssertTrue(planned[1]["reason"]?.contains("model onboarding_upsell v72") == true, "\(planned[1])")
    XCTAssertEqual(
      Workspace.snapshot(workspace.dist).filter { $0.key.hasSuffix(".zip") || $0.key.hasSuffix(".json") },
      before)

    // The real run re-releases bluebird alone, with the next patch version.
    let changed = try all()
    XCTAssertEqual(changed.exitCode, 0, changed.allOutput)
    XCTAssertEqual(
      try statuses(changed),
      [
        "acme": "\(firstVersion) up to date", "bluebird": "\(nextPatch) built",
        "ember": "\(firstVersion) up to date",
      ])
    let state = try ReleaseState.load(from: workspace.file("release-state.json"), displayPath: "state")
    XCTAssertEqual(
      state.customers.mapValues(\.version.description),
      ["acme": "\(firstVersion)", "bluebird": "\(nextPatch)", "ember": "\(firstVersion)"])
    // The earlier version stays as it was: versions are immutable.
    XCTAssertTrue(
      FileManager.default.fileExists(
        atPath: workspace.dist.appendingPathComponent("bluebird/\(firstVersion)/release.json").path))
  }

  func testOneFailingCustomerDoesNotStopTheOthersAndNothingOfItIsWritten() throws {
    let workspace = try Workspace(manifest: Self.manifest)
    // Core ML specification version 7: the tool accepts it, but the SDK supports at most 5, so
    // bluebird's generated package fails its own `swift test`.
    let model = workspace.file("models/onboarding_upsell/72.mlmodel")
    var bytes = try Data(contentsOf: model)
    XCTAssertEqual(
      Array(bytes.prefix(1)), [0x08], "a Core ML model starts with field 1 (specificationVersion)")
    bytes[1] = 7
    try bytes.write(to: model)

    let run = workspace.run(["all", "--json", "--jobs", "2"], environment: ["GITHUB_ACTIONS": "false"])
    XCTAssertEqual(run.exitCode, 1, run.allOutput)
    XCTAssertEqual(
      try statuses(run),
      [
        "acme": "\(firstVersion) built", "bluebird": "\(firstVersion) failed",
        "ember": "\(firstVersion) built",
      ])
    let failed = try XCTUnwrap(try events(run).first { $0["event"] as? String == "customer_failed" })
    XCTAssertEqual(failed["failed_step"] as? String, "build and test")
    XCTAssertEqual(failed["log"] as? String, "dist/logs/bluebird.log")
    XCTAssertTrue(
      try String(contentsOf: workspace.file("dist/logs/bluebird.log"), encoding: .utf8).contains("error"))

    // Nothing of bluebird under a final name; the others are complete; versions not recorded.
    XCTAssertFalse(
      FileManager.default.fileExists(atPath: workspace.dist.appendingPathComponent("bluebird").path))
    XCTAssertTrue(
      FileManager.default.fileExists(
        atPath: workspace.dist.appendingPathComponent("acme/\(firstVersion)/release.json").path))
    let state = try ReleaseState.load(from: workspace.file("release-state.json"), displayPath: "state")
    XCTAssertEqual(state.customers, [:])

    // JUnit: one case per customer, bluebird's a failure with its log tail.
    let report = try XMLDocument(contentsOf: workspace.file("dist/report.xml"))
    XCTAssertEqual(try report.nodes(forXPath: "//testcase").count, 3)
    let failure = try XCTUnwrap(
      try report.nodes(forXPath: "//testcase[@name='bluebird \(firstVersion)']/failure").first)
    XCTAssertFalse((failure.stringValue ?? "").isEmpty)
  }

  func testManifestErrorsBecomeGitHubAnnotationsWithLines() throws {
    let broken = Self.manifest.replacingOccurrences(
      of: "a91c44d2-0b7e-4c3f-8d26-5e1f9b0a7c33", with: "not-a-uuid")
    let workspace = try Workspace(manifest: broken)
    let lineOfError =
      broken.split(separator: "\n", omittingEmptySubsequences: false)
      .firstIndex { $0.contains("not-a-uuid") }! + 1
    let summary = workspace.file("summary.md")
    let run = workspace.run(
      ["all"], environment: ["GITHUB_ACTIONS": "true", "GITHUB_STEP_SUMMARY": summary.path])
    XCTAssertEqual(run.exitCode, 2)
    let annotation = try XCTUnwrap(run.standardOutput.first { $0.hasPrefix("::error ") }, run.allOutput)
    XCTAssertTrue(
      annotation.hasPrefix(
        "::error file=customers.json,line=\(lineOfError)::customers.json: customers[1].app_id:"), annotation)
    XCTAssertFalse(FileManager.default.fileExists(atPath: workspace.dist.path))

    // With --json, stdout stays one JSON object per line: the annotations go to stderr.
    let json = workspace.run(
      ["all", "--json"], environment: ["GITHUB_ACTIONS": "true", "GITHUB_STEP_SUMMARY": summary.path])
    XCTAssertEqual(json.exitCode, 2)
    XCTAssertFalse(json.standardOutput.isEmpty)
    for line in json.standardOutput {
      XCTAssertNotNil(try? JSONSerialization.jsonObject(with: Data(line.utf8)), "not JSON on stdout: \(line)")
    }
    XCTAssertTrue(
      json.standardError.contains { $0.hasPrefix("::error file=customers.json,line=\(lineOfError)::") },
      json.allOutput)
  }

  /// Which input forces a rebuild, as the dry run's plan says it: `--force`, another archive
  /// time (`SOURCE_DATE_EPOCH`, same version: it is not a source change), a template change
  /// (a new version for everyone). And the GitHub Actions log groups of a real run.
  func testEachRebuildReasonIsNamedAndBuildLogsAreGrouped() throws {
    let workspace = try Workspace(manifest: Self.manifest)
    let summary = workspace.file("summary.md")
    let cold = try workspace.runWithoutCompiling(
      ["customer", "acme", "bluebird", "--skip-tests"],
      environment: ["GITHUB_ACTIONS": "true", "GITHUB_STEP_SUMMARY": summary.path])
    XCTAssertEqual(cold.exitCode, 0, cold.allOutput)
    // One compile key (the same features): under --skip-tests one of them is built and the
    // other's log says whose build covered it.
    var logs: [[String]] = []
    for id in ["acme", "bluebird"] {
      let start = try XCTUnwrap(
        cold.standardOutput.firstIndex { $0 == "::group::\(id) \(firstVersion) build log (built)" },
        cold.allOutput)
      let end = try XCTUnwrap(cold.standardOutput[start...].firstIndex { $0 == "::endgroup::" })
      logs.append(Array(cold.standardOutput[start..<end]))
    }
    let built = logs.filter { $0.contains { $0.contains("Compiling") || $0.contains("Build complete") } }
    let covered = logs.filter { $0.contains { $0.contains("No swift build: compile key") } }
    XCTAssertEqual([built.count, covered.count], [1, 1], cold.allOutput)
    XCTAssertTrue(try String(contentsOf: summary, encoding: .utf8).contains("| acme |"))

    func plan(_ extra: [String], environment: [String: String] = [:]) throws -> [[String: String]] {
      let run = workspace.run(
        ["customer", "acme", "bluebird", "--json", "--dry-run"] + extra, environment: environment)
      XCTAssertEqual(run.exitCode, 0, run.allOutput)
      return try XCTUnwrap(
        try events(run).first { $0["event"] as? String == "plan" }?["customers"] as? [[String: String]])
    }
    XCTAssertEqual(try plan([]).map { $0["action"] }, ["up to date", "up to date"])
    for customer in try plan(["--force"]) {
      XCTAssertEqual(customer["action"], "build")
      XCTAssertTrue(customer["reason"]?.hasSuffix("; --force") == true, "\(customer)")
    }
    for customer in try plan([], environment: ["SOURCE_DATE_EPOCH": "1600000000"]) {
      XCTAssertEqual(customer["action"], "build")
      XCTAssertEqual(customer["version"], "\(firstVersion)", "an archive time is not a new version")
      XCTAssertTrue(customer["reason"]?.contains("archive time (SOURCE_DATE_EPOCH)") == true, "\(customer)")
    }
    // The cold run recorded the SDK version in the state file; a template change gives every customer
    // a new version, because of the template.
    let core = workspace.file("templates/ContextSDK/Sources/ContextSDKCore/FlowModel.swift")
    try (try String(contentsOf: core, encoding: .utf8) + "\n// changed by test\n").write(
      to: core, atomically: true, encoding: .utf8)
    for customer in try plan([]) {
      XCTAssertEqual(customer["action"], "build")
      XCTAssertEqual(customer["version"], "\(nextPatch)")
      XCTAssertTrue(
        customer["reason"]?.hasPrefix("changed since \(firstVersion): template") == true, "\(customer)")
    }
  }
}
