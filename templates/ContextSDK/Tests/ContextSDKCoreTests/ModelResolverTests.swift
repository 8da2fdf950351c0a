@testable import ContextSDKCore
import Foundation
import XCTest

final class ModelResolverTests: XCTestCase {
  private var downloads: URL!
  private var bundledURL: URL!
  private let model = FlowModel(
    flowId: 8362, flowName: "onboarding_upsell", modelVersion: 73, sha256: "", inputNames: ["x"],
    specificationVersion: 4, resourceName: "onboarding_upsell_v73.mlmodel")
  private let resolver = ModelResolver(maximumSpecificationVersion: 5, sdkVersion: "2.4.0")

  override func setUpWithError() throws {
    let root = FileManager.default.temporaryDirectory
      .appendingPathComponent("ModelResolverTests-\(UUID().uuidString)", isDirectory: true)
    downloads = root.appendingPathComponent("downloads", isDirectory: true)
    bundledURL = root.appendingPathComponent("bundled.mlmodel")
    try FileManager.default.createDirectory(at: downloads, withIntermediateDirectories: true)
    try CoreMLTestModel.bytes(specificationVersion: 4).write(to: bundledURL)
  }

  override func tearDownWithError() throws {
    try FileManager.default.removeItem(at: downloads.deletingLastPathComponent())
  }

  @discardableResult
  private func download(version: Int, specificationVersion: Int = 4) throws -> URL {
    try write(CoreMLTestModel.bytes(specificationVersion: specificationVersion), version: version)
  }

  /// Writes a download as the updater does: the file, and its record with the file's SHA-256
  /// (none when `recorded` is false, as for a file something else put there).
  @discardableResult
  private func write(
    _ bytes: Data, version: Int, recorded: Bool = true, minimumSDKVersion: String = "1.0.0"
  ) throws -> URL {
    let flowDirectory = downloads.appendingPathComponent(model.flowName, isDirectory: true)
    try FileManager.default.createDirectory(at: flowDirectory, withIntermediateDirectories: true)
    let url = flowDirectory.appendingPathComponent("\(version).mlmodel")
    try bytes.write(to: url)
    if recorded {
      try VerifiedDownload(
        modelVersion: version, sha256: SHA256Digest.hex(of: bytes), minimumSDKVersion: minimumSDKVersion
      ).write(in: flowDirectory)
    }
    return url
  }

  private func resolve() -> ResolvedModel {
    resolver.resolve(model, bundledModelURL: bundledURL, downloadsDirectory: downloads)
  }

  private func exists(_ url: URL) -> Bool { FileManager.default.fileExists(atPath: url.path) }

  func testWithoutDownloadsUsesTheBundledModel() {
    XCTAssertEqual(
      resolve(), ResolvedModel(flowName: "onboarding_upsell", url: bundledURL, modelVersion: 73, source: .bundled))
  }

  func testNewerDownloadWins() throws {
    let newer = try download(version: 75)
    XCTAssertEqual(
      resolve(), ResolvedModel(flowName: "onboarding_upsell", url: newer, modelVersion: 75, source: .downloaded))
  }

  func testNewestOfSeveralDownloadsWins() throws {
    try download(version: 74)
    let newest = try download(version: 76)
    XCTAssertEqual(
      resolve(), ResolvedModel(flowName: "onboarding_upsell", url: newest, modelVersion: 76, source: .downloaded))
  }

  /// Every answer names the model that decides: the bundled one, and a verified download.
  func testTheBundledModelsAttribution() {
    let attribution = resolve().attribution
    XCTAssertEqual(
      attribution, Attribution(flowName: "onboarding_upsell", modelVersion: 73, source: .bundled))
    XCTAssertEqual(attribution.description, "onboarding_upsell@73/bundled")
    XCTAssertEqual(
      attribution.eventProperties, ["flow": "onboarding_upsell", "modelVersion": "73", "modelSource": "bundled"])
  }

  func testAVerifiedDownloadsAttribution() throws {
    try download(version: 74)
    let attribution = resolve().attribution
    XCTAssertEqual(
      attribution, Attribution(flowName: "onboarding_upsell", modelVersion: 74, source: .downloaded))
    XCTAssertEqual("\(attribution)", "onboarding_upsell@74/downloaded")
    XCTAssertEqual(
      attribution.eventProperties,
      [
        Attribution.Key.flow: "onboarding_upsell", Attribution.Key.modelVersion: "74",
        Attribution.Key.modelSource: "downloaded",
      ])
    // A newer file the updater did not verify takes no decision; once the verified one has
    // changed since, the bundled model decides again, and says so.
    try write(CoreMLTestModel.bytes(specificationVersion: 3), version: 75, recorded: false)
    XCTAssertEqual(resolve().attribution.description, "onboarding_upsell@74/downloaded")
    try CoreMLTestModel.bytes(specificationVersion: 3).write(
      to: downloads.appendingPathComponent("onboarding_upsell/74.mlmodel"))
    XCTAssertEqual(resolve().attribution.description, "onboarding_upsell@73/bundled")
  }

  /// The forms an analytics pipeline keys on: the same for the same model, different for
  /// another version or source.
  func testAttributionFormsAreStable() {
    let forms = [
      Attribution(flowName: "paywall_timing", modelVersion: 14, source: .bundled),
      Attribution(flowName: "paywall_timing", modelVersion: 15, source: .downloaded),
      Attribution(flowName: "paywall_timing", modelVersion: 14, source: .downloaded),
    ].map { ($0.description, $0.eventProperties) }
    XCTAssertEqual(
      forms.map(\.0), ["paywall_timing@14/bundled", "paywall_timing@15/downloaded", "paywall_timing@14/downloaded"])
    XCTAssertEqual(
      forms.map { $0.1.keys.sorted() }, Array(repeating: ["flow", "modelSource", "modelVersion"], count: 3))
    XCTAssertEqual(ResolvedModel.Source.bundled.rawValue, "bundled")
    XCTAssertEqual(ResolvedModel.Source.downloaded.rawValue, "downloaded")
  }

