import Foundation
import ReleaseArchive
import ReleaseCLITestSupport
import ReleaseManifest
import ReleaseTestSupport
import XCTest

/// Issue 34, the package a customer receives: for a manifest mixing the repository's customers
/// with another, no zip holds another customer's app id, bundle identifier, id or name (read by
/// a scan of its own over every entry of every zip); a foreign app id planted in a template
/// test, or `UserDefaults.standard` in a template source without its declaration, stops the
/// run before anything is recorded or published, naming the file. The runs are `release
/// customer` (the pipeline of `release all` for the named customers), and acme, the customer
/// planted, is in the manifest only. What is checked is the tool's archive of the generated
/// tree, never a build's output, so `swift build` is a stand-in that compiles nothing, in a
/// cache of the test's own: a real build of the planted core source would recompile the
/// process's warm slot, and the next test's build would recompile it back.
final class PackageContentEndToEndTests: XCTestCase {
  static let manifest = """
    [
      {"id": "harbor", "name": "Harbor Bank", "bundle_identifiers": ["com.harborbank.mobile"],
       "app_id": "9b2e4f6a-1c3d-4e5f-8a7b-6c5d4e3f2a19", "features": ["att"],
       "customModels": [{"flowId": 8364, "flowName": "tracking_permission", "modelVersion": 5}]},
      {"id": "acme", "name": "Acme Fitness", "bundle_identifiers": ["com.acme.fitness", "com.acme.fitness.widget"],
       "app_id": "3f2b8c1e-6d4a-4e9b-9a51-0c7d2e8f4a10",
       "customModels": [{"flowId": 8363, "flowName": "paywall_timing", "modelVersion": 14}]},
      {"id": "quill", "name": "Quill Journal", "bundle_identifiers": ["com.quilljournal.ios"],
       "app_id": "6a1f0c3e-9d2b-4c8a-b7e5-1f4d3c2b0a98", "features": ["att"],
       "customModels": [{"flowId": 8364, "flowName": "tracking_permission", "modelVersion": 5}]}
    ]
    """

  /// Each customer's identifiers, lower-cased, as the issue lists them.
  private func identifiers() throws -> [(customer: String, texts: [String])] {
    let entries = try XCTUnwrap(
      try JSONSerialization.jsonObject(with: Data(Self.manifest.utf8)) as? [[String: Any]])
    return try entries.map { entry in
      let id = try XCTUnwrap(entry["id"] as? String)
      let appID = try XCTUnwrap(entry["app_id"] as? String).lowercased()
      let texts =
        [
          id, try XCTUnwrap(entry["name"] as? String).lowercased(), appID,
          appID.replacingOccurrences(of: "-", with: ""),
        ]
        + (try XCTUnwrap(entry["bundle_identifiers"] as? [String]))
      return (id, texts)
    }
  }

  /// Every entry of every zip in dist/, lower-cased, searched for each other customer's
  /// identifiers between characters that are no letter, digit or `_`.
  private func foreignIdentifiers(in dist: URL) throws -> [String] {
    let customers = try identifiers()
    var found: [String] = []
    let zips = try XCTUnwrap(FileManager.default.enumerator(atPath: dist.path)?.allObjects as? [String])
      .filter { $0.hasSuffix(".zip") }
    XCTAssertEqual(Set(zips.map { String($0.prefix { $0 != "/" }) }), ["harbor", "quill"], "\(zips)")
    for zip in zips {
      let owner = String(zip.prefix { $0 != "/" })
      var entries = 0
      try ZipReader.forEachFile(in: dist.appendingPathComponent(zip)) { entry, data in
        entries += 1
        var bytes = Data()
        try data.forEachBlock { bytes.append(contentsOf: $0) }
        let text = String(decoding: bytes, as: UTF8.self).lowercased()
        for (customer, texts) in customers where customer != owner {
          for identifier in texts {
            let pattern =
              "(?<![a-z0-9_])" + NSRegularExpression.escapedPattern(for: identifier) + "(?![a-z0-9_])"
            if text.range(of: pattern, options: .regularExpression) != nil {
              found.append("\(zip): \(entry.path) holds \(identifier) of \(customer)")
            }
          }
        }
      }
      XCTAssertGreaterThan(entries, 20, zip)
    }
    return found
  }

  func testNoPackageHoldsAnotherCustomerAndAPlantedOneStopsTheRun() throws {
    let workspace = try Workspace(manifest: Self.manifest)
    let run = { (arguments: [String]) in try workspace.runWithoutCompiling(arguments + ["--skip-tests"]) }
    let built = try run(["customer", "harbor", "quill"])
    XCTAssertEqual(built.exitCode, 0, built.allOutput)
    XCTAssertEqual(try foreignIdentifiers(in: workspace.dist), [])

    // A foreign app id, upper-case and without dashes, in a template test of the core.
    let test = workspace.file(
      "templates/ContextSDK/Tests/ContextSDKCoreTests/BundleIdentifierCheckTests.swift")
    let original = try String(contentsOf: test, encoding: .utf8)
    try (original + "\n// 3F2B8C1E6D4A4E9B9A510C7D2E8F4A10\n").write(
      to: test, atomically: true, encoding: .utf8)
    let line = original.split(separator: "\n", omittingEmptySubsequences: false).count + 1
    let stateBefore = try Data(contentsOf: workspace.file("release-state.json"))
    let planted = try run(["customer", "harbor"])
    XCTAssertEqual(planted.exitCode, 1, planted.allOutput)
    XCTAssertTrue(
      planted.standardError.contains { printed in
        printed.hasPrefix("error: check artifacts: harbor: ContextSDK_Harbor-")
          && printed.hasSuffix(
            ".zip: Tests/ContextSDKCoreTests/BundleIdentifierCheckTests.swift:\(line) holds the app id of customer acme; a package holds nothing of another customer"
          )
      }, planted.allOutput)
    XCTAssertEqual(
      try Data(contentsOf: workspace.file("release-state.json")), stateBefore, "nothing recorded")
    try original.write(to: test, atomically: true, encoding: .utf8)

    // User defaults in the core's sources, which the core does not declare.
    let source = workspace.file("templates/ContextSDK/Sources/ContextSDKCore/Preferences.swift")
    try "import Foundation\n\nenum Preferences {\n  static var store: UserDefaults { .standard }\n}\n"
      .write(to: source, atomically: true, encoding: .utf8)
    let undeclared = try run(["customer", "harbor"])
    XCTAssertEqual(undeclared.exitCode, 1, undeclared.allOutput)
    XCTAssertTrue(
      undeclared.standardError.contains { printed in
        printed.hasPrefix("error: check artifacts: harbor: ContextSDK_Harbor-")
          && printed.contains(
            ".zip: Sources/ContextSDKCore/Preferences.swift:4 uses UserDefaults (NSPrivacyAccessedAPICategoryUserDefaults), which Sources/ContextSDK/Resources/PrivacyInfo.xcprivacy does not declare"
          )
      }, undeclared.allOutput)
    XCTAssertEqual(
      try Data(contentsOf: workspace.file("release-state.json")), stateBefore, "nothing recorded")
  }
}
