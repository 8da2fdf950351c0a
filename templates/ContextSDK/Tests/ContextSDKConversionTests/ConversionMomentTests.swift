import ContextSDKConversion
@testable import ContextSDKCore
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

/// The smallest Core ML model the resolver accepts (specification version 4, one input `x`),
/// written as the updater leaves a verified download: `<flow>/<version>.mlmodel` and its record.
private func writeVerifiedDownload(flowName: String, version: Int, in downloads: URL) throws {
  let bytes = Data([0x08, 0x04, 0x12, 0x05, 0x0a, 0x03, 0x0a, 0x01, 0x78])
  let folder = downloads.appendingPathComponent(flowName, isDirectory: true)
  try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
  try bytes.write(to: folder.appendingPathComponent("\(version).mlmodel"))
  try VerifiedDownload(modelVersion: version, sha256: SHA256Digest.hex(of: bytes), minimumSDKVersion: "1.0.0")
    .write(in: folder)
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

  /// The moment's decision says which model made it: the bundled one, then a verified download.
  func testAMomentsModelCarriesItsAttribution() throws {
    let downloads = FileManager.default.temporaryDirectory.appendingPathComponent(UUID().uuidString)
    defer { try? FileManager.default.removeItem(at: downloads) }
    let bundled = try XCTUnwrap(PaywallOnlyBuild.conversionModel(for: .paywallTiming, downloadsDirectory: downloads))
    XCTAssertEqual(bundled.attribution, Attribution(flowName: "paywall_timing", modelVersion: 14, source: .bundled))
    XCTAssertEqual(bundled.attribution.description, "paywall_timing@14/bundled")
    try writeVerifiedDownload(flowName: ConversionMoment.paywallTiming.flowName, version: 15, in: downloads)
    let downloaded = try XCTUnwrap(
      PaywallOnlyBuild.conversionModel(for: .paywallTiming, downloadsDirectory: downloads))
    XCTAssertEqual(downloaded.flowName, "paywall_timing")
    XCTAssertEqual(
      downloaded.attribution.eventProperties,
      ["flow": "paywall_timing", "modelVersion": "15", "modelSource": "downloaded"])
  }

  func testEachMomentIsItsOwnFlow() {
    let flows = ConversionMoment.allCases.map(\.flowName)
    XCTAssertEqual(Set(flows).count, flows.count)
    for flow in flows {
      XCTAssertTrue(flow.allSatisfy { $0.isLowercase || $0 == "_" }, flow)
    }
  }
}
