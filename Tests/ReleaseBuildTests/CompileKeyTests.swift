import Foundation
import ReleaseSystem
import ReleaseTestSupport
import XCTest

@testable import ReleaseBuild
@testable import ReleasePipeline

/// The compile key, the predicted resource bundle and the registry of proven test binaries,
/// in-process on small planted packages.
final class CompileKeyTests: XCTestCase {
  private var root: URL!

  override func setUpWithError() throws {
    root = FileManager.default.temporaryDirectory.appendingPathComponent("compile-key-\(UUID().uuidString)")
  }

  override func tearDownWithError() throws { try? FileManager.default.removeItem(at: root) }

  /// A package shaped like a generated one: a manifest, sources, tests, resources and docs.
  private func package(_ name: String, resources: [String: String] = [:], edits: [String: String] = [:])
    throws
    -> URL
  {
    let directory = root.appendingPathComponent(name)
    var files = [
      "Package.swift": "// swift-tools-version:6.0\n",
      "Sources/ContextSDKCore/Core.swift": "public let core = 1\n",
      "Sources/ContextSDK/ContextSDK.swift": "@_exported import ContextSDKCore\n",
      "Tests/ContextSDKTests/Tests.swift": "import XCTest\n",
      "README.md": "# \(name)\n",
      "CHANGELOG.md": "## \(name)\n",
      "Sources/ContextSDK/Resources/customer.json": #"{"id":"\#(name)"}"#,
      "Sources/ContextSDK/Resources/Models/flow_v1.mlmodel": "model of \(name)",
    ]
    for (path, text) in resources { files["Sources/ContextSDK/Resources/" + path] = text }
    for (path, text) in edits { files[path] = text }
    for (path, text) in files {
      let url = directory.appendingPathComponent(path)
      try FileManager.default.createDirectory(
        at: url.deletingLastPathComponent(), withIntermediateDirectories: true)
      try Data(text.utf8).write(to: url)
    }
    return directory
  }

  private func key(_ package: URL, toolchain: String = "Swift version 6.3.1", flags: [String] = ["-g"]) throws
    -> CompileKey
  {
    try CompileKey.of(package: package, toolchain: toolchain, flags: flags)
  }

  func testCustomersDifferingOnlyInResourcesAndDocsShareAKey() throws {
    let acme = try package("acme")
    let cobalt = try package("cobalt", resources: ["Models/other_v2.mlmodel": "another model"])
    XCTAssertEqual(try key(acme), try key(cobalt))
    XCTAssertFalse(
      try CompileKey.compileInputs(in: acme).contains { $0.contains("Resources") || $0.hasSuffix(".md") })
  }

  func testASwiftFileTheManifestTheToolchainOrAFlagMakesANewKey() throws {
    let base = try key(try package("base"))
    let keys = [
      try key(try package("source", edits: ["Sources/ContextSDKCore/Core.swift": "public let core = 2\n"])),
      try key(try package("test", edits: ["Tests/ContextSDKTests/Tests.swift": "import XCTest // \n"])),
      try key(try package("manifest", edits: ["Package.swift": "// swift-tools-version:6.1\n"])),
      try key(try package("added", edits: ["Sources/ContextSDKCore/More.swift": ""])),
      try key(try package("toolchain"), toolchain: "Swift version 6.3.2"),
      try key(try package("flags"), flags: ["-g", "-O"]),
    ]
    for (index, other) in keys.enumerated() { XCTAssertNotEqual(other, base, "variant \(index)") }
    XCTAssertEqual(Set(keys).count, keys.count)
  }

  func testAFileMovedToAnotherPathMakesANewKey() throws {
    let moved = try package("moved", edits: ["Sources/ContextSDKCore/Core.swift": ""])
    try FileManager.default.moveItem(
      at: moved.appendingPathComponent("Sources/ContextSDK/ContextSDK.swift"),
      to: moved.appendingPathComponent("Sources/ContextSDK/Renamed.swift"))
    let original = try package("original", edits: ["Sources/ContextSDKCore/Core.swift": ""])
    XCTAssertNotEqual(try key(moved), try key(original))
  }

