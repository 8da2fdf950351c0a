import Foundation
import ReleaseCLITestSupport
import ReleaseSystem
import ReleaseTestSupport
import XCTest

@testable import ReleaseBuild
@testable import ReleasePipeline

/// Customers of one compile key: the first is built and tested by `swift test`, the others run
/// its test binary against their own resource bundle. acme and bluebird have the same features,
/// so the same key.
final class CompileKeyEndToEndTests: XCTestCase {
  /// Both customers, with two jobs unless said: the second customer then waits for the first's
  /// test binary rather than building beside it.
  private func customers(jobs: Int = 2) -> [String] {
    ["customer", "acme", "bluebird", "--jobs", "\(jobs)", "--json"]
  }

  /// How each customer was tested, from the `customer_finished` events.
  private func testedBy(_ run: Workspace.Run) -> [String: String] {
    var methods: [String: String] = [:]
    for event in run.events where event["event"] as? String == "customer_finished" {
      if let id = event["id"] as? String { methods[id] = event["tested_by"] as? String }
    }
    return methods
  }

  /// The customer tested by `swift test` and the key the other was tested with: whichever of
  /// the two claimed the key first proves it.
  private func firstAndKey(_ run: Workspace.Run) throws -> (first: String, key: String) {
    let methods = testedBy(run)
    let first = try XCTUnwrap(methods.first { $0.value == "swift test" }?.key, "\(methods)")
    let further = try XCTUnwrap(methods.first { $0.key != first }?.value, "\(methods)")
    return (first, try XCTUnwrap(compileKey(further), "\(methods)"))
  }

  private func compileKey(_ method: String?) -> String? {
    guard let method, method.hasPrefix("test binary of compile key ") else { return nil }
    return String(method.dropFirst("test binary of compile key ".count))
  }

  /// Every file of each customer's release directory (zip, `.sha256`, `release.json`) by path.
  private func releases(in dist: URL) throws -> [String: Data] {
    var files: [String: Data] = [:]
    for id in ["acme", "bluebird"] {
      let customer = dist.appendingPathComponent(id)
      for path in try FileManager.default.subpathsOfDirectory(atPath: customer.path) {
        let url = customer.appendingPathComponent(path)
        if (try url.resourceValues(forKeys: [.isRegularFileKey])).isRegularFile == true {
          files["\(id)/\(path)"] = try Data(contentsOf: url)
        }
      }
    }
    return files
  }

