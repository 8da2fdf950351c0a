@testable import ContextSDKCore
import Foundation
import XCTest

/// The model loader with a stand-in for Core ML's compiler that counts its calls: a model is
/// compiled once per model digest and OS build, a compiled copy that does not load is compiled
/// again, and a download that fails twice leaves the flow on its bundled model.
final class ModelLoaderTests: XCTestCase {
  /// Compiles a file into a folder holding `compiled:` and the file's bytes; loads such a
  /// folder back as those bytes. A source whose name is in `unloadable` compiles but never loads.
  final class StandInCompiler: ModelCompiling, @unchecked Sendable {
    private let lock = NSLock()
    private var compiled: [String] = []
    let unloadable: Set<String>

    init(unloadable: Set<String> = []) { self.unloadable = unloadable }

    var compiles: [String] {
      lock.lock()
      defer { lock.unlock() }
      return compiled
    }

    struct NotCompiled: Error {}

    func compile(_ source: URL) throws -> URL {
      lock.lock()
      compiled.append(source.lastPathComponent)
      lock.unlock()
      let output = FileManager.default.temporaryDirectory.appendingPathComponent(
        "compiled-\(UUID().uuidString)")
      try FileManager.default.createDirectory(at: output, withIntermediateDirectories: true)
      let marker = unloadable.contains(source.lastPathComponent) ? "broken:" : "compiled:"
      try (Data(marker.utf8) + Data(contentsOf: source)).write(to: output.appendingPathComponent("model.bin"))
      return output
    }

    func load(_ compiled: URL) throws -> String {
      let bytes = try Data(contentsOf: compiled.appendingPathComponent("model.bin"))
      guard bytes.starts(with: Data("compiled:".utf8)) else { throw NotCompiled() }
      return String(decoding: bytes.dropFirst("compiled:".count), as: UTF8.self)
    }
  }

  private var folder: URL!
  private var cache: URL { folder.appendingPathComponent("cache") }

  override func setUpWithError() throws {
    folder = FileManager.default.temporaryDirectory.appendingPathComponent("loader-\(UUID().uuidString)")
    try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
  }

  override func tearDownWithError() throws {
    try? FileManager.default.removeItem(at: folder)
  }

  private func source(_ version: Int, _ origin: ResolvedModel.Source, bytes: String) throws -> ModelSource {
    let url = folder.appendingPathComponent("\(origin.rawValue)-\(version).mlmodel")
    try Data(bytes.utf8).write(to: url)
    return ModelSource(
      resolved: ResolvedModel(flowName: "onboarding_upsell", url: url, modelVersion: version, source: origin),
      sha256: SHA256Digest.hex(of: Data(bytes.utf8)))
  }

  private func bundledOnly() throws -> FlowModelSources {
    let bundled = try source(73, .bundled, bytes: "model 73")
    return FlowModelSources(current: bundled, bundled: bundled)
  }

  private func compiledCopies() -> [String] {
    let flow = cache.appendingPathComponent("onboarding_upsell")
    return ((try? FileManager.default.contentsOfDirectory(atPath: flow.path)) ?? []).sorted()
  }

  func testAHundredRequestsCompileOnceAndALaterLaunchNotAgain() async throws {
    let compiler = StandInCompiler()
    let sources = try bundledOnly()
    let loader = ModelLoader(
      compiler: compiler, cacheDirectory: cache, systemBuild: "Version 17.5 (Build 21F79)")
    for _ in 0..<100 {
      let loaded = try await loader.model(sources)
      XCTAssertEqual(loaded.model, "model 73")
      XCTAssertEqual(loaded.attribution.description, "onboarding_upsell@73/bundled")
      XCTAssertNil(loaded.fallback)
    }
    XCTAssertEqual(compiler.compiles, ["bundled-73.mlmodel"])
    XCTAssertEqual(compiledCopies().count, 1)

    let nextLaunch = ModelLoader(
      compiler: compiler, cacheDirectory: cache, systemBuild: "Version 17.5 (Build 21F79)")
    _ = try await nextLaunch.model(sources)
    XCTAssertEqual(compiler.compiles.count, 1, "the compiled copy is used")

    let afterSystemUpdate = ModelLoader(
      compiler: compiler, cacheDirectory: cache, systemBuild: "Version 17.6 (Build 21G80)")
    _ = try await afterSystemUpdate.model(sources)
    XCTAssertEqual(compiler.compiles.count, 2, "another OS build compiles again")
    XCTAssertEqual(compiledCopies().count, 1, "the earlier launch's copy is removed")
  }

  func testACorruptedCompiledCopyIsCompiledAgain() async throws {
    let compiler = StandInCompiler()
    let sources = try bundledOnly()
    _ = try await ModelLoader(compiler: compiler, cacheDirectory: cache, systemBuild: "b").model(sources)
    let copy = try XCTUnwrap(compiledCopies().first)
    try Data("garbage".utf8).write(
      to: cache.appendingPathComponent("onboarding_upsell/\(copy)/model.bin"))

    let loaded = try await ModelLoader(compiler: compiler, cacheDirectory: cache, systemBuild: "b").model(
      sources)
    XCTAssertEqual(loaded.model, "model 73")
    XCTAssertEqual(compiler.compiles.count, 2)
    XCTAssertEqual(compiledCopies(), [copy], "replaced in place")
  }

