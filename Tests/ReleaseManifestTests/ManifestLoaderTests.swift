import Foundation
import ReleaseJSON
import XCTest

@testable import ReleaseManifest
@testable import ReleaseModels

final class ManifestLoaderTests: XCTestCase {
  /// One valid entry; tests change one thing at a time.
  private let acme = """
    {"id": "acme", "bundle_identifiers": ["com.acme.fitness"], "app_id": "3f2b8c1e-6d4a-4e9b-9a51-0c7d2e8f4a10",
     "customModels": [{"flowId": 8362, "flowName": "onboarding_upsell", "modelVersion": 73}]}
    """

  // MARK: - The repository's manifest

  func testLoadsTheRepositoryManifest() throws {
    let manifest = try ManifestLoader.load(
      contentsOf: ManifestFixtures.repositoryManifest, displayPath: "customers.json",
      store: ListedFlowsModelStore(), features: try ManifestFixtures.catalog())

    XCTAssertEqual(manifest.path, "customers.json")
    XCTAssertEqual(
      manifest.customers.map(\.id),
      ["acme", "bluebird", "cobalt", "driftwood", "ember", "fjord-travel", "harbor"])
    XCTAssertEqual(manifest.customers.map(\.index), Array(0..<7))
    XCTAssertEqual(manifest.customers.map(\.line), [2, 12, 22, 33, 42, 53, 64])
    // Listed features are kept as listed; the others are nil (what their flows need).
    XCTAssertEqual(
      manifest.customers.map(\.features), [nil, nil, nil, nil, nil, ["att", "conversion"], ["att"]])
    XCTAssertEqual(
      manifest.customers[0],
      Customer(
        id: "acme", name: "Acme Fitness", appID: "3f2b8c1e-6d4a-4e9b-9a51-0c7d2e8f4a10",
        bundleIdentifiers: ["com.acme.fitness", "com.acme.fitness.widget"],
        customModels: [
          CustomModel(flowId: 8362, flowName: "onboarding_upsell", modelVersion: 73),
          CustomModel(flowId: 8363, flowName: "paywall_timing", modelVersion: 14),
        ],
        index: 0, line: 2))
    let fjord = try XCTUnwrap(manifest.customer(matching: "fjord-travel"))
    XCTAssertEqual(fjord.name, "Fjord Travel")
    XCTAssertEqual(
      fjord.customModels.map(\.reference.description),
      ["tracking_permission v5", "rating_request v31", "trial_reminder v3"])
  }

  func testNamesTheFileByItsPathWhenNoDisplayPathIsGiven() throws {
    let url = ManifestFixtures.repositoryManifest
    XCTAssertEqual(try ManifestLoader.load(contentsOf: url, store: ListedFlowsModelStore()).path, url.path)
  }

  func testAcceptsAByteOrderMark() throws {
    let data = Data([0xEF, 0xBB, 0xBF] + Array("[\(acme)]".utf8))
    let manifest = try ManifestLoader.load(path: "customers.json", data: data, store: ListedFlowsModelStore())
    XCTAssertEqual(manifest.customers.map(\.id), ["acme"])
  }

  // MARK: - Reading

  func testReportsAFileThatCannotBeRead() throws {
    let directory = FileManager.default.temporaryDirectory.appendingPathComponent(
      "manifest-\(UUID().uuidString)")
    try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
    defer { try? FileManager.default.removeItem(at: directory) }

    for (url, expected) in [
      (
        directory.appendingPathComponent("missing.json"),
        "customers.json: cannot read the file: No such file or directory"
      ),
      (directory, "customers.json: cannot read the file: it is a directory"),
    ] {
      XCTAssertThrowsError(
        try ManifestLoader.load(
          contentsOf: url, displayPath: "customers.json", store: ListedFlowsModelStore())
      ) { error in
        XCTAssertEqual((error as? ValidationFailure)?.description, expected)
      }
    }
  }

  func testReportsASyntaxErrorAsOneDiagnosticWithLineAndColumn() {
    let json = """
      [
        {
          "bundle_identifiers": ["com.acme.fitness"
            }
      ]
      """
    let diagnostics = manifestDiagnostics(json)
    XCTAssertEqual(
      diagnostics.map(\.description),
      ["customers.json: line 4, column 7: expected ',' or ']' after array element, found '}'"])
    XCTAssertEqual(diagnostics.first?.line, 4)
  }

  func testPassesOnTheStoresOwnErrors() {
    struct StoreUnreadable: Error {}
    struct UnreadableStore: ModelStore {
      var displayName: String { "unreadable" }
      func flowNames() throws -> [String] { throw StoreUnreadable() }
      func versions(of flowName: String) throws -> [Int] { throw StoreUnreadable() }
      func localFile(for reference: ModelReference) throws -> URL { throw StoreUnreadable() }
    }
    XCTAssertThrowsError(
      try ManifestLoader.load(path: "customers.json", data: Data("[\(acme)]".utf8), store: UnreadableStore())
    ) { error in
      XCTAssertTrue(error is StoreUnreadable, "expected the store's error, got \(error)")
    }
  }

