import Foundation
import ReleaseArchive
import ReleaseCLITestSupport
import ReleaseGeneration
import ReleaseSystem
import ReleaseTestSupport
import XCTest

@testable import ReleaseFlow
@testable import ReleasePipeline

/// The SDK version a customer's first release takes (the repository's).
private let firstVersion = Workspace.sdkVersion()
/// The release after a customer's first when only its models or entry changed.
private let nextPatch = Workspace.sdkVersion(plusPatches: 1)

/// Issue 13: each customer's package holds only the features it licenses. An `att`-only
/// customer's package has no conversion code, models or module names, and it builds and passes
/// its tests (`FeatureSubsetConsumerEndToEndTests`: its ATT API serves an app, and the
/// conversion API does not exist for it).
final class FeatureSubsetEndToEndTests: XCTestCase {
  /// harbor licenses only App Tracking Transparency; acme lists no features and gets the one
  /// its flows need (conversion).
  static let manifest = """
    [
      {"id": "harbor", "name": "Harbor Bank", "bundle_identifiers": ["com.harborbank.mobile"],
       "app_id": "9b2e4f6a-1c3d-4e5f-8a7b-6c5d4e3f2a19", "features": ["att"],
       "customModels": [{"flowId": 8364, "flowName": "tracking_permission", "modelVersion": 5}]},
      {"id": "acme", "name": "Acme Fitness", "bundle_identifiers": ["com.acme.fitness"],
       "app_id": "3f2b8c1e-6d4a-4e9b-9a51-0c7d2e8f4a10",
       "customModels": [{"flowId": 8363, "flowName": "paywall_timing", "modelVersion": 14}]}
    ]
    """

  /// What of the conversion feature an `att`-only package must not hold: files of its module
  /// and tests, or of its flows' models (by path); its module name or API symbols (in any
  /// file). The core's own tests use flow names as sample data (the updater's test manifest is
  /// one the tool published for acme), which is no code of the feature.
  private let conversionPaths = [
    "ContextSDKConversion", "onboarding_upsell", "paywall_timing", "rating_request", "trial_reminder",
  ]
  private let conversionSymbols = [
    "ContextSDKConversion", "ConversionMoment", "conversionModel", "conversionMoments",
  ]

  func testAnATTOnlyPackageHoldsNoConversionCodeAndPassesItsTests() throws {
    let workspace = try Workspace(manifest: Self.manifest)
    let run = workspace.run(["customer", "harbor", "--jobs", "1"])
    XCTAssertEqual(run.exitCode, 0, run.allOutput)
    let release = workspace.dist.appendingPathComponent("harbor/\(firstVersion)")
    let record = try ReleaseRecord.load(from: release.appendingPathComponent(ReleaseRecord.fileName))
    XCTAssertEqual(record.features, ["att"])
    XCTAssertGreaterThan(record.testCount ?? 0, 0, "the package's tests ran")
    let zip = release.appendingPathComponent(record.artifact.file)

    var paths: [String] = []
    try ZipReader.forEachFile(in: zip) { entry, data in
      paths.append(entry.path)
      var contents = Data()
      try data.forEachBlock { contents.append(contentsOf: $0) }
      let text = String(decoding: contents, as: UTF8.self)
      for marker in conversionPaths {
        XCTAssertFalse(entry.path.contains(marker), "\(entry.path) is conversion's")
      }
      for symbol in conversionSymbols {
        XCTAssertFalse(text.contains(symbol), "\(entry.path) names \(symbol)")
      }
    }
    XCTAssertTrue(
      paths.contains("ContextSDK_Harbor/Sources/ContextSDKATT/TrackingPermission.swift"), "\(paths)")
    XCTAssertTrue(paths.contains("ContextSDK_Harbor/Tests/ContextSDKATTTests/TrackingPermissionTests.swift"))
    XCTAssertTrue(
      paths.contains("ContextSDK_Harbor/Sources/ContextSDK/Resources/Models/tracking_permission_v5.mlmodel"))
  }

