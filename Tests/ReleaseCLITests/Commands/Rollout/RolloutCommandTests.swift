import Foundation
import ReleaseSystem
import ReleaseTestSupport
import XCTest

@testable import ReleaseCLI
@testable import ReleaseCore

/// `release rollout`, `pause`, `rollback` and `ota status` on a workspace copy of the project:
/// what each does to `rollouts.json`, and every refusal with its one line, exit 2 and nothing
/// written.
final class RolloutCommandTests: XCTestCase {
  struct CLIRun {
    var code: Int32
    var standardOutput: [String]
    var standardError: [String]
    var all: String { (standardOutput + standardError).joined(separator: "\n") }
  }

  func run(_ arguments: [String], in workspace: Workspace) -> CLIRun {
    let output = CapturedOutput()
    let services = Services(
      processRunner: SystemProcessRunner(), clock: ManualClock(), root: workspace.root,
      environment: ProcessInfo.processInfo.environment.merging(["CI": "true"]) { $1 }, output: output)
    let code = CommandLineInterface.main(arguments: arguments, services: services)
    return CLIRun(code: code, standardOutput: output.standardOutput, standardError: output.standardError)
  }

  func rollouts(_ workspace: Workspace) throws -> [String: Any] {
    try XCTUnwrap(
      JSONSerialization.jsonObject(with: Data(contentsOf: workspace.file("rollouts.json"))) as? [String: Any])
  }

  /// `customers.acme.onboarding_upsell` of rollouts.json, as plain values.
  func flow(_ workspace: Workspace, _ customer: String, _ flowName: String) throws -> [String: Any] {
    let customers = try XCTUnwrap(try rollouts(workspace)["customers"] as? [String: Any])
    let flows = try XCTUnwrap(customers[customer] as? [String: Any], customer)
    return try XCTUnwrap(flows[flowName] as? [String: Any], flowName)
  }

  func testRolloutPercentageChangePauseResumeAndRollbackEditTheStateFile() throws {
    let workspace = try Workspace()
    let first = run(["rollout", "acme", "onboarding_upsell", "74", "--percent", "10"], in: workspace)
    XCTAssertEqual(first.code, 0, first.all)
    XCTAssertTrue(first.standardOutput.joined(separator: "\n").contains("+++ b/rollouts.json"), first.all)
    var upsell = try flow(workspace, "acme", "onboarding_upsell")
    XCTAssertEqual(upsell["paused"] as? Bool, false)
    var offers = try XCTUnwrap(upsell["models"] as? [[String: Any]])
    XCTAssertEqual(offers.count, 1)
    XCTAssertEqual(offers[0]["modelVersion"] as? Int, 74)
    XCTAssertEqual(offers[0]["rolloutPercent"] as? Int, 10)
    XCTAssertEqual(offers[0]["status"] as? String, "active")
    let salt = try XCTUnwrap(offers[0]["salt"] as? String)
    XCTAssertEqual(salt.count, 32)
    XCTAssertTrue(salt.allSatisfy { $0.isHexDigit && !$0.isUppercase }, salt)

    // A new percentage keeps the salt, so raising it only adds devices.
    XCTAssertEqual(
      run(["rollout", "acme", "onboarding_upsell", "74", "--percent", "50"], in: workspace).code, 0)
    offers = try XCTUnwrap(try flow(workspace, "acme", "onboarding_upsell")["models"] as? [[String: Any]])
    XCTAssertEqual(offers[0]["rolloutPercent"] as? Int, 50)
    XCTAssertEqual(offers[0]["salt"] as? String, salt)

    XCTAssertEqual(run(["pause", "acme", "onboarding_upsell"], in: workspace).code, 0)
    upsell = try flow(workspace, "acme", "onboarding_upsell")
    XCTAssertEqual(upsell["paused"] as? Bool, true)
    XCTAssertEqual((upsell["models"] as? [[String: Any]])?.first?["status"] as? String, "paused")
    let again = run(["pause", "acme", "onboarding_upsell"], in: workspace)
    XCTAssertEqual(again.code, 0)
    XCTAssertTrue(again.standardError.joined().contains("already so"), again.all)

    // Rolling out again resumes the flow.
    XCTAssertEqual(
      run(["rollout", "acme", "onboarding_upsell", "74", "--percent", "50"], in: workspace).code, 0)
    upsell = try flow(workspace, "acme", "onboarding_upsell")
    XCTAssertEqual(upsell["paused"] as? Bool, false)
    XCTAssertEqual((upsell["models"] as? [[String: Any]])?.first?["status"] as? String, "active")

    XCTAssertEqual(run(["rollback", "acme", "onboarding_upsell", "74"], in: workspace).code, 0)
    offers = try XCTUnwrap(try flow(workspace, "acme", "onboarding_upsell")["models"] as? [[String: Any]])
    XCTAssertEqual(offers[0]["status"] as? String, "retracted")
    XCTAssertEqual(offers[0]["rolloutPercent"] as? Int, 0)

    let status = run(["ota", "status", "acme"], in: workspace)
    XCTAssertEqual(status.code, 0, status.all)
    XCTAssertEqual(status.standardOutput.count, 3, status.all)
    let row = status.standardOutput[1].split(separator: " ", omittingEmptySubsequences: true).map(String.init)
    XCTAssertEqual(row, ["acme", "onboarding_upsell", "v73", "v74", "0%", "retracted", "1.0.0"])
  }

