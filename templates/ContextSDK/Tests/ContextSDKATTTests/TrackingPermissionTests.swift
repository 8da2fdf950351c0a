import ContextSDKATT
@testable import ContextSDKCore
import Foundation
import XCTest

private func build(models: [FlowModel]) -> CustomerConfiguration {
  CustomerConfiguration(
    appID: "00000000-0000-4000-8000-000000000002", bundleIdentifiers: ["com.example.app"],
    sdkVersion: contextSDKVersion, models: models)
}

/// A build with the tracking permission model, its bundle a folder that need not exist:
/// resolving without downloads never opens the bundled file.
private enum TrackingBuild: CustomerBuild {
  static let configuration = build(models: [
    FlowModel(
      flowId: 8364, flowName: TrackingPermission.flowName, modelVersion: 5, sha256: "",
      inputNames: ["app_launches"], specificationVersion: 4, resourceName: "tracking_permission_v5.mlmodel")
  ])

  static func bundledModelURL(forFlow flowName: String) -> URL? {
    configuration.model(forFlow: flowName).map {
      URL(fileURLWithPath: "/bundle/Models", isDirectory: true).appendingPathComponent($0.resourceName)
    }
  }
}

/// A build licensing the feature without a model for it yet.
private enum NoModelBuild: CustomerBuild {
  static let configuration = build(models: [])
  static func bundledModelURL(forFlow flowName: String) -> URL? { nil }
}

final class TrackingPermissionTests: XCTestCase {
  private let noDownloads = FileManager.default.temporaryDirectory.appendingPathComponent(UUID().uuidString)

  func testThePromptsModelIsTheBundledOneWithoutDownloads() throws {
    let model = try XCTUnwrap(TrackingBuild.trackingPermissionModel(downloadsDirectory: noDownloads))
    XCTAssertEqual(model.source, .bundled)
    XCTAssertEqual(model.modelVersion, 5)
    XCTAssertEqual(model.url.lastPathComponent, "tracking_permission_v5.mlmodel")
  }

  /// The prompt's decision says which model made it: the bundled one, then a verified download.
  func testThePromptsModelCarriesItsAttribution() throws {
    let downloads = FileManager.default.temporaryDirectory.appendingPathComponent(UUID().uuidString)
    defer { try? FileManager.default.removeItem(at: downloads) }
    let bundled = try XCTUnwrap(TrackingBuild.trackingPermissionModel(downloadsDirectory: downloads))
    XCTAssertEqual(bundled.attribution, Attribution(flowName: "tracking_permission", modelVersion: 5, source: .bundled))
    XCTAssertEqual(bundled.attribution.description, "tracking_permission@5/bundled")
    // A verified download, as the updater leaves it: the smallest Core ML model the resolver
    // accepts (specification version 4, one input `x`) and its record.
    let bytes = Data([0x08, 0x04, 0x12, 0x05, 0x0a, 0x03, 0x0a, 0x01, 0x78])
    let folder = downloads.appendingPathComponent(TrackingPermission.flowName, isDirectory: true)
    try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
    try bytes.write(to: folder.appendingPathComponent("6.mlmodel"))
    try VerifiedDownload(modelVersion: 6, sha256: SHA256Digest.hex(of: bytes), minimumSDKVersion: "1.0.0")
      .write(in: folder)
    let downloaded = try XCTUnwrap(TrackingBuild.trackingPermissionModel(downloadsDirectory: downloads))
    XCTAssertEqual(downloaded.flowName, TrackingPermission.flowName)
    XCTAssertEqual(
      downloaded.attribution.eventProperties,
      ["flow": "tracking_permission", "modelVersion": "6", "modelSource": "downloaded"])
  }

  func testABuildWithoutTheModelHasNone() {
    XCTAssertNil(NoModelBuild.trackingPermissionModel(downloadsDirectory: noDownloads))
  }
}