  func testADownloadThatFailsTwiceFallsBackToTheBundledModelAndSaysSo() async throws {
    let compiler = StandInCompiler(unloadable: ["downloaded-74.mlmodel"])
    let bundled = try source(73, .bundled, bytes: "model 73")
    let download = try source(74, .downloaded, bytes: "model 74")
    let loader = ModelLoader(compiler: compiler, cacheDirectory: cache, systemBuild: "b")
    let sources = FlowModelSources(current: download, bundled: bundled)

    let loaded = try await loader.model(sources)
    XCTAssertEqual(loaded.model, "model 73")
    XCTAssertEqual(loaded.attribution.description, "onboarding_upsell@73/bundled")
    XCTAssertEqual(loaded.fallback?.failed.description, "onboarding_upsell@74/downloaded")
    XCTAssertEqual(
      compiler.compiles, ["downloaded-74.mlmodel", "downloaded-74.mlmodel", "bundled-73.mlmodel"])

    let again = try await loader.model(sources)
    XCTAssertEqual(again.fallback, loaded.fallback)
    XCTAssertEqual(compiler.compiles.count, 3, "a model that failed twice is not tried again in this launch")
  }

  func testABundledModelThatFailsTwiceIsAnError() async throws {
    let compiler = StandInCompiler(unloadable: ["bundled-73.mlmodel"])
    let loader = ModelLoader(compiler: compiler, cacheDirectory: cache, systemBuild: "b")
    let sources = try bundledOnly()
    do {
      _ = try await loader.model(sources)
      XCTFail("a model that never loads was handed out")
    } catch {
      XCTAssertEqual(error, .unusable(sources.bundled.resolved.attribution, reason: "NotCompiled()"))
    }
    XCTAssertEqual(compiler.compiles.count, 2)
  }

  /// A model the app loaded stays in the cache while it runs, though a newer one loads.
  func testAModelInUseIsKeptUntilTheNextLaunch() async throws {
    let compiler = StandInCompiler()
    let bundled = try source(73, .bundled, bytes: "model 73")
    let download = try source(74, .downloaded, bytes: "model 74")
    let loader = ModelLoader(compiler: compiler, cacheDirectory: cache, systemBuild: "b")
    _ = try await loader.model(FlowModelSources(current: bundled, bundled: bundled))
    _ = try await loader.model(FlowModelSources(current: download, bundled: bundled))
    XCTAssertEqual(compiledCopies().count, 2)

    let nextLaunch = ModelLoader(compiler: compiler, cacheDirectory: cache, systemBuild: "b")
    let loaded = try await nextLaunch.model(FlowModelSources(current: download, bundled: bundled))
    XCTAssertEqual(loaded.model, "model 74")
    XCTAssertEqual(compiledCopies().count, 1)
    XCTAssertTrue(compiledCopies()[0].hasPrefix("74-"), compiledCopies()[0])
  }

  /// What a build hands the loader: its bundled model with `customer.json`'s digest, or a
  /// verified download with the digest the updater recorded.
  func testABuildHandsOutItsVerifiedDownloadElseItsBundledModel() throws {
    let downloads = folder.appendingPathComponent("downloads")
    let sources = try XCTUnwrap(
      TestBuild.modelSources(forFlow: "onboarding_upsell", downloadsDirectory: downloads))
    XCTAssertEqual(sources.current, sources.bundled)
    XCTAssertEqual(sources.bundled.sha256, TestBuild.bundledDigest)
    XCTAssertEqual(sources.bundled.resolved.attribution.description, "onboarding_upsell@73/bundled")
    XCTAssertNil(TestBuild.modelSources(forFlow: "no_such_flow", downloadsDirectory: downloads))

    let flow = downloads.appendingPathComponent("onboarding_upsell")
    try FileManager.default.createDirectory(at: flow, withIntermediateDirectories: true)
    let bytes = CoreMLTestModel.bytes(specificationVersion: 4)
    try bytes.write(to: flow.appendingPathComponent("74.mlmodel"))
    try VerifiedDownload(modelVersion: 74, sha256: SHA256Digest.hex(of: bytes), minimumSDKVersion: "1.0.0")
      .write(in: flow)
    let updated = try XCTUnwrap(
      TestBuild.modelSources(forFlow: "onboarding_upsell", downloadsDirectory: downloads))
    XCTAssertEqual(updated.current.resolved.attribution.description, "onboarding_upsell@74/downloaded")
    XCTAssertEqual(updated.current.sha256, SHA256Digest.hex(of: bytes))
    XCTAssertEqual(updated.bundled, sources.bundled)
  }
}

/// A build with one bundled model, for `modelSources`.
private enum TestBuild: CustomerBuild {
  static let bundledDigest = String(repeating: "ab", count: 32)

  static var configuration: CustomerConfiguration {
    CustomerConfiguration(
      appID: "0000000A-0000-4000-8000-00000000000B", bundleIdentifiers: ["com.example.app"],
      sdkVersion: "2.4.0",
      models: [
        FlowModel(
          flowId: 8362, flowName: "onboarding_upsell", modelVersion: 73, sha256: bundledDigest,
          inputNames: ["x"],
          specificationVersion: 4, resourceName: "onboarding_upsell_v73.mlmodel")
      ])
  }

  static func bundledModelURL(forFlow flowName: String) -> URL? {
    configuration.model(forFlow: flowName).map {
      FileManager.default.temporaryDirectory.appendingPathComponent($0.resourceName)
    }
  }
}