  // MARK: - Diagnostics

  func testReportsEveryProblemInDocumentOrderWithTheLineOfTheOffendingValue() {
    let json = """
      [
        {"id": "acme", "bundle_identifiers": ["com.acme.fitness"],
         "customModels": [{"flowId": 8362, "flowName": "onboarding_upsell", "modelVersion": 99}]},
        {"id": "acme", "bundle_identifiers": ["com.acme.fitness"],
         "app_id": "not-a-uuid",
         "customModels": []}
      ]
      """
    let diagnostics = manifestDiagnostics(json)
    XCTAssertEqual(
      diagnostics.map(\.description),
      [
        #"customers.json: customers[0]: missing required field "app_id""#,
        "customers.json: customers[0].customModels[0].modelVersion: onboarding_upsell v99 is not in the model store (have 72, 73, 74)",
        #"customers.json: customers[1].id: id "acme" is also used by customers[0] (acme)"#,
        #"customers.json: customers[1].bundle_identifiers[0]: bundle identifier "com.acme.fitness" is also used by customers[0] (acme)"#,
        #"customers.json: customers[1].app_id: "not-a-uuid" is not a UUID (expected 8-4-4-4-12 hex digits like 3f2b8c1e-6d4a-4e9b-9a51-0c7d2e8f4a10)"#,
        "customers.json: customers[1].customModels: expected at least one model, found an empty array (nothing to ship)",
      ])
    XCTAssertEqual(diagnostics.map(\.line), [2, 3, 4, 4, 5, 6])
  }

  func testDerivesTheIDFromTheNameOrElseTheAppID() throws {
    let json = """
      [{"name": "Ümlaut & Co. — Café", "bundle_identifiers": ["com.a.b"], "app_id": "3F2B8C1E-6D4A-4E9B-9A51-0C7D2E8F4A10",
        "customModels": [{"flowId": 8362, "flowName": "onboarding_upsell", "modelVersion": 73}]},
       {"name": "日本", "bundle_identifiers": ["com.c.d"], "app_id": "a91c44d2-0b7e-4c3f-8d26-5e1f9b0a7c33",
        "customModels": [{"flowId": 8362, "flowName": "onboarding_upsell", "modelVersion": 73}]},
       {"bundle_identifiers": ["com.e.f"], "app_id": "5d0e7f3a-8b21-4f6c-a0d9-2c4b6e8a1f57",
        "customModels": [{"flowId": 8362, "flowName": "onboarding_upsell", "modelVersion": 73}]}]
      """
    let manifest = try ManifestLoader.load(
      path: "customers.json", data: Data(json.utf8), store: ListedFlowsModelStore())
    XCTAssertEqual(manifest.customers.map(\.id), ["mlaut-co-caf", "app-a91c44d2", "app-5d0e7f3a"])
    XCTAssertEqual(manifest.customers[0].appID, "3F2B8C1E-6D4A-4E9B-9A51-0C7D2E8F4A10", "kept as written")
  }