  func testDryRunPrintsTheDiffAndWritesNothing() throws {
    let workspace = try Workspace()
    let before = Workspace.snapshot(workspace.root)
    let preview = run(
      ["rollout", "acme", "onboarding_upsell", "74", "--percent", "10", "--dry-run"], in: workspace)
    XCTAssertEqual(preview.code, 0, preview.all)
    XCTAssertTrue(
      preview.standardOutput.joined(separator: "\n").contains("+            \"rolloutPercent\" : 10,"),
      preview.all)
    XCTAssertEqual(
      preview.standardError,
      ["dry run: acme: onboarding_upsell v74 offered to 10% of devices; rollouts.json not written"])
    XCTAssertEqual(Workspace.snapshot(workspace.root), before)
  }

  func testDryRunOfPauseAndRollbackPrintsTheDiffAndWritesNothing() throws {
    let workspace = try Workspace()
    XCTAssertEqual(
      run(["rollout", "acme", "onboarding_upsell", "74", "--percent", "10"], in: workspace).code, 0)
    let before = Workspace.snapshot(workspace.root)
    let cases: [([String], String, String)] = [
      (
        ["pause", "acme", "onboarding_upsell", "--dry-run"], "+        \"paused\" : true",
        "dry run: acme: onboarding_upsell paused; devices download nothing new and keep what they run; rollouts.json not written"
      ),
      (
        ["rollback", "acme", "onboarding_upsell", "74", "--dry-run"],
        "+            \"status\" : \"retracted\"",
        "dry run: acme: onboarding_upsell v74 retracted; devices that downloaded it delete it; rollouts.json not written"
      ),
    ]
    for (arguments, changedLine, summary) in cases {
      let preview = run(arguments, in: workspace)
      XCTAssertEqual(preview.code, 0, preview.all)
      let diff = preview.standardOutput.joined(separator: "\n").split(separator: "\n").map(String.init)
      XCTAssertTrue(diff.contains(changedLine), "\(arguments): \(preview.all)")
      XCTAssertTrue(diff.contains("+++ b/rollouts.json"), preview.all)
      XCTAssertEqual(preview.standardError, [summary])
      XCTAssertEqual(Workspace.snapshot(workspace.root), before, "\(arguments): nothing written")
    }
  }

