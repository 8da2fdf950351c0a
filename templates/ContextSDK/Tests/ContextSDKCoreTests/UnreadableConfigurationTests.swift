@testable import ContextSDKCore
import Foundation
import XCTest

/// A build whose `customer.json` is missing, read the way the package's `ContextSDK` reads its
/// own (`loadOrUnavailable`): nothing crashes, the error is there for the app to read, and every
/// decision falls back to a safe default: no model (the app does not show the prompt), no
/// allowed app, no update.
private enum BuildWithoutConfiguration: CustomerBuild {
  static let loaded = CustomerConfiguration.loadOrUnavailable(from: nil)
  static var configuration: CustomerConfiguration { loaded.configuration }
  static var configurationError: CustomerConfigurationError? { loaded.error }

  static func bundledModelURL(forFlow flowName: String) -> URL? {
    configuration.model(forFlow: flowName).map {
      URL(fileURLWithPath: "/bundle/Models", isDirectory: true).appendingPathComponent($0.resourceName)
    }
  }
}

/// Readable builds, with and without an over-the-air manifest, for the update's other errors.
private enum BuildWithManifest: CustomerBuild {
  static let configuration = CustomerConfiguration(
    appID: "00000000-0000-4000-8000-000000000003", bundleIdentifiers: ["com.example.app"],
    sdkVersion: contextSDKVersion, models: [], modelManifestURL: "http://127.0.0.1:9/ota/example/models.json")
  static func bundledModelURL(forFlow flowName: String) -> URL? { nil }
}

private enum BuildWithoutManifest: CustomerBuild {
  static let configuration = CustomerConfiguration(
    appID: "00000000-0000-4000-8000-000000000003", bundleIdentifiers: ["com.example.app"],
    sdkVersion: contextSDKVersion, models: [])
  static func bundledModelURL(forFlow flowName: String) -> URL? { nil }
}

final class UnreadableConfigurationTests: XCTestCase {
  private var root: URL!

  override func setUpWithError() throws {
    root = FileManager.default.temporaryDirectory.appendingPathComponent("unreadable-\(UUID().uuidString)")
  }

  override func tearDownWithError() throws {
    try? FileManager.default.removeItem(at: root)
  }

  func testTheErrorIsReportedAndTheConfigurationIsTheUnavailableOne() {
    XCTAssertEqual(BuildWithoutConfiguration.configurationError, .missing)
    XCTAssertEqual(BuildWithoutConfiguration.configuration, .unavailable)
  }

  func testNoFlowGetsAModelEvenWithADownloadThere() throws {
    let flow = root.appendingPathComponent("downloads/onboarding_upsell", isDirectory: true)
    try FileManager.default.createDirectory(at: flow, withIntermediateDirectories: true)
    try CoreMLTestModel.bytes(specificationVersion: 4).write(to: flow.appendingPathComponent("99.mlmodel"))
    XCTAssertNil(
      BuildWithoutConfiguration.resolveModel(
        forFlow: "onboarding_upsell", downloadsDirectory: root.appendingPathComponent("downloads")))
    XCTAssertTrue(FileManager.default.fileExists(atPath: flow.appendingPathComponent("99.mlmodel").path))
  }

  func testNoAppIsAllowed() {
    XCTAssertFalse(BuildWithoutConfiguration.isAllowed(bundleIdentifier: "com.example.app"))
    XCTAssertFalse(BuildWithoutConfiguration.isRunningAppAllowed)
  }

  func testAnUpdateReportsTheErrorAndWritesNothing() async {
    let report = await BuildWithoutConfiguration.updateModels(
      ModelUpdateConfiguration(
        modelsDirectory: root.appendingPathComponent("downloads"), stateDirectory: root.appendingPathComponent("install")))
    XCTAssertEqual(report, ModelUpdateReport(error: .configuration(.missing)))
    XCTAssertEqual(report.error?.localizedDescription, "customer.json is missing from the package's resources")
    XCTAssertFalse(FileManager.default.fileExists(atPath: root.path))
  }

  func testAnUpdateWithoutAManifestURLOrAnInstallIDSaysSo() async throws {
    // An install id that cannot be read (a folder where the file should be): kept, reported.
    let installID = root.appendingPathComponent("install/install-id", isDirectory: true)
    try FileManager.default.createDirectory(at: installID, withIntermediateDirectories: true)
    let unreadable = await BuildWithManifest.updateModels(
      ModelUpdateConfiguration(
        modelsDirectory: root.appendingPathComponent("downloads"), stateDirectory: root.appendingPathComponent("install")))
    guard case .installID(.cannotRead(let path, _)) = unreadable.error else {
      return XCTFail(String(describing: unreadable.error))
    }
    XCTAssertEqual(path, installID.path)
    XCTAssertTrue(unreadable.error?.description.hasPrefix("no install id: \(installID.path): cannot read: ") == true)

    let noManifest = await BuildWithoutManifest.updateModels(
      ModelUpdateConfiguration(
        modelsDirectory: root.appendingPathComponent("downloads"), stateDirectory: root.appendingPathComponent("install")))
    XCTAssertEqual(noManifest.error, .noChannel)
    XCTAssertEqual(
      noManifest.error?.description, "this build has no over-the-air channel (no signed manifest URL and trusted keys)")
    XCTAssertFalse(FileManager.default.fileExists(atPath: root.appendingPathComponent("downloads").path))
  }
}