  func testOlderOrEqualDownloadsLoseToTheBundledModel() throws {
    try download(version: 72)
    try download(version: 73)
    XCTAssertEqual(resolve().source, .bundled)
  }

  func testDownloadWithUnsupportedSpecificationVersionFallsBack() throws {
    let tooNew = try download(version: 80, specificationVersion: 9)
    XCTAssertEqual(resolve().source, .bundled)
    XCTAssertTrue(exists(tooNew), "an SDK update may support it, so it stays")
  }

  func testUnsupportedNewestFallsBackToTheNewestSupportedDownload() throws {
    let supported = try download(version: 75)
    try download(version: 80, specificationVersion: 9)
    XCTAssertEqual(
      resolve(), ResolvedModel(flowName: "onboarding_upsell", url: supported, modelVersion: 75, source: .downloaded))
  }

  func testGarbageDownloadFallsBackAndIsLeftForTheUpdater() throws {
    let garbage = try write(Data("<html>503 Service Unavailable</html>".utf8), version: 75)
    XCTAssertEqual(resolve().source, .bundled)
    XCTAssertTrue(exists(garbage), "resolving only reads; the updater replaces or removes it")
  }

  func testTruncatedDownloadFallsBack() throws {
    let complete = CoreMLTestModel.bytes(specificationVersion: 4)
    try write(complete.prefix(complete.count - 1), version: 75)
    XCTAssertEqual(resolve().source, .bundled)
  }

  func testEmptyDownloadFallsBack() throws {
    try write(Data(), version: 75)
    XCTAssertEqual(resolve().source, .bundled)
  }

  /// A query: outdated, broken and too new downloads are passed over, and every file is still
  /// there afterwards, the folder's listing and each file's bytes alike (tidying is the
  /// updater's).
  func testResolvingDeletesNothing() throws {
    try download(version: 70)
    try download(version: 73)
    try download(version: 74)
    let inUse = try download(version: 75)
    try download(version: 76, specificationVersion: 9)
    try write(Data("<html>503 Service Unavailable</html>".utf8), version: 77)
    let flowDirectory = downloads.appendingPathComponent(model.flowName, isDirectory: true)
    func contents() throws -> [String: Data] {
      let names = try FileManager.default.contentsOfDirectory(atPath: flowDirectory.path)
      return try Dictionary(
        uniqueKeysWithValues: names.map { ($0, try Data(contentsOf: flowDirectory.appendingPathComponent($0))) })
    }
    let before = try contents()
    XCTAssertEqual(before.count, 12, "six downloads, each with its record")
    XCTAssertEqual(resolve().url, inUse)
    XCTAssertEqual(resolve().url, inUse, "the same answer when asked again")
    XCTAssertEqual(try contents(), before)
    XCTAssertTrue(exists(bundledURL))
  }

  func testFilesNotNamedByVersionAreIgnoredAndKept() throws {
    let flowDirectory = downloads.appendingPathComponent(model.flowName, isDirectory: true)
    try FileManager.default.createDirectory(at: flowDirectory, withIntermediateDirectories: true)
    let others = ["latest.mlmodel", "075.mlmodel", "76.mlmodel.part", "-5.mlmodel"].map {
      flowDirectory.appendingPathComponent($0)
    }
    for url in others { try CoreMLTestModel.bytes(specificationVersion: 4).write(to: url) }
    XCTAssertEqual(resolve().source, .bundled)
    for url in others { XCTAssertTrue(exists(url), url.lastPathComponent) }
  }

  /// Only what the updater verified runs: not a file dropped into the folder, not one whose
  /// bytes changed since, not one a newer SDK downloaded for itself.
  func testOnlyVerifiedDownloadsAreUsed() throws {
    let bytes = CoreMLTestModel.bytes(specificationVersion: 4)
    let dropped = try write(bytes, version: 76, recorded: false)
    XCTAssertEqual(resolve().source, .bundled)
    XCTAssertTrue(exists(dropped))
    try write(bytes, version: 77, minimumSDKVersion: "2.5.0")
    XCTAssertEqual(resolve().source, .bundled, "a newer SDK's download")
    let verified = try write(bytes, version: 75)
    XCTAssertEqual(resolve().url, verified)
    try CoreMLTestModel.bytes(specificationVersion: 3).write(to: verified)
    XCTAssertEqual(resolve().source, .bundled, "changed since it was verified")
  }

  func testOtherFlowsDownloadsAreNotUsed() throws {
    let otherFlow = downloads.appendingPathComponent("paywall_timing", isDirectory: true)
    try FileManager.default.createDirectory(at: otherFlow, withIntermediateDirectories: true)
    try CoreMLTestModel.bytes(specificationVersion: 4).write(
      to: otherFlow.appendingPathComponent("99.mlmodel"))
    try VerifiedDownload(
      modelVersion: 99, sha256: SHA256Digest.hex(of: CoreMLTestModel.bytes(specificationVersion: 4)),
      minimumSDKVersion: "1.0.0"
    ).write(in: otherFlow)
    XCTAssertEqual(resolve().source, .bundled)
  }
}
