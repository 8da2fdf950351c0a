import Foundation
import ReleaseJSON
import XCTest

@testable import ReleaseManifest
@testable import ReleaseModels

/// A model store that only lists flows and versions, for validating manifests without model
/// files. Validation must never need a model's bytes, so `localFile` fails the test.
struct ListedFlowsModelStore: ModelStore {
  /// The flows the repository's `customers.json` refers to.
  static let repositoryFlows: [String: [Int]] = [
    "onboarding_upsell": [72, 73, 74],
    "paywall_timing": [12, 13, 14],
    "tracking_permission": [5],
    "rating_request": [30, 31],
    "trial_reminder": [3],
  ]

  struct LocalFileRequested: Error {}

  var versionsByFlow: [String: [Int]] = Self.repositoryFlows
  var displayName: String { "listed flows" }

  func flowNames() throws -> [String] { versionsByFlow.keys.sorted() }

  func versions(of flowName: String) throws -> [Int] { (versionsByFlow[flowName] ?? []).sorted() }

  func localFile(for reference: ModelReference) throws -> URL {
    XCTFail("manifest validation asked the model store for the file of \(reference)")
    throw LocalFileRequested()
  }
}

enum ManifestFixtures {
  /// The repository root, found from this file's place: Tests/ReleaseManifestTests/<file>.
  static let repositoryRoot = URL(fileURLWithPath: #filePath)
    .deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
  static let repositoryManifest = repositoryRoot.appendingPathComponent("customers.json")
  static let invalidManifests = repositoryRoot.appendingPathComponent("Tests/Fixtures/Manifests/Invalid")
  static let templateDirectory = repositoryRoot.appendingPathComponent("templates/ContextSDK")

  /// The template's real `features.json`, named as the tool names it.
  static func catalog() throws -> FeatureCatalog {
    let files =
      FileManager.default.enumerator(atPath: templateDirectory.path)?.allObjects
      .compactMap { $0 as? String } ?? []
    return try FeatureCatalog.load(
      data: try Data(contentsOf: templateDirectory.appendingPathComponent(FeatureCatalog.fileName)),
      displayPath: "templates/ContextSDK/features.json", templateFiles: files)
  }
}

extension XCTestCase {
  /// The diagnostics `ManifestLoader` reports for `json`, as printed lines; fails when it loads.
  func manifestErrors(
    _ json: String, store: ModelStore = ListedFlowsModelStore(), file: StaticString = #filePath,
    line: UInt = #line
  ) -> [String] {
    manifestDiagnostics(json, store: store, file: file, line: line).map(\.description)
  }

  func manifestDiagnostics(
    _ json: String, store: ModelStore = ListedFlowsModelStore(), file: StaticString = #filePath,
    line: UInt = #line
  ) -> [Diagnostic] {
    do {
      let manifest = try ManifestLoader.load(path: "customers.json", data: Data(json.utf8), store: store)
      XCTFail(
        "expected validation to fail, but it loaded \(manifest.customers.count) customers", file: file,
        line: line)
      return []
    } catch let failure as ValidationFailure {
      return failure.diagnostics
    } catch {
      XCTFail("expected a ValidationFailure, got \(error)", file: file, line: line)
      return []
    }
  }
}
