import ContextSDKConversion
import ContextSDKCore
import Foundation
import XCTest

/// A build with a paywall model only, its bundle a folder that need not exist: resolving
/// without downloads never opens the bundled file.
private enum PaywallOnlyBuild: CustomerBuild {
  static let configuration = CustomerConfiguration(
    appID: "00000000-0000-4000-8000-000000000001", bundleIdentifiers: ["com.example.app"],
    sdkVersion: contextSDKVersion,
    models: [
      FlowModel(
        flowId: 8363, flowName: "paywall_timing", modelVersion: 14, sha256: "", inputNames: ["session_count"],
        specificationVersion: 4, resourceName: "paywall_timing_v14.mlmodel")
    ])

  static func bundledModelURL(forFlow flowName: String) -> URL? {
    configuration.model(forFlow: flowName).map {
      URL(fileURLWithPath: "/bundle/Models", isDirectory: true).appendingPathComponent($0.resourceName)
    }
  }
}

final class ConversionMomentTests: XCTestCase {
  private let noDownloads = FileManager.default.temporaryDirectory.appendingPathComponent(UUID().uuidString)

  func testOnlyTheMomentsThisBuildHasAModelForAreOffered() {
    XCTAssertEqual(PaywallOnlyBuild.conversionMoments, [.paywallTiming])
  }

  func testAMomentResolvesToItsFlowsBundledModel() throws {
    let model = try XCTUnwrap(
      PaywallOnlyBuild.conversionModel(for: .paywallTiming, downloadsDirectory: noDownloads))
    XCTAssertEqual(model.source, .bundled)
    XCTAssertEqual(model.modelVersion, 14)
    XCTAssertEqual(model.url.lastPathComponent, "paywall_timing_v14.mlmodel")
    XCTAssertNil(PaywallOnlyBuild.conversionModel(for: .ratingRequest, downloadsDirectory: noDownloads))
  }

  func testEachMomentIsItsOwnFlow() {
    let flows = ConversionMoment.allCases.map(\.flowName)
    XCTAssertEqual(Set(flows).count, flows.count)
    for flow in flows {
      XCTAssertTrue(flow.allSatisfy { $0.isLowercase || $0 == "_" }, flow)
    }
  }
}
