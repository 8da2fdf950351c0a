import ContextSDKATT
import ContextSDKCore
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

  func testABuildWithoutTheModelHasNone() {
    XCTAssertNil(NoModelBuild.trackingPermissionModel(downloadsDirectory: noDownloads))
  }
}
