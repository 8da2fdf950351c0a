import Foundation
import ReleaseSystem
import ReleaseTestSupport
import XCTest

@testable import ReleaseCLI
@testable import ReleaseCore

/// Bad input through the whole CLI: every manifest of the corpus, broken model files, a
/// missing or broken state file, unknown customers, bad arguments. Each must exit 2, print
/// exactly its expected lines, start no process (the runner fails the test on any call) and
/// write nothing: the workspace, `dist/` and the cache are byte for byte as before.
final class BadInputCLITests: XCTestCase {
  /// Bad inputs tried by this class, for the report (printed at the end of each test).
  private var tried = 0

  struct CLIRun {
    var code: Int32
    var standardOutput: [String]
    var standardError: [String]
    var runner: ScriptedProcessRunner
    var all: String { (standardOutput + standardError).joined(separator: "\n") }
  }

  /// Runs the CLI in this process on `workspace` with a runner that has no handlers; the cache
  /// is the workspace's default `.release-cache`, so the snapshot covers it too.
  func run(_ arguments: [String], in workspace: Workspace, environment: [String: String] = [:]) -> CLIRun {
    let output = CapturedOutput()
    let runner = ScriptedProcessRunner()
    let services = Services(
      processRunner: runner, clock: ManualClock(), root: workspace.root,
      environment: environment.merging(["CI": "true"]) { $1 }, output: output)
    let code = CommandLineInterface.main(arguments: arguments, services: services)
    return CLIRun(
      code: code, standardOutput: output.standardOutput, standardError: output.standardError, runner: runner)
  }

  /// Runs `arguments` and checks the contract for bad input; `expected` are the error lines
  /// without the `error: ` prefix.
  func assertRefused(
    _ arguments: [String], in workspace: Workspace, expected: [String], json: Bool = false,
    environment: [String: String] = [:], _ label: String,
    file: StaticString = #filePath, line: UInt = #line
  ) {
    tried += 1
    let before = Workspace.snapshot(workspace.root)
    let distExisted = FileManager.default.fileExists(atPath: workspace.dist.path)
    let result = run(arguments + (json ? ["--json"] : []), in: workspace, environment: environment)
    XCTAssertEqual(result.code, 2, "\(label): \(result.all)", file: file, line: line)
    XCTAssertEqual(result.standardError, expected.map { "error: " + $0 }, label, file: file, line: line)
    if json {
      // Every stdout line is an event; the last is the one invalid_input (or error) event and
      // carries the same lines; before it only steps started.
      let events = result.standardOutput.map {
        (try? JSONSerialization.jsonObject(with: Data($0.utf8))) as? [String: Any] ?? [
          "event": "not JSON: \($0)"
        ]
      }
      let names = events.map { $0["event"] as? String ?? "?" }
      XCTAssertEqual(
        names.filter { $0 != "step_started" }.count, 1, "\(label): \(names)", file: file, line: line)
      let event = events.last
      let texts: [String]
      if event?["event"] as? String == "invalid_input" {
        texts = (event?["errors"] as? [[String: Any]] ?? []).compactMap { $0["text"] as? String }
      } else {
        texts = [
          (event?["event"] as? String == "error" ? event?["message"] as? String : nil) ?? "not an error event"
        ]
      }
      XCTAssertEqual(texts, expected, "\(label): \(names)", file: file, line: line)
    } else {
      XCTAssertEqual(result.standardOutput, [], label, file: file, line: line)
    }
    XCTAssertEqual(
      result.runner.invocations.map(\.commandLine), [], "\(label): no process", file: file, line: line)
    XCTAssertEqual(
      Workspace.snapshot(workspace.root), before, "\(label): nothing written", file: file, line: line)
    if !distExisted {
      XCTAssertFalse(
        FileManager.default.fileExists(atPath: workspace.dist.path), "\(label): no dist/", file: file,
        line: line)
    }
    XCTAssertFalse(
      FileManager.default.fileExists(atPath: workspace.file(".release-cache").path), "\(label): no cache",
      file: file, line: line)
  }

