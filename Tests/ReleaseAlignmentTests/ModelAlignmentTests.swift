import Foundation
import ReleaseCore
import ReleaseManifest
import ReleaseTestSupport
import XCTest

@testable import ReleaseAlignment
@testable import ReleaseModels

/// The alignment rule on a small hand-made catalog: a model's minimum SDK version is the newest
/// introduction among its inputs; an SDK older than that, or an input no SDK computes, is a gap.
final class ModelAlignmentTests: XCTestCase {
  private let catalog = SignalCatalog(introduced: [
    "session_count": SemanticVersion(1, 0, 0), "hour_of_day": SemanticVersion(2, 2, 0),
    "battery_level": SemanticVersion(2, 5, 0),
  ])

  func testMinimumSDKVersionIsTheNewestIntroductionAmongTheInputs() {
    XCTAssertEqual(
      ModelAlignment.minimumSDKVersion(inputs: ["session_count"], catalog: catalog), SemanticVersion(1, 0, 0))
    XCTAssertEqual(
      ModelAlignment.minimumSDKVersion(inputs: ["hour_of_day", "session_count"], catalog: catalog),
      SemanticVersion(2, 2, 0))
    XCTAssertEqual(
      ModelAlignment.minimumSDKVersion(
        inputs: ["session_count", "battery_level", "hour_of_day"], catalog: catalog),
      SemanticVersion(2, 5, 0))
    XCTAssertNil(ModelAlignment.minimumSDKVersion(inputs: ["session_count", "gps"], catalog: catalog))
  }

  func testGapsNameEveryInputTheSDKCannotCompute() {
    let inputs = ["battery_level", "session_count", "gps", "hour_of_day"]
    XCTAssertEqual(
      ModelAlignment.gaps(inputs: inputs, catalog: catalog, sdkVersion: SemanticVersion(2, 4, 0)),
      [.newerSignal("battery_level", introduced: SemanticVersion(2, 5, 0)), .unknownSignal("gps")])
    XCTAssertEqual(
      ModelAlignment.gaps(inputs: inputs, catalog: catalog, sdkVersion: SemanticVersion(2, 5, 0)),
      [.unknownSignal("gps")])
    XCTAssertEqual(
      ModelAlignment.gaps(inputs: ["hour_of_day"], catalog: catalog, sdkVersion: SemanticVersion(2, 1, 9)),
      [.newerSignal("hour_of_day", introduced: SemanticVersion(2, 2, 0))])
    XCTAssertEqual(
      ModelAlignment.describe(
        .newerSignal("battery_level", introduced: SemanticVersion(2, 5, 0)),
        sdkVersion: SemanticVersion(2, 4, 0)),
      "needs signal 'battery_level', which ContextSDK 2.4.0 does not compute (signals.json: introduced in 2.5.0)"
    )
  }

  func testMetadataMustMatchTheStorePlaceAndTheManifestFlowId() {
    let info = CoreMLModelInfo(
      specificationVersion: 4, inputNames: ["session_count"], outputNames: ["score"], modelType: nil,
      shortDescription: "", author: "",
      userDefinedMetadata: ["flowName": "onboarding_upsell", "flowId": "8362", "modelVersion": "73"])
    let matching = ModelAlignment.metadataMismatches(
      info, reference: ModelReference(flowName: "onboarding_upsell", version: 73), flowId: 8362)
    XCTAssertTrue(matching.isEmpty)
    let moved = ModelAlignment.metadataMismatches(
      info, reference: ModelReference(flowName: "paywall_timing", version: 16), flowId: 8363)
    XCTAssertEqual(moved.map(\.key), ["flowName", "modelVersion", "flowId"])
    XCTAssertEqual(moved.map(\.found), ["onboarding_upsell", "73", "8362"])
    // Metadata a model does not carry is not checked.
    let bare = CoreMLModelInfo(
      specificationVersion: 4, inputNames: ["session_count"], outputNames: ["score"], modelType: nil,
      shortDescription: "", author: "", userDefinedMetadata: [:])
    XCTAssertTrue(
      ModelAlignment.metadataMismatches(bare, reference: ModelReference(flowName: "x", version: 1), flowId: 1)
        .isEmpty)
  }
}