  func testBadInputIsRefusedWithOneLineExitTwoAndNothingWritten() throws {
    let workspace = try Workspace()
    // An earlier rollout and rollback, so the refusals that depend on the state have one.
    XCTAssertEqual(
      run(["rollout", "ember", "onboarding_upsell", "74", "--percent", "10"], in: workspace).code, 0)
    XCTAssertEqual(run(["rollback", "ember", "onboarding_upsell", "74"], in: workspace).code, 0)
    let ids = "acme, bluebird, cobalt, driftwood, ember, fjord-travel, harbor"
    let sdkVersion = try ReleaseState.load(
      from: workspace.file("release-state.json"), displayPath: "release-state.json"
    ).sdkVersion
    let cases: [([String], String)] = [
      (
        ["rollout", "acme", "tracking_permission", "5", "--percent", "10"],
        "rollout acme tracking_permission 5: acme has no tracking_permission model in customers.json (its flows: onboarding_upsell, paywall_timing); a customer only gets models of its own flows"
      ),
      (
        ["rollout", "acm", "onboarding_upsell", "74", "--percent", "10"],
        "rollout: customer \"acm\" is not in customers.json (did you mean \"acme\"?); expected one of: \(ids)"
      ),
      (
        ["rollout", "acme", "onboarding_upsell", "99", "--percent", "10"],
        "models/onboarding_upsell/99.mlmodel: no such model; onboarding_upsell has versions 72, 73, 74"
      ),
      (
        ["rollout", "acme", "onboarding_upsell", "73", "--percent", "10"],
        "rollout acme onboarding_upsell 73: onboarding_upsell v73 is not above the bundled v73; devices already run v73, offer a newer model"
      ),
      (
        ["rollout", "acme", "paywall_timing", "15", "--percent", "10"],
        "rollout acme paywall_timing 15: paywall_timing v15 needs signal 'battery_level', which ContextSDK \(sdkVersion) does not compute (signals.json: introduced in 3.1.0); no released SDK version can run it"
      ),
      (
        ["rollout", "ember", "onboarding_upsell", "74", "--percent", "10"],
        "rollout ember onboarding_upsell 74: onboarding_upsell v74 was rolled back; a retracted version is never offered again (offer a new version)"
      ),
      (
        ["rollout", "acme", "onboarding_upsell", "74", "--percent", "101"],
        "--percent: expected a whole number from 0 to 100, found \"101\""
      ),
      (
        ["rollout", "acme", "onboarding_upsell", "74", "--percent", "-1"],
        "--percent: expected a whole number from 0 to 100, found \"-1\""
      ),
      (
        ["rollout", "acme", "onboarding_upsell", "74"],
        "rollout: --percent <0-100> is required (the share of devices offered the model)"
      ),
      (
        ["rollout", "acme", "onboarding_upsell", "--percent", "10"],
        "rollout: expected <customer> <flow> <modelVersion>, found \"acme onboarding_upsell\""
      ),
      (
        ["rollout", "acme", "onboarding_upsell", "v74", "--percent", "10"],
        "rollout: modelVersion \"v74\" is not a positive whole number"
      ),
      (
        ["pause", "acme", "onboarding_upsell"],
        "pause acme onboarding_upsell: nothing of onboarding_upsell is offered over the air to acme (see 'release ota status acme')"
      ),
      (
        ["pause", "acme", "rating_request"],
        "pause acme rating_request: acme has no rating_request model in customers.json (its flows: onboarding_upsell, paywall_timing); a customer only gets models of its own flows"
      ),
      (
        ["rollback", "ember", "onboarding_upsell", "75"],
        "rollback ember onboarding_upsell 75: onboarding_upsell v75 is not offered over the air (offered: v74)"
      ),
      (
        ["pause", "acm", "onboarding_upsell"],
        "pause: customer \"acm\" is not in customers.json (did you mean \"acme\"?); expected one of: \(ids)"
      ),
      (
        ["rollback", "zeta", "onboarding_upsell", "74"],
        "rollback: customer \"zeta\" is not in customers.json; expected one of: \(ids)"
      ),
      (
        ["ota", "status", "acm"],
        "ota status: customer \"acm\" is not in customers.json (did you mean \"acme\"?); expected one of: \(ids)"
      ),
      (
        ["rollout", "acme", "no_such_flow", "74", "--percent", "10"],
        "rollout acme no_such_flow 74: acme has no no_such_flow model in customers.json (its flows: onboarding_upsell, paywall_timing); a customer only gets models of its own flows"
      ),
      (
        ["pause", "acme", "no_such_flow"],
        "pause acme no_such_flow: acme has no no_such_flow model in customers.json (its flows: onboarding_upsell, paywall_timing); a customer only gets models of its own flows"
      ),
      (
        ["rollback", "acme", "no_such_flow", "74"],
        "rollback acme no_such_flow 74: acme has no no_such_flow model in customers.json (its flows: onboarding_upsell, paywall_timing); a customer only gets models of its own flows"
      ),
      (
        ["rollback", "acme", "tracking_permission", "5"],
        "rollback acme tracking_permission 5: acme has no tracking_permission model in customers.json (its flows: onboarding_upsell, paywall_timing); a customer only gets models of its own flows"
      ),
      (
        ["rollback", "acme", "onboarding_upsell", "74"],
        "rollback acme onboarding_upsell 74: onboarding_upsell v74 is not offered over the air (offered: none)"
      ),
      (
        ["ota", "stat"],
        "ota: 'stat' is not a subcommand (did you mean 'status'?); expected status, publish, evaluate, verify or root"
      ),
    ]
    let before = Workspace.snapshot(workspace.root)
    for (arguments, expected) in cases {
      let result = run(arguments, in: workspace)
      XCTAssertEqual(result.code, 2, "\(arguments): \(result.all)")
      XCTAssertEqual(result.standardError, ["error: " + expected], "\(arguments)")
      XCTAssertEqual(result.standardOutput, [], "\(arguments)")
      XCTAssertEqual(Workspace.snapshot(workspace.root), before, "\(arguments): nothing written")
    }
    print("RolloutCommandTests: \(cases.count) refused commands")
  }