  func testEveryCorpusManifestIsRefusedByTheCLIWithItsExpectedLines() throws {
    let folder = FaultFixtures.invalidManifests
    let manifests = try FileManager.default.contentsOfDirectory(at: folder, includingPropertiesForKeys: nil)
      .filter { $0.pathExtension == "json" }.sorted { $0.lastPathComponent < $1.lastPathComponent }
    XCTAssertGreaterThanOrEqual(manifests.count, 25, "the corpus in \(folder.path) has too few cases")
    let workspace = try Workspace()
    for manifest in manifests {
      let name = manifest.deletingPathExtension().lastPathComponent
      let expectation = try String(
        contentsOf: folder.appendingPathComponent(name + ".expected"), encoding: .utf8)
      let expected = FaultFixtures.expectedLines(expectation)
      XCTAssertFalse(expected.isEmpty, "\(name).expected lists nothing")
      // Byte for byte: some cases are not UTF-8 or not text at all.
      try Data(contentsOf: manifest).write(to: workspace.file("customers.json"))
      assertRefused(["all"], in: workspace, expected: expected, name)
      assertRefused(["all"], in: workspace, expected: expected, json: true, name + " --json")
    }
    // Again over a dist/ that holds an earlier run's release and report: neither is touched
    // (the snapshot covers their bytes), not even report.xml.
    for (path, text) in [
      ("dist/acme/\(Workspace.sdk)/release.json", "{}\n"),
      ("dist/acme/\(Workspace.sdk)/ContextSDK_Acme-\(Workspace.sdk).zip", "zip"),
      ("dist/report.xml", "<testsuites/>\n"), ("dist/logs/acme.log", "earlier log\n"),
    ] {
      try FileManager.default.createDirectory(
        at: workspace.file(path).deletingLastPathComponent(), withIntermediateDirectories: true)
      try text.write(to: workspace.file(path), atomically: true, encoding: .utf8)
    }
    for manifest in manifests {
      let name = manifest.deletingPathExtension().lastPathComponent
      let expected = FaultFixtures.expectedLines(
        try String(contentsOf: folder.appendingPathComponent(name + ".expected"), encoding: .utf8))
      try Data(contentsOf: manifest).write(to: workspace.file("customers.json"))
      assertRefused(["all"], in: workspace, expected: expected, name + " over an earlier dist/")
    }
    print("BadInputCLITests: \(manifests.count) corpus manifests, \(tried) CLI runs")
  }

  func testBrokenModelFilesAreRefusedWithTheirExpectedLines() throws {
    let folder = FaultFixtures.folder.appendingPathComponent("Models")
    let cases = try FileManager.default.contentsOfDirectory(
      at: folder, includingPropertiesForKeys: [.isDirectoryKey]
    )
    .filter { (try? $0.resourceValues(forKeys: [.isDirectoryKey]).isDirectory) == true }
    .sorted { $0.lastPathComponent < $1.lastPathComponent }
    XCTAssertGreaterThanOrEqual(cases.count, 8, "model cases in \(folder.path)")
    let workspace = try Workspace()
    let store = workspace.file("models")
    let pristine = Workspace.snapshot(store)
    for caseDirectory in cases {
      let name = caseDirectory.lastPathComponent
      let expected = FaultFixtures.expectedLines(
        try String(contentsOf: folder.appendingPathComponent(name + ".expected"), encoding: .utf8))
      XCTAssertFalse(expected.isEmpty, "\(name).expected lists nothing")
      // Overlay the case's files (`<flow>/<version>.mlmodel`) onto the store, then restore it.
      let replaced = try FileManager.default.contentsOfDirectory(atPath: caseDirectory.path).flatMap { flow in
        try FileManager.default.contentsOfDirectory(atPath: caseDirectory.appendingPathComponent(flow).path)
          .map { "\(flow)/\($0)" }
      }
      XCTAssertFalse(replaced.isEmpty, name)
      for path in replaced {
        let target = store.appendingPathComponent(path)
        try FileManager.default.moveItem(
          at: target, to: workspace.file("original-\(path.replacingOccurrences(of: "/", with: "-"))"))
        try FileManager.default.copyItem(at: caseDirectory.appendingPathComponent(path), to: target)
      }
      assertRefused(["all"], in: workspace, expected: expected, "model case \(name)")
      // Only the customers that use a broken model are concerned; the lines are the same.
      for path in replaced {
        let target = store.appendingPathComponent(path)
        try FileManager.default.removeItem(at: target)
        try FileManager.default.moveItem(
          at: workspace.file("original-\(path.replacingOccurrences(of: "/", with: "-"))"), to: target)
      }
      XCTAssertEqual(Workspace.snapshot(store), pristine, "store restored after \(name)")
    }
    print("BadInputCLITests: \(cases.count) model-file cases")
  }

