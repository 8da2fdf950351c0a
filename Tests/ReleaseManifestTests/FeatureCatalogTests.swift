import Foundation
import ReleaseJSON
import XCTest

@testable import ReleaseManifest

final class FeatureCatalogTests: XCTestCase {
  func testTheTemplatesCatalogSplitsTheFlowsBetweenATTAndConversion() throws {
    let catalog = try ManifestFixtures.catalog()
    XCTAssertEqual(catalog.names, ["att", "conversion"])
    XCTAssertEqual(catalog.feature(servingFlow: "tracking_permission")?.name, "att")
    XCTAssertEqual(catalog.feature(servingFlow: "paywall_timing")?.module, "ContextSDKConversion")
    XCTAssertNil(catalog.feature(servingFlow: "push_timing"))
    XCTAssertEqual(catalog.owner(of: "Sources/ContextSDKATT/TrackingPermission.swift")?.name, "att")
    XCTAssertEqual(
      catalog.owner(of: "Tests/ContextSDKConversionTests/ConversionMomentTests.swift")?.name, "conversion")
    XCTAssertNil(catalog.owner(of: "Sources/ContextSDKCore/FlowModel.swift"))
    // A module whose name starts like another's is not that module.
    XCTAssertNil(catalog.owner(of: "Sources/ContextSDKATTExtras/File.swift"))
  }

  func testACustomerGetsTheFeaturesItListsElseThoseItsFlowsNeed() throws {
    let catalog = try ManifestFixtures.catalog()
    var customer = Customer(
      id: "c", name: nil, appID: "3f2b8c1e-6d4a-4e9b-9a51-0c7d2e8f4a10", bundleIdentifiers: ["com.c.app"],
      customModels: [CustomModel(flowId: 8364, flowName: "tracking_permission", modelVersion: 5)], index: 0,
      line: 1)
    XCTAssertEqual(catalog.features(of: customer).map(\.name), ["att"])
    customer.customModels.append(CustomModel(flowId: 8363, flowName: "paywall_timing", modelVersion: 14))
    XCTAssertEqual(catalog.features(of: customer).map(\.name), ["att", "conversion"])
    // A licensed feature without a model yet is still the customer's.
    customer.customModels.removeLast()
    customer.features = ["conversion", "att"]
    XCTAssertEqual(catalog.features(of: customer).map(\.name), ["att", "conversion"])
  }

  func testEveryProblemOfABadCatalogIsReportedAtOnce() {
    let json = """
      {"features": {
        "att": {"module": "ContextSDKATT", "summary": "ATT", "flows": ["tracking_permission"], "signals": ["app_launches"], "price": 3},
        "Conversion": {"module": "ContextSDKMissing", "summary": "", "flows": ["tracking_permission", "paywall_timing", "paywall_timing"], "signals": "session_count"},
        "core": {"module": "ContextSDKCore", "summary": "core", "flows": [], "signals": ["session_count"]},
        "other": {"module": "ContextSDKATT", "flows": ["rating_request"], "signals": ["Bad Name"]}
      }}
      """
    XCTAssertThrowsError(
      try FeatureCatalog.load(
        data: Data(json.utf8), displayPath: "features.json",
        templateFiles: ["Sources/ContextSDKATT/A.swift", "Sources/ContextSDKCore/B.swift"])
    ) { error in
      XCTAssertEqual(
        (error as? ValidationFailure)?.diagnostics.map(\.description),
        [
          "features.json: features.att.price: unknown key; expected module, summary, flows, signals, privacy",
          "features.json: features.Conversion: not a feature name; expected a lower-case letter, then lower-case letters, digits or '_'",
          "features.json: features.Conversion.summary: expected a non-empty one-line string, found string \"\"",
          "features.json: features.Conversion.flows[2]: \"paywall_timing\" is listed twice",
          "features.json: features.Conversion.signals: expected a non-empty array of names, found string \"session_count\"",
          "features.json: features.Conversion.module: the template has no Sources/ContextSDKMissing/; expected the feature's module there",
          "features.json: features.Conversion.flows: flow \"tracking_permission\" is already served by feature \"att\"; a flow belongs to one feature",
          "features.json: features.core.flows: expected a non-empty array of names, found an empty array",
          "features.json: features.core.module: \"ContextSDKCore\" is not a module name; expected a Swift identifier starting with \"ContextSDK\" (not the core's \"ContextSDKCore\")",
          "features.json: features.other.summary: missing; expected a string",
          "features.json: features.other.signals[0]: expected a name of lower-case letters, digits and '_', found string \"Bad Name\"",
          "features.json: features.other.module: \"ContextSDKATT\" is already the module of feature \"att\"",
        ])
    }
  }
}