  /// A store file copied under another version still says its own version inside: refused as
  /// what it is, not as a model no SDK can run.
  func testAModelWhoseMetadataDisagreesWithItsPlaceIsRefused() throws {
    let workspace = try Workspace()
    try FileManager.default.copyItem(
      at: workspace.file("models/onboarding_upsell/74.mlmodel"),
      to: workspace.file("models/onboarding_upsell/75.mlmodel"))
    let before = Workspace.snapshot(workspace.root)
    let result = run(["rollout", "acme", "onboarding_upsell", "75", "--percent", "10"], in: workspace)
    XCTAssertEqual(result.code, 2, result.all)
    XCTAssertEqual(
      result.standardError,
      [
        #"error: rollout acme onboarding_upsell 75: onboarding_upsell v75 has modelVersion "74" in its metadata; its place in the model store says 75"#
      ])
    XCTAssertEqual(result.standardOutput, [])
    XCTAssertEqual(Workspace.snapshot(workspace.root), before)
  }

  func testABrokenOrStaleRolloutFileIsRefusedWithEveryProblem() throws {
    let workspace = try Workspace()
    try """
    {"customers": {
      "acme": {"onboarding_upsell": {"paused": "no", "models": [
        {"modelVersion": 74, "rolloutPercent": 150, "status": "live", "salt": "XYZ"}]},
               "tracking_permission": {"paused": false, "models": []}},
      "zeta": {"onboarding_upsell": {"paused": false, "models": []}}}}
    """.write(to: workspace.file("rollouts.json"), atomically: true, encoding: .utf8)
    let before = Workspace.snapshot(workspace.root)
    let result = run(["rollout", "acme", "onboarding_upsell", "74", "--percent", "10"], in: workspace)
    XCTAssertEqual(result.code, 2, result.all)
    XCTAssertEqual(
      result.standardError,
      [
        "error: rollouts.json: customers.acme.onboarding_upsell.paused: expected true or false, found string \"no\"",
        "error: rollouts.json: customers.acme.onboarding_upsell.models[0].rolloutPercent: expected a whole number from 0 to 100, found integer 150",
        "error: rollouts.json: customers.acme.onboarding_upsell.models[0].status: expected one of active, paused, retracted, found string \"live\"",
        "error: rollouts.json: customers.acme.onboarding_upsell.models[0].salt: expected 16 to 64 lower-case hex digits, found string \"XYZ\"",
      ])
    XCTAssertEqual(Workspace.snapshot(workspace.root), before)

    // Well formed, but naming a customer and a flow the manifest does not give it.
    try """
    {"customers": {
      "acme": {"tracking_permission": {"paused": false, "models": []}},
      "zeta": {"onboarding_upsell": {"paused": false, "models": []}}}}
    """.write(to: workspace.file("rollouts.json"), atomically: true, encoding: .utf8)
    let stale = run(["ota", "status"], in: workspace)
    XCTAssertEqual(stale.code, 2, stale.all)
    XCTAssertEqual(
      stale.standardError,
      [
        "error: rollouts.json: customers.acme.tracking_permission: acme has no tracking_permission model in customers.json; a customer only gets models of its own flows",
        "error: rollouts.json: customers.zeta: not a customer in customers.json; remove its rollouts",
      ])
  }

  /// Two rollouts at once, each in its own process: the state file's lock and the re-read
  /// under it keep both changes, every time.
  func testConcurrentRolloutsFromTwoProcessesBothSurvive() throws {
    let workspace = try Workspace()
    var environment = ProcessInfo.processInfo.environment
    environment["CI"] = "true"
    for round in 1...5 {
      try? FileManager.default.removeItem(at: workspace.file("rollouts.json"))
      let percent = String(round * 10)
      let first = try RunningBinary(
        ["rollout", "acme", "onboarding_upsell", "74", "--percent", percent], in: workspace.root,
        environment: environment)
      let second = try RunningBinary(
        ["rollout", "ember", "onboarding_upsell", "74", "--percent", percent], in: workspace.root,
        environment: environment)
      let results = [first.wait(timeout: 60), second.wait(timeout: 60)]
      for result in results { XCTAssertEqual(result.exitCode, 0, result.allOutput) }
      for customer in ["acme", "ember"] {
        let offers = try XCTUnwrap(
          try flow(workspace, customer, "onboarding_upsell")["models"] as? [[String: Any]])
        XCTAssertEqual(offers.first?["rolloutPercent"] as? Int, round * 10, "round \(round): \(customer)")
      }
    }
  }
}