  func testThePredictedBundleIsTheResourcesFolderAndAnAssembledOneMatchesIt() throws {
    let acme = try package("acme")
    let predicted = try ResourceBundle.predicted(forPackage: acme)
    XCTAssertEqual(predicted.keys.sorted(), ["Models/flow_v1.mlmodel", "customer.json"])
    let bundle = root.appendingPathComponent("out/ContextSDK_ContextSDK.resources")
    try ResourceBundle.assemble(predicted, at: bundle)
    XCTAssertNil(try ResourceBundle.difference(predicted: predicted, bundle: bundle))
    XCTAssertEqual(
      try Data(contentsOf: bundle.appendingPathComponent("customer.json")),
      try Data(contentsOf: acme.appendingPathComponent("Sources/ContextSDK/Resources/customer.json")))
  }

  func testEveryKindOfDifferenceFromThePredictionIsFound() throws {
    let acme = try package("acme")
    let predicted = try ResourceBundle.predicted(forPackage: acme)
    func bundle(_ change: (URL) throws -> Void) throws -> String? {
      let bundle = root.appendingPathComponent("bundle-\(UUID().uuidString)")
      try FileManager.default.copyItem(
        at: acme.appendingPathComponent("Sources/ContextSDK/Resources"), to: bundle)
      try change(bundle)
      return try ResourceBundle.difference(predicted: predicted, bundle: bundle)
    }
    XCTAssertNil(try bundle { _ in })
    let extra = try bundle {
      try Data("x".utf8).write(to: $0.appendingPathComponent("Models/extra_v1.mlmodel"))
    }
    XCTAssertEqual(extra, "SwiftPM's bundle has Models/extra_v1.mlmodel, which the prediction lacks")
    let missing = try bundle {
      try FileManager.default.removeItem(at: $0.appendingPathComponent("customer.json"))
    }
    XCTAssertEqual(missing, "SwiftPM's bundle lacks customer.json")
    let changed = try bundle {
      try Data("other".utf8).write(to: $0.appendingPathComponent("Models/flow_v1.mlmodel"))
    }
    XCTAssertEqual(changed, "SwiftPM's copy of Models/flow_v1.mlmodel differs from the prediction")
  }

  /// The key's other customers wait for its first; a first that fails on its own account
  /// leaves the proof to the next; a difference makes every later one fall back.
  func testCustomersOfAKeyWaitForItsProof() throws {
    let compiled = CompiledTests(directory: root.appendingPathComponent("compiled"))
    let key = CompileKey(digest: String(repeating: "ab", count: 32))
    guard case .prove = compiled.claim(key) else { return XCTFail("the first customer proves the key") }

    let waiter = expectation(description: "the second customer's claim")
    let second = Locked<CompiledTests.Claim?>(nil)
    DispatchQueue.global().async {
      second.set(compiled.claim(key))
      waiter.fulfill()
    }
    compiled.resolve(key, nil)
    wait(for: [waiter], timeout: 30)
    guard case .prove = second.value else { return XCTFail("after a failed first, the next proves the key") }

    let binary = CompiledTests.Binary(
      key: key, executable: root.appendingPathComponent("t.xctest"), bundleName: "P_T.resources")
    compiled.resolve(key, .run(binary))
    guard case .run(let given) = compiled.claim(key) else { return XCTFail("a proven key gives its binary") }
    XCTAssertEqual(given.executable, binary.executable)

    let other = CompileKey(digest: String(repeating: "cd", count: 32))
    _ = compiled.claim(other)
    compiled.resolve(other, .fallBack("planted"))
    guard case .fallBack(let reason) = compiled.claim(other) else {
      return XCTFail("a difference falls back")
    }
    XCTAssertEqual(reason, "planted")
    // A first customer that then fails its own tests leaves the key decided.
    compiled.resolve(other, nil)
    guard case .fallBack = compiled.claim(other) else { return XCTFail("a decided key stays decided") }
    XCTAssertEqual(other.short, "cdcdcdcdcdcd")
  }

  /// A further customer runs the classes of the customer-data modules only, and must run
  /// exactly as many tests as they hold.
  func testTheCustomerDataTestsAreTheClassesOfTheDataModules() {
    let listed = """
      Listing 5 tests in ContextSDKPackageTests.xctest:

      ContextSDKTests.CustomerBuildTests/testRegistry
      ContextSDKTests.CustomerBuildTests/testModels
      ContextSDKTests.OtherTests/testOne
      ContextSDKCoreTests.ModelUpdaterTests/testRollout
      ContextSDKConversionTests.ConversionMomentTests/testMoments
      """
    let data = CompiledTests.dataTests(listed: listed)
    XCTAssertEqual(data.classes, ["ContextSDKTests.CustomerBuildTests", "ContextSDKTests.OtherTests"])
    XCTAssertEqual(data.count, 3)
  }
}