  /// Issue 10's alignment gate: a model needing a signal the SDK being released lacks, an input
  /// no SDK computes, and a model whose own metadata disagrees with its place in the store and
  /// the manifest: every problem in one run, before any process starts.
  func testUnalignedModelsAreRefusedBeforeAnythingRunsEveryProblemInOneRun() throws {
    let sdkVersion = try ReleaseState.load(
      from: RepositoryRoot.url.appendingPathComponent("release-state.json"), displayPath: "release-state.json"
    ).sdkVersion
    let workspace = try Workspace(
      manifest: """
        [{"id": "acme", "bundle_identifiers": ["com.acme.app"], "app_id": "3f2b8c1e-6d4a-4e9b-9a51-0c7d2e8f4a10",
          "customModels": [{"flowId": 8363, "flowName": "paywall_timing", "modelVersion": 15}]},
         {"id": "bluebird", "bundle_identifiers": ["com.bluebird.app"], "app_id": "a91c44d2-0b7e-4c3f-8d26-5e1f9b0a7c33",
          "customModels": [{"flowId": 8364, "flowName": "tracking_permission", "modelVersion": 5}]},
         {"id": "cobalt", "bundle_identifiers": ["com.cobalt.app"], "app_id": "5d0e7f3a-8b21-4f6c-a0d9-2c4b6e8a1f57",
          "customModels": [{"flowId": 8363, "flowName": "paywall_timing", "modelVersion": 16}]}]
        """)
    // onboarding_upsell v73's file, copied to where paywall_timing v16 would be.
    try FileManager.default.copyItem(
      at: workspace.file("models/onboarding_upsell/73.mlmodel"),
      to: workspace.file("models/paywall_timing/16.mlmodel"))
    // A catalog that has lost hour_of_day, which tracking_permission's models use.
    let catalogFile = workspace.file("templates/ContextSDK/signals.json")
    let catalog = try String(contentsOf: catalogFile, encoding: .utf8)
    try catalog.split(separator: "\n").filter { !$0.contains("\"hour_of_day\"") }.joined(separator: "\n")
      .write(to: catalogFile, atomically: true, encoding: .utf8)
    let expected = [
      // The att feature still lists the signal the catalog lost.
      "templates/ContextSDK/features.json: features.att.signals: 'hour_of_day' is not a signal of signals.json; expected one the SDK computes",
      #"models/paywall_timing/16.mlmodel: metadata.flowName: "onboarding_upsell" differs from its place in the model store (paywall_timing)"#,
      #"models/paywall_timing/16.mlmodel: metadata.modelVersion: "73" differs from its place in the model store (16)"#,
      "customers.json: customers[0].customModels[0]: paywall_timing v15 needs signal 'battery_level', which ContextSDK \(sdkVersion) does not compute (signals.json: introduced in 3.1.0)",
      "customers.json: customers[1].customModels[0]: tracking_permission v5 needs signal 'hour_of_day', which no ContextSDK version computes (not in signals.json)",
      "customers.json: customers[2].customModels[0]: paywall_timing v16 has flowId 8362 in its metadata; the manifest says 8363",
    ]
    assertRefused(["all"], in: workspace, expected: expected, "unaligned models")
    assertRefused(["all"], in: workspace, expected: expected, json: true, "unaligned models --json")
    assertRefused(
      ["customer", "acme", "bluebird", "cobalt", "--dry-run"], in: workspace, expected: expected, "dry run")
  }