  func testDerivedIDFromALongNameIsCutToAValidSlug() throws {
    // The slug is cut at 40 characters; a hyphen left at the cut is dropped.
    let name = String(repeating: "a", count: 39) + " Fitness"
    let json = acme.replacingOccurrences(of: #""id": "acme""#, with: #""name": "\#(name)""#)
    let manifest = try ManifestLoader.load(
      path: "customers.json", data: Data("[\(json)]".utf8), store: ListedFlowsModelStore())
    XCTAssertEqual(manifest.customers.map(\.id), [String(repeating: "a", count: 39)])
  }

  func testComparesAppIDsAndBundleIdentifiersIgnoringCase() {
    let json = """
      [\(acme),
       {"id": "other", "bundle_identifiers": ["COM.ACME.FITNESS"], "app_id": "3F2B8C1E-6D4A-4E9B-9A51-0C7D2E8F4A10",
        "customModels": [{"flowId": 8362, "flowName": "onboarding_upsell", "modelVersion": 73}]}]
      """
    XCTAssertEqual(
      manifestErrors(json),
      [
        #"customers.json: customers[1].bundle_identifiers[0]: bundle identifier "COM.ACME.FITNESS" is also used by customers[0] (acme)"#,
        #"customers.json: customers[1].app_id: app id "3F2B8C1E-6D4A-4E9B-9A51-0C7D2E8F4A10" is also used by customers[0] (acme)"#,
      ])
  }

  func testNamesTheStoresFlowsWhenAFlowIsUnknown() {
    let json = acme.replacingOccurrences(of: "onboarding_upsell", with: "upsell")
    XCTAssertEqual(
      manifestErrors("[\(json)]", store: ListedFlowsModelStore(versionsByFlow: [:])),
      [
        #"customers.json: customers[0].customModels[0].flowName: flow "upsell" is not in the model store (the store has no flows)"#
      ])
    let manyFlows = Dictionary(uniqueKeysWithValues: (1...22).map { (String(format: "flow_%02d", $0), [1]) })
    XCTAssertEqual(
      manifestErrors("[\(json)]", store: ListedFlowsModelStore(versionsByFlow: manyFlows)),
      [
        "customers.json: customers[0].customModels[0].flowName: flow \"upsell\" is not in the model store (have "
          + (1...20).map { String(format: "flow_%02d", $0) }.joined(separator: ", ") + " and 2 more)"
      ])
  }

  func testQuotesFoundValuesOnOneLineAndShortened() {
    let longName = String(repeating: "n", count: 101)
    let json = acme.replacingOccurrences(of: #""id": "acme""#, with: #""name": "\#(longName)""#)
    let diagnostics = manifestErrors("[\(json)]")
    XCTAssertEqual(
      diagnostics,
      [
        "customers.json: customers[0].name: expected at most 100 characters, found 101: \""
          + String(repeating: "n", count: 60) + "…\""
      ])
  }

  // MARK: - Rules

  func testBundleIdentifierRules() {
    XCTAssertNil(ManifestRules.problem(withBundleIdentifier: "com.Example-1.app"))
    XCTAssertNil(ManifestRules.problem(withBundleIdentifier: "a." + String(repeating: "b", count: 153)))
    XCTAssertEqual(
      ManifestRules.problem(withBundleIdentifier: "a." + String(repeating: "b", count: 154)),
      "\"a.\(String(repeating: "b", count: 58))…\" is not a valid bundle identifier: it is longer than 155 characters"
    )
    XCTAssertEqual(
      ManifestRules.problem(withBundleIdentifier: "com.acme.app\n"),
      #""com.acme.app\n" is not a valid bundle identifier: character U+000A is not allowed (use A-Z, a-z, 0-9, '-' and '.')"#
    )
    XCTAssertEqual(
      ManifestRules.problem(withBundleIdentifier: "com.acme_app"),
      #""com.acme_app" is not a valid bundle identifier: character '_' is not allowed (use A-Z, a-z, 0-9, '-' and '.')"#
    )
  }

  func testNameRules() {
    XCTAssertNil(ManifestRules.problem(withName: String(repeating: "é", count: 100)))
    XCTAssertEqual(
      ManifestRules.problem(withName: "Acme\u{2028}Fitness"),
      #"expected a single line, found "Acme\u2028Fitness""#)
    XCTAssertEqual(
      ManifestRules.problem(withName: "Acme\u{7F}"),
      #"expected no control characters, found U+007F in "Acme\u007F""#)
  }

  func testFlowNameRules() {
    XCTAssertNil(ManifestRules.problem(withFlowName: "a" + String(repeating: "_", count: 63)))
    for name in [
      "", "A", "1flow", "_flow", "a" + String(repeating: "b", count: 64), "../etc", "a/b", "a..b", "flöw",
      "a-b",
      "a\"b", "a\\b", "a\nb", "a b",
    ] {
      XCTAssertNotNil(ManifestRules.problem(withFlowName: name), "accepted \(name.debugDescription)")
    }
  }

  func testAppIDRules() {
    XCTAssertNil(ManifestRules.problem(withAppID: "3F2B8C1E-6d4a-4e9b-9a51-0c7d2e8f4a10"))
    for appID in [
      "", "3f2b8c1e6d4a4e9b9a510c7d2e8f4a10", "3f2b8c1e-6d4a-4e9b-9a51-0c7d2e8f4a1",
      "3f2b8c1e-6d4a-4e9b-9a51-0c7d2e8f4a10-",
      "{3f2b8c1e-6d4a-4e9b-9a51-0c7d2e8f4a10}", "3f2b8c1g-6d4a-4e9b-9a51-0c7d2e8f4a10",
      "3f2b8c1e-6d4a-4e9b-9a51_0c7d2e8f4a10",
    ] {
      XCTAssertNotNil(ManifestRules.problem(withAppID: appID), "accepted \(appID.debugDescription)")
    }
  }

  func testSuggestsOnlyCloseMatches() {
    let fields = ["app_id", "bundle_identifiers", "customModels", "id", "name"]
    XCTAssertEqual(ManifestRules.closestMatch(to: "bundle_identifier", among: fields), "bundle_identifiers")
    XCTAssertEqual(ManifestRules.closestMatch(to: "appId", among: fields), "app_id")
    XCTAssertEqual(ManifestRules.closestMatch(to: "custom_models", among: fields), "customModels")
    XCTAssertEqual(ManifestRules.closestMatch(to: "nmae", among: fields), nil, "a transposition costs 2")
    XCTAssertEqual(ManifestRules.closestMatch(to: "nam", among: fields), "name")
    XCTAssertEqual(ManifestRules.closestMatch(to: "version", among: fields), nil)
  }
}
