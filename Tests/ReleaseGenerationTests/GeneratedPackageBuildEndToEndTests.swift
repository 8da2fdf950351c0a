import Foundation
import ReleaseGeneration
import ReleaseSystem
import ReleaseTestSupport
import XCTest

/// The one end-to-end check that a generated package really builds and passes its own tests
/// (resources through `Bundle.module`, digests, the resolver), and that a build directory
/// warmed by one customer is reused for the next: regenerating the package in the same
/// directory for another customer with the same features compiles nothing (what differs is
/// data: `customer.json` and the models), and its tests read that customer's configuration.
///
/// The package stays where it is on purpose: a warmed directory copied to another path does not
/// build (Swift 6.3.1, Linux): the Clang module cache in `.build` records its absolute path
/// ("precompiled file … was compiled with module cache path …, missing required module
/// 'SwiftShims'"), and without that cache every module is recompiled because every path changed.
final class GeneratedPackageBuildEndToEndTests: XCTestCase {
  func testGeneratedPackageBuildsAndPassesItsTestsAndReusesWarmBuilds() throws {
    let root = try GenerationFixtures.temporaryDirectory(self, keepOnFailure: true)
    let package = root.appendingPathComponent("ContextSDK", isDirectory: true)
    _ = try PackageGenerator.generate(
      try GenerationFixtures.input(),
      template: try PackageTemplate.load(GenerationFixtures.templateDirectory), into: package)
    let cold = try buildAndTest(package, log: root.appendingPathComponent("cold.log"))

    _ = try PackageGenerator.generate(
      try GenerationFixtures.input(for: GenerationFixtures.otherCustomer),
      template: try PackageTemplate.load(GenerationFixtures.templateDirectory), into: package)
    let warm = try buildAndTest(package, log: root.appendingPathComponent("warm.log"))
    // Swift 6 language mode, complete data-race checking: the package builds without a warning.
    for (name, build) in [("cold", cold), ("warm", warm)] {
      let warnings = build.output.split(separator: "\n").filter { $0.contains("warning:") }
      XCTAssertEqual(warnings, [], "\(name) build of the generated package printed warnings")
    }

    let recompiled = Set(
      warm.output.split(separator: "\n").compactMap { line -> String? in
        guard let range = line.range(of: "Compiling ") else { return nil }
        return line[range.upperBound...].split(separator: " ").first.map(String.init)
      })
    XCTAssertEqual(recompiled, [], "another customer with the same features compiled modules")
    // The tests that passed read the second customer's configuration: the bundle holds it.
    let bundled = package.appendingPathComponent(".build/debug/ContextSDK_ContextSDK.resources/customer.json")
    XCTAssertEqual(
      try Data(contentsOf: bundled),
      try Data(contentsOf: package.appendingPathComponent(PackageGenerator.customerFile)))
    XCTAssertTrue(
      try String(contentsOf: bundled, encoding: .utf8).contains(GenerationFixtures.otherCustomer.appID))
    let seconds = { (value: Double) in String(format: "%.1f s", value) }
    print(
      "GeneratedPackageBuildEndToEndTests: cold build+test \(seconds(cold.seconds)); after swapping the customer "
        + "\(seconds(warm.seconds)), compiled \(recompiled.sorted().joined(separator: ", "))")
  }

  private struct BuildResult {
    var seconds: Double
    var output: String
  }

  /// `swift test`, which builds the package (with testability, as the tool's build slots do)
  /// and its tests; a consumer's plain build of a generated package is proven by
  /// `FeatureSubsetEndToEndTests` and `ReleasesRepositoryEndToEndTests`.
  private func buildAndTest(_ package: URL, log: URL) throws -> BuildResult {
    let start = Date()
    let result = try SharedModuleCache.swift(["test"], in: package, logFile: log)
    guard result.exitCode == 0 else {
      let output = (try? String(contentsOf: log, encoding: .utf8)) ?? ""
      XCTFail("swift test failed in \(package.path) (log \(log.path)):\n\(output.suffix(4000))")
      throw SystemError.processFailed(command: "swift test", exitCode: result.exitCode, logPath: log.path)
    }
    let seconds = Date().timeIntervalSince(start)
    return BuildResult(seconds: seconds, output: try String(contentsOf: log, encoding: .utf8))
  }
}
