import ContextSDKCore
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
}
