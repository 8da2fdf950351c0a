import ContextSDKCore
import Foundation
import XCTest

final class CustomerConfigurationTests: XCTestCase {
  private let configuration = CustomerConfiguration(
    appID: "app", bundleIdentifiers: [], sdkVersion: "1.0.0",
    models: [
      FlowModel(
        flowId: 8362, flowName: "onboarding_upsell", modelVersion: 73, sha256: "", inputNames: [],
        specificationVersion: 4, resourceName: "onboarding_upsell_v73.mlmodel"),
      FlowModel(
        flowId: 8363, flowName: "paywall_timing", modelVersion: 14, sha256: "", inputNames: [],
        specificationVersion: 4, resourceName: "paywall_timing_v14.mlmodel"),
    ])

  func testFindsModelsByFlowNameAndFlowId() {
    XCTAssertEqual(configuration.model(forFlow: "paywall_timing")?.flowId, 8363)
    XCTAssertEqual(configuration.model(forFlow: 8362)?.flowName, "onboarding_upsell")
    XCTAssertNil(configuration.model(forFlow: "rating_request"))
    XCTAssertNil(configuration.model(forFlow: 1))
  }

  func testReadsTheConfigurationTheReleaseToolWrites() throws {
    // The shape `release` writes (its CustomerFile): sorted keys, no manifest URL when the
    // release has no over-the-air models.
    let json = """
      {
        "appID" : "app",
        "bundleIdentifiers" : [],
        "features" : ["conversion"],
        "models" : [
          {
            "flowId" : 8362, "flowName" : "onboarding_upsell", "inputNames" : [], "modelVersion" : 73,
            "resourceName" : "onboarding_upsell_v73.mlmodel", "sha256" : "", "specificationVersion" : 4
          },
          {
            "flowId" : 8363, "flowName" : "paywall_timing", "inputNames" : [], "modelVersion" : 14,
            "resourceName" : "paywall_timing_v14.mlmodel", "sha256" : "", "specificationVersion" : 4
          }
        ],
        "sdkVersion" : "1.0.0"
      }
      """
    let file = try temporaryFile(json)
    defer { try? FileManager.default.removeItem(at: file) }
    let expected = CustomerConfiguration(
      appID: "app", bundleIdentifiers: [], sdkVersion: "1.0.0", models: configuration.models,
      modelManifestURL: nil, features: ["conversion"])
    XCTAssertEqual(try CustomerConfiguration.load(from: file), expected)
  }

  func testAMissingOrUnreadableConfigurationIsAnErrorNamingIt() throws {
    XCTAssertThrowsError(try CustomerConfiguration.load(from: nil)) { error in
      XCTAssertEqual("\(error)", "customer.json is missing from the package's resources")
    }
    let file = try temporaryFile(#"{"appID": "app"}"#)
    defer { try? FileManager.default.removeItem(at: file) }
    XCTAssertThrowsError(try CustomerConfiguration.load(from: file)) { error in
      XCTAssertTrue("\(error)".hasPrefix("\(file.lastPathComponent) cannot be read: "), "\(error)")
    }
  }

  private func temporaryFile(_ text: String) throws -> URL {
    let url = FileManager.default.temporaryDirectory.appendingPathComponent(
      "customer-\(UUID().uuidString).json")
    try Data(text.utf8).write(to: url)
    return url
  }
}
