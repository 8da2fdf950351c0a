import Foundation
import ReleaseManifest
import XCTest

/// `.github/workflows/apple.yml`, which no runner here can run: it is checked for its shape
/// (the lines of a YAML block mapping this file uses: no tabs, two-space indents, every step
/// named with a `run` or `uses`), for the checks the package needs on Apple platforms, and for
/// its matrix: real customers of `customers.json`, exactly one per feature combination.
final class AppleWorkflowTests: XCTestCase {
  private let root = GenerationFixtures.repositoryRoot
  private var workflow: String {
    get throws {
      try String(contentsOf: root.appendingPathComponent(".github/workflows/apple.yml"), encoding: .utf8)
    }
  }

  func testTheWorkflowIsWellFormed() throws {
    let lines = try workflow.split(separator: "\n", omittingEmptySubsequences: false).map(String.init)
    for (number, line) in lines.enumerated() where !line.trimmingCharacters(in: .whitespaces).isEmpty {
      XCTAssertFalse(line.contains("\t"), "line \(number + 1): a tab")
      let indent = line.prefix { $0 == " " }.count
      XCTAssertEqual(indent % 2, 0, "line \(number + 1): indented by \(indent)")
      XCTAssertFalse(line.hasSuffix(" "), "line \(number + 1): trailing space")
    }
    let topLevel = lines.filter { !$0.hasPrefix(" ") && !$0.hasPrefix("#") && !$0.isEmpty }
    XCTAssertEqual(topLevel, ["name: apple", "on:", "permissions:", "jobs:"])
    // Steps: each `- ` item at the steps' indent has a name or uses, and a run or uses.
    let steps = try self.steps(lines)
    XCTAssertGreaterThan(steps.count, 6)
    for step in steps {
      XCTAssertTrue(step.contains { $0.hasPrefix("name:") || $0.hasPrefix("uses:") }, "\(step)")
      XCTAssertTrue(step.contains { $0.hasPrefix("run:") || $0.hasPrefix("uses:") }, "\(step)")
    }
  }

  func testTheWorkflowRunsWhatThePackageNeedsOnApplePlatforms() throws {
    let text = try workflow
    for needed in [
      "workflows: [release]", "name: dist", "runs-on: macos-",
      "swift test --package-path \"$PACKAGE\" -Xswiftc -warnings-as-errors",
      "generic/platform=iOS", "generic/platform=tvOS", "generic/platform=watchOS", "platform=macOS",
      "xcodebuild test", "platform=iOS Simulator", "xcrun coremlcompiler compile",
      "plutil -lint Sources/ContextSDK/Resources/PrivacyInfo.xcprivacy",
      "import CryptoKit", "/^## Usage/", "SWIFT_TREAT_WARNINGS_AS_ERRORS=YES",
    ] {
      XCTAssertTrue(text.contains(needed), needed)
    }
  }

  func testTheMatrixHoldsOneRealCustomerPerFeatureCombination() throws {
    let matrixLine = try XCTUnwrap(
      try workflow.split(separator: "\n").first {
        $0.trimmingCharacters(in: .whitespaces).hasPrefix("customer: [")
      })
    let named = matrixLine.drop { $0 != "[" }.dropFirst().prefix { $0 != "]" }
      .split(separator: ",").map { $0.trimmingCharacters(in: .whitespaces) }
    let combinations = try featureCombinations()
    var covered: [Set<String>] = []
    for id in named {
      let features = try XCTUnwrap(combinations[id], "\(id) is no customer of customers.json")
      XCTAssertFalse(covered.contains(features), "\(id): \(features.sorted()) is named twice")
      covered.append(features)
    }
    XCTAssertEqual(Set(covered), Set(combinations.values), "every feature combination of customers.json")
  }

  /// Each customer's features, as the release gives them: those it lists, else those its
  /// flows need (`FeatureCatalog.features(serving:)`).
  private func featureCombinations() throws -> [String: Set<String>] {
    let catalog = try FeatureCatalog.load(
      data: try Data(
        contentsOf: GenerationFixtures.templateDirectory.appendingPathComponent("features.json")),
      displayPath: "features.json",
      templateFiles: ["Sources/ContextSDKATT/x.swift", "Sources/ContextSDKConversion/x.swift"])
    let entries = try XCTUnwrap(
      try JSONSerialization.jsonObject(with: Data(contentsOf: root.appendingPathComponent("customers.json")))
        as? [[String: Any]])
    var combinations: [String: Set<String>] = [:]
    for entry in entries {
      let name = entry["name"] as? String
      let id =
        entry["id"] as? String ?? Customer.derivedID(name: name, appID: entry["app_id"] as? String ?? "")
      let flows = (entry["customModels"] as? [[String: Any]] ?? []).compactMap { $0["flowName"] as? String }
      combinations[id] = Set(entry["features"] as? [String] ?? catalog.features(serving: flows))
    }
    return combinations
  }

  /// The keys of each item of `steps:`, without their values.
  private func steps(_ lines: [String]) throws -> [[String]] {
    let start = try XCTUnwrap(lines.firstIndex { $0.trimmingCharacters(in: .whitespaces) == "steps:" })
    let itemIndent = lines[start].prefix { $0 == " " }.count + 2
    var steps: [[String]] = []
    for line in lines[(start + 1)...] {
      let indent = line.prefix { $0 == " " }.count
      let content = line.trimmingCharacters(in: .whitespaces)
      if content.isEmpty { continue }
      if indent < itemIndent { break }
      if indent == itemIndent, content.hasPrefix("- ") {
        steps.append([String(content.dropFirst(2))])
      } else if indent == itemIndent + 2, !steps.isEmpty {
        steps[steps.count - 1].append(content)
      }
    }
    return steps
  }
}