  /// Issue 13: a model may read only the signals its flow's feature computes, and a broken
  /// features.json is bad input like a broken manifest: every problem in one run, exit 2.
  func testAModelReadingASignalItsFeatureLacksOrABrokenFeatureCatalogIsRefused() throws {
    let workspace = try Workspace(
      manifest: """
        [{"id": "harbor", "bundle_identifiers": ["com.harbor.app"], "app_id": "9b2e4f6a-1c3d-4e5f-8a7b-6c5d4e3f2a19",
          "features": ["att"], "customModels": [{"flowId": 8364, "flowName": "tracking_permission", "modelVersion": 5}]}]
        """)
    let features = workspace.file("templates/ContextSDK/features.json")
    let original = try String(contentsOf: features, encoding: .utf8)
    // tracking_permission v5 reads minutes_in_app; att no longer computes it.
    try original.replacingOccurrences(of: #""hour_of_day", "minutes_in_app", "#, with: #""hour_of_day", "#)
      .write(to: features, atomically: true, encoding: .utf8)
    assertRefused(
      ["all"], in: workspace,
      expected: [
        "customers.json: customers[0].customModels[0]: tracking_permission v5 needs signal 'minutes_in_app', which feature 'att' does not compute (features.json: features.att.signals)"
      ], "signal outside the feature")

    try original.replacingOccurrences(
      of: #""module": "ContextSDKATT","#, with: #""module": "ContextSDKAtt", "price": 1,"#
    )
    .write(to: features, atomically: true, encoding: .utf8)
    let broken = [
      "templates/ContextSDK/features.json: features.att.price: unknown key; expected module, summary, flows, signals, privacy",
      "templates/ContextSDK/features.json: features.att.module: the template has no Sources/ContextSDKAtt/; expected the feature's module there",
    ]
    assertRefused(["all"], in: workspace, expected: broken, "broken features.json")
    // Any release to verify: the template is read before any release is.
    let release = workspace.dist.appendingPathComponent("harbor/1.0.0")
    try FileManager.default.createDirectory(at: release, withIntermediateDirectories: true)
    try Data("{}".utf8).write(to: release.appendingPathComponent("release.json"))
    assertRefused(["verify", "dist"], in: workspace, expected: broken, "broken features.json, verify")
  }

  func testMissingOrBrokenInputsAndBadArgumentsExitTwoWritingNothing() throws {
    let workspace = try Workspace()
    let root = workspace.root.path
    let customers = workspace.file("customers.json")
    let manifest = try Data(contentsOf: customers)

    // No manifest at all.
    try FileManager.default.removeItem(at: customers)
    assertRefused(
      ["all"], in: workspace, expected: ["customers.json: cannot read the file: No such file or directory"],
      "missing customers.json")
    assertRefused(
      ["customer", "acme", "--manifest", "elsewhere.json"], in: workspace,
      expected: ["elsewhere.json: cannot read the file: No such file or directory"],
      "--manifest to a missing file")
    try manifest.write(to: customers)

    // Bad state files.
    let stateFile = workspace.file("release-state.json")
    let state = try Data(contentsOf: stateFile)
    let states: [(String, String)] = [
      (
        #"{"sdkVersion": "two", "customers": {}}"#,
        #"release-state.json: sdkVersion: expected major.minor.patch, found "two""#
      ),
      (#"{"sdkVersion": "2.4.0"}"#, "release-state.json: customers: missing (expected it in the state file)"),
      (#"{"customers": {}}"#, "release-state.json: sdkVersion: missing (expected it in the state file)"),
      (
        #"{"sdkVersion": "2.4.0", "customers": {"acme": {"version": "2.4", "sourceDigest": "x"}}}"#,
        #"release-state.json: customers.acme.version: expected major.minor.patch, found "2.4""#
      ),
    ]
    for (text, line) in states {
      try Data(text.utf8).write(to: stateFile)
      assertRefused(["all"], in: workspace, expected: [line], "state \(text)")
    }
    // Not JSON at all: the decoder's own wording follows the file name, so only the prefix and
    // the contract are checked here.
    try Data("{not json".utf8).write(to: stateFile)
    let garbage = run(["all"], in: workspace)
    tried += 1
    XCTAssertEqual(garbage.code, 2, garbage.all)
    XCTAssertEqual(garbage.standardError.count, 1, garbage.all)
    XCTAssertTrue(garbage.standardError.first?.hasPrefix("error: release-state.json: ") == true, garbage.all)
    XCTAssertEqual(garbage.runner.invocations.count, 0)
    try FileManager.default.removeItem(at: stateFile)
    assertRefused(
      ["all"], in: workspace,
      expected: [
        #"release-state.json: cannot read the state file (expected a JSON object with "sdkVersion" and "customers")"#
      ],
      "missing state")
    // A state whose SDK version is not the template's: releasing would mislabel the SDK.
    try Data(#"{"sdkVersion": "9.9.9", "customers": {}}"#.utf8).write(to: stateFile)
    assertRefused(
      ["all"], in: workspace,
      expected: [
        "\(root)/templates/ContextSDK/Sources/ContextSDKCore/SDKVersion.swift: contextSDKVersion is \"\(Workspace.sdk)\", expected \"9.9.9\" (the SDK version being released)"
      ], "template of another SDK version")
    try state.write(to: stateFile)

    // Missing model store and template.
    assertRefused(
      ["all", "--models", "nowhere"], in: workspace,
      expected: [
        "nowhere: model store directory not found; expected <flowName>/<version>.mlmodel files there"
      ],
      "--models to a missing directory")
    assertRefused(
      ["all", "--templates", "nowhere"], in: workspace,
      expected: [
        "\(root)/nowhere: template directory not found: expected the SDK package template (templates/ContextSDK)"
      ],
      "--templates to a missing directory")

    // Unknown customers and bad arguments.
    let ids = "acme, bluebird, cobalt, driftwood, ember, fjord-travel, harbor"
    assertRefused(
      ["customer", "zzz"], in: workspace,
      expected: [#"customer "zzz": not in customers.json; expected one of: \#(ids)"#], "unknown customer")
    assertRefused(
      ["customer", "acme", "acmee"], in: workspace,
      expected: [
        #"customer "acmee": not in customers.json (did you mean "acme"?); expected one of: \#(ids)"#
      ],
      "unknown customer beside a known one")
    assertRefused(
      ["customer", "acme", "--jobs", "0"], in: workspace,
      expected: [#"--jobs: expected a whole number from 1 to 64, found "0""#], "--jobs 0")
    assertRefused(
      ["all", "--jobs", "many"], in: workspace,
      expected: [#"--jobs: expected a whole number from 1 to 64, found "many""#], "--jobs many")
    assertRefused(
      ["all", "--bogus"], in: workspace,
      expected: ["--bogus: unknown option for 'release all'; see 'release all --help'"],
      "unknown option")
    assertRefused(
      ["all", "--dist"], in: workspace,
      expected: ["--dist: expected a value after it, found the end of the command line"],
      "option without its value")
    for value in ["yesterday", "-5", "1.5e9"] {
      assertRefused(
        ["all"], in: workspace,
        expected: [
          #"SOURCE_DATE_EPOCH: "\#(value)" is not a whole number of seconds since 1970; expected e.g. 1577836800"#
        ],
        environment: ["SOURCE_DATE_EPOCH": value], "SOURCE_DATE_EPOCH=\(value)")
    }
    print("BadInputCLITests: \(tried) other bad inputs")
  }
}