  func testAFurtherCustomerRunsTheKeysBinaryAndFailsAsSwiftTestDoes() throws {
    let workspace = try Workspace()
    let fast = workspace.run(customers())
    XCTAssertEqual(fast.exitCode, 0, fast.allOutput)
    XCTAssertEqual(testedBy(fast).count, 2)
    let key = try firstAndKey(fast).key
    let report = try String(contentsOf: workspace.dist.appendingPathComponent("report.xml"), encoding: .utf8)
    XCTAssertTrue(
      report.contains(#"<property name="tested_by" value="test binary of compile key \#(key)"/>"#))

    // The key's binary, kept aside: every run proves its keys again and removes the last
    // run's binaries.
    let cache = Workspace.sharedCache
    let compiled = cache.appendingPathComponent("compiled")
    let keyDirectory = try XCTUnwrap(
      try FileManager.default.contentsOfDirectory(atPath: compiled.path).first { $0.hasPrefix(key) })
    let binary = workspace.file("ContextSDKPackageTests.xctest")
    try FileManager.default.copyItem(
      at: compiled.appendingPathComponent(keyDirectory).appendingPathComponent(binary.lastPathComponent),
      to: binary)

    // --full-build: `swift test` for both, and the same bytes in every release file. One job:
    // both then build in the slot already warm for their features (a second slot would be
    // built cold, for nothing this shows).
    let full = workspace.run(customers(jobs: 1) + ["--full-build", "--force", "--dist", "full"])
    XCTAssertEqual(full.exitCode, 0, full.allOutput)
    XCTAssertEqual(testedBy(full), ["acme": "swift test", "bluebird": "swift test"])
    // In the slot the first run left warm for these features, the second customer compiles
    // nothing: customers of one feature set differ in data (`customer.json`, the models), and
    // SwiftPM's bundles, not the compiler, carry it.
    for id in ["acme", "bluebird"] {
      let log = try String(contentsOf: workspace.file("full/logs/\(id).log"), encoding: .utf8)
      XCTAssertTrue(log.contains("Executed "), "\(id): swift test ran")
      XCTAssertEqual(log.split(separator: "\n").filter { $0.contains("Compiling ") }, [], "\(id) compiled")
    }
    let fastReleases = try releases(in: workspace.dist)
    XCTAssertEqual(fastReleases.keys.filter { $0.hasSuffix(".zip") }.count, 2)
    XCTAssertEqual(fastReleases, try releases(in: workspace.file("full")))

    // Planted in bluebird's resources: another model's bytes under its model's name, and
    // acme's configuration (its app, bundle identifiers and models). Each must fail the same
    // tests on the key's binary as under `swift test`.
    let generated = cache.appendingPathComponent("packages/bluebird/ContextSDK_Bluebird")
    let acmeConfiguration = try Data(
      contentsOf: cache.appendingPathComponent(
        "packages/acme/ContextSDK_Acme/Sources/ContextSDK/Resources/customer.json"))
    let models = generated.appendingPathComponent("Sources/ContextSDK/Resources/Models")
    let model = try XCTUnwrap(try FileManager.default.contentsOfDirectory(atPath: models.path).sorted().first)
    let plants: [(String, (URL) throws -> Void)] = [
      (
        "mismatched model",
        { package in
          try Data(contentsOf: workspace.file("models/rating_request/30.mlmodel")).write(
            to: package.appendingPathComponent("Sources/ContextSDK/Resources/Models/\(model)"))
        }
      ),
      (
        "foreign configuration",
        { package in
          try acmeConfiguration.write(
            to: package.appendingPathComponent("Sources/ContextSDK/Resources/customer.json"))
        }
      ),
    ]
    for (name, plant) in plants {
      let package = workspace.file("planted/\(name)/ContextSDK_Bluebird")
      try FileManager.default.createDirectory(
        at: package.deletingLastPathComponent(), withIntermediateDirectories: true)
      try FileManager.default.copyItem(at: generated, to: package)
      try plant(package)
      let onBinary = try failedTests(
        runningBinary: binary, against: package, in: workspace.file("planted/\(name)/run"))
      let underSwiftTest = try failedTests(swiftTestOf: package, slots: cache.appendingPathComponent("slots"))
      XCTAssertFalse(onBinary.isEmpty, name)
      XCTAssertEqual(onBinary, underSwiftTest, name)
    }
  }

  func testASwiftChangeGivesANewKeyAndADifferenceFallsBack() throws {
    let workspace = try Workspace()
    let before = workspace.run(customers())
    XCTAssertEqual(before.exitCode, 0, before.allOutput)
    let oldKey = try firstAndKey(before).key

    // One Swift file of a feature both customers have: a test file, compiled into the key's
    // binary like every source. (A library source would make the process's warm cache, which
    // later tests build in, recompile that module and every module above it twice.)
    let source = workspace.file(
      "templates/ContextSDK/Tests/ContextSDKConversionTests/ConversionMomentTests.swift")
    try (try String(contentsOf: source, encoding: .utf8) + "\n// changed\n").write(
      to: source, atomically: true, encoding: .utf8)
    let changed = workspace.run(customers() + ["--force"])
    XCTAssertEqual(changed.exitCode, 0, changed.allOutput)
    let newKey = try firstAndKey(changed).key
    XCTAssertNotEqual(newKey, oldKey)

    // One job: both customers' `swift test` then run in the slot already warm for the key (a
    // second slot would be built cold, for nothing this shows).
    let differing = workspace.run(
      customers(jobs: 1) + ["--force"],
      environment: [SwiftBuildStep.simulateDifference: "1"])
    XCTAssertEqual(differing.exitCode, 0, differing.allOutput)
    XCTAssertEqual(testedBy(differing), ["acme": "swift test", "bluebird": "swift test"])
    let notes = differing.events.filter { $0["event"] as? String == "info" }.compactMap {
      $0["message"] as? String
    }
    XCTAssertTrue(
      notes.contains {
        $0.hasPrefix("compile key \(newKey) (") && $0.contains(" first): a difference simulated")
          && $0.hasSuffix("every customer of this key is tested with swift test")
      }, "\(notes)")
  }

  /// The names of the tests that failed, from an XCTest log.
  private func failedTests(in log: String) -> Set<String> {
    var names: Set<String> = []
    for line in log.split(separator: "\n") where line.hasPrefix("Test Case '") && line.contains("' failed") {
      names.insert(String(line.dropFirst("Test Case '".count).prefix { $0 != "'" }))
    }
    return names
  }

  /// The key's binary run as the tool runs it: beside the package's predicted bundle.
  private func failedTests(runningBinary binary: URL, against package: URL, in directory: URL) throws -> Set<
    String
  > {
    try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
    let executable = directory.appendingPathComponent(binary.lastPathComponent)
    try FileManager.default.copyItem(at: binary, to: executable)
    try ResourceBundle.assemble(
      try ResourceBundle.predicted(forPackage: package),
      at: directory.appendingPathComponent("ContextSDK_ContextSDK.resources"))
    let result = try SystemProcessRunner().run(ProcessInvocation(executable.path, [], in: directory))
    XCTAssertNotEqual(result.exitCode, 0)
    return failedTests(in: result.standardOutput + result.standardError)
  }

  /// `swift test` of the package in the warm slot that last built its manifest, with the module
  /// cache the tool's builds there used (the process's, under Scripts/test).
  private func failedTests(swiftTestOf package: URL, slots: URL) throws -> Set<String> {
    let manifest = try Data(contentsOf: package.appendingPathComponent("Package.swift"))
    let slot = try XCTUnwrap(
      try FileManager.default.contentsOfDirectory(atPath: slots.path).sorted().map {
        slots.appendingPathComponent($0).appendingPathComponent("ContextSDK")
      }.first { (try? Data(contentsOf: $0.appendingPathComponent("Package.swift"))) == manifest })
    try BuildSlots.mirror(package, into: slot)
    let result = try SystemProcessRunner().runWithOwnTemporaryDirectory(
      ProcessInvocation(
        "swift",
        [
          "test", "-Xswiftc", "-module-cache-path", "-Xswiftc",
          (BuildSlots.moduleCache(environment: ProcessInfo.processInfo.environment) {
            URL(fileURLWithPath: $0)
          } ?? slots.appendingPathComponent("module-cache")).path,
          "-Xswiftc", "-index-ignore-system-modules",
        ], in: slot, timeLimit: 600))
    XCTAssertNotEqual(result.exitCode, 0)
    return failedTests(in: result.standardOutput + result.standardError)
  }
}