  /// The feature leak scan of the content checks: a restored dist/ whose att-only archive holds
  /// a conversion file, or a registry that names the conversion module (release.json and the
  /// .sha256 made to agree), is refused by name by `release all` and by `release verify`.
  func testAPlantedFileOrModuleNameOfAnotherFeatureIsRefusedByName() throws {
    let workspace = try Workspace(manifest: Self.manifest)
    let built = try workspace.runWithoutCompiling(["customer", "harbor", "--skip-tests", "--jobs", "1"])
    XCTAssertEqual(built.exitCode, 0, built.allOutput)
    let release = workspace.dist.appendingPathComponent("harbor/\(firstVersion)")
    let zip = release.appendingPathComponent("ContextSDK_Harbor-\(firstVersion).zip")
    let planted = "Sources/ContextSDKConversion/ConversionMoment.swift"
    try PlantedRelease.plant(release, zip: zip) { package in
      let file = package.appendingPathComponent(planted)
      try FileManager.default.createDirectory(
        at: file.deletingLastPathComponent(), withIntermediateDirectories: true)
      try FileManager.default.copyItem(at: workspace.file("templates/ContextSDK/" + planted), to: file)
      let registry = package.appendingPathComponent("Sources/ContextSDK/CustomerRegistry.swift")
      let text = try String(contentsOf: registry, encoding: .utf8)
      try text.replacingOccurrences(
        of: "@_exported import ContextSDKATT",
        with: "@_exported import ContextSDKATT\n@_exported import ContextSDKConversion"
      ).write(to: registry, atomically: true, encoding: .utf8)
    }
    let fileLine =
      "ContextSDK_Harbor-\(firstVersion).zip: \(planted) belongs to feature \"conversion\", which harbor does not have"
    let registryLine =
      "ContextSDK_Harbor-\(firstVersion).zip: Sources/ContextSDK/CustomerRegistry.swift names ContextSDKConversion, the module of feature \"conversion\", which harbor does not have"

    let run = try workspace.runWithoutCompiling(["customer", "harbor", "--skip-tests", "--jobs", "1"])
    XCTAssertEqual(run.exitCode, 1, run.allOutput)
    XCTAssertTrue(run.allOutput.contains("harbor: " + fileLine), run.allOutput)
    XCTAssertTrue(run.allOutput.contains("harbor: " + registryLine), run.allOutput)

    let verify = workspace.run(["verify", "dist", "--no-build"])
    XCTAssertEqual(verify.exitCode, 1, verify.allOutput)
    XCTAssertTrue(verify.allOutput.contains(fileLine), verify.allOutput)
    XCTAssertTrue(verify.allOutput.contains(registryLine), verify.allOutput)
  }

  /// A customer's release depends on its own features only: another customer's features, or
  /// the code of a feature it does not have, changing leaves it up to date at the same version.
  func testAnotherCustomersFeaturesOrAnotherFeaturesCodeLeaveACustomerUpToDate() throws {
    let workspace = try Workspace(manifest: Self.manifest)
    let all = { try workspace.runWithoutCompiling(["all", "--skip-tests", "--json", "--jobs", "1"]) }
    let first = try all()
    XCTAssertEqual(first.exitCode, 0, first.allOutput)
    let harborDigest = try digest(of: "harbor", version: "\(firstVersion)", in: workspace)
    // A dry run says what the package would hold.
    let dryRun = workspace.run(["customer", "harbor", "--dry-run", "--force"])
    XCTAssertEqual(dryRun.exitCode, 0, dryRun.allOutput)
    XCTAssertTrue(
      dryRun.allOutput.contains(
        "would build harbor \(firstVersion) (features att; models tracking_permission v5)"),
      dryRun.allOutput)

    // acme licenses ATT too.
    try Self.manifest.replacingOccurrences(
      of: #""app_id": "3f2b8c1e-6d4a-4e9b-9a51-0c7d2e8f4a10","#,
      with: #""app_id": "3f2b8c1e-6d4a-4e9b-9a51-0c7d2e8f4a10", "features": ["att", "conversion"],"#
    ).write(to: workspace.file("customers.json"), atomically: true, encoding: .utf8)
    let second = try all()
    XCTAssertEqual(second.exitCode, 0, second.allOutput)
    XCTAssertEqual(status(of: "harbor", in: second), "up to date", second.allOutput)
    XCTAssertEqual(status(of: "acme", in: second), "built", second.allOutput)
    let acme = try ReleaseRecord.load(
      from: workspace.dist.appendingPathComponent("acme/\(nextPatch)/release.json"))
    XCTAssertEqual(acme.features, ["att", "conversion"])

    // The conversion module changes: only customers with that feature are released again.
    let conversion = workspace.file(
      "templates/ContextSDK/Sources/ContextSDKConversion/ConversionMoment.swift")
    try (try String(contentsOf: conversion, encoding: .utf8) + "// changed\n").write(
      to: conversion, atomically: true, encoding: .utf8)
    let third = try all()
    XCTAssertEqual(third.exitCode, 0, third.allOutput)
    XCTAssertEqual(status(of: "harbor", in: third), "up to date", third.allOutput)
    XCTAssertEqual(status(of: "acme", in: third), "built", third.allOutput)
    XCTAssertEqual(try digest(of: "harbor", version: "\(firstVersion)", in: workspace), harborDigest)
  }

  private func digest(of id: String, version: String, in workspace: Workspace) throws -> String {
    try ReleaseRecord.load(from: workspace.dist.appendingPathComponent("\(id)/\(version)/release.json"))
      .sourceDigest
  }

  /// The customer's status in a `--json` run's summary.
  private func status(of id: String, in run: Workspace.Run) -> String? {
    for event in run.events where event["event"] as? String == "summary" {
      for customer in event["customers"] as? [[String: Any]] ?? [] where customer["id"] as? String == id {
        return customer["status"] as? String
      }
    }
    return nil
  }
}
