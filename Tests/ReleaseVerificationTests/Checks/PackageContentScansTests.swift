import Foundation
import ReleaseGeneration
import ReleaseManifest
import ReleaseTestSupport
import XCTest

@testable import ReleaseVerification

/// The scans that read every file of a package, on files given directly: another customer's
/// identifiers in any file (issue 34), and a privacy manifest that declares exactly the
/// required-reason APIs the package's sources use.
final class PackageContentScansTests: XCTestCase {
  private let harbor = Customer(
    id: "harbor", name: "Harbor Bank", appID: "9b2e4f6a-1c3d-4e5f-8a7b-6c5d4e3f2a19",
    bundleIdentifiers: ["com.harborbank.mobile"], customModels: [], index: 0, line: 1)
  private let acme = Customer(
    id: "acme", name: "Acme Fitness", appID: "3f2b8c1e-6d4a-4e9b-9a51-0c7d2e8f4a10",
    bundleIdentifiers: ["com.acme.fitness", "com.acme.fitness.widget"], customModels: [], index: 1, line: 2)
  /// A customer whose id and name are words of the template.
  private let core = Customer(
    id: "core", name: "Core", appID: "11111111-2222-4333-8444-555555555555",
    bundleIdentifiers: ["io.core.app"], customModels: [], index: 2, line: 3)

  private func foreign(_ text: String, templateWords: String = "import Foundation core") -> [String] {
    let manifest = Manifest(path: "customers.json", customers: [harbor, acme, core])
    let check = ForeignCustomerCheck(
      customerID: "harbor", manifest: manifest,
      templateWords: Set(ForeignCustomerCheck.words(of: Array(templateWords.utf8))))
    return check.problems(in: Array(text.utf8), path: "Tests/X.swift", archive: "h.zip")
  }

  func testAnotherCustomersAppIDIsFoundInAnyCaseWithOrWithoutDashes() {
    for text in [
      "let id = \"3F2B8C1E-6D4A-4E9B-9A51-0C7D2E8F4A10\"", "3f2b8c1e6d4a4e9b9a510c7d2e8f4a10",
      "x\n\n// 3F2B8C1E6D4A4E9B9A510C7D2E8F4A10",
    ] {
      XCTAssertEqual(foreign(text).count, 1, text)
      XCTAssertTrue(foreign(text).first?.contains("app id of customer acme") == true, text)
    }
    XCTAssertEqual(
      foreign("a\nb\n// 3F2B8C1E6D4A4E9B9A510C7D2E8F4A10"),
      [
        "h.zip: Tests/X.swift:3 holds the app id of customer acme; a package holds nothing of another customer"
      ])
  }

  func testBundleIdentifiersNamesAndIDsAreFoundAsWholeTokensOnly() {
    XCTAssertEqual(foreign(#"["com.acme.fitness.widget"]"#).count, 2, "both bundle ids, once each")
    XCTAssertEqual(foreign("server.url(\"/ota/acme/models.json\")").count, 1)
    XCTAssertEqual(foreign("// Built for ACME FITNESS").count, 2, "name and id")
    XCTAssertEqual(foreign("acmes acme_fitness acme2 xacme 3f2b8c1e6d4a"), [])
  }

  func testAnIDThatIsATemplateWordIsCheckedByItsOtherIdentifiersOnly() {
    XCTAssertEqual(foreign("import Foundation // core"), [])
    XCTAssertEqual(foreign("let bundle = \"io.core.app\"").count, 1)
    XCTAssertEqual(foreign("11111111-2222-4333-8444-555555555555").count, 1)
  }

  /// The template's words a run exempts are found in the template's files: a customer whose id
  /// is `import` (a word of every Swift file) or whose name is `Foundation`, not one called
  /// `harbor` (the template holds no customer's identifiers).
  func testTheTemplateWordsAreTheIdentifiersTheTemplateUsesAsWords() throws {
    let template = try PackageTemplate.load(RepositoryRoot.url.appendingPathComponent("templates/ContextSDK"))
    let words = Customer(
      id: "import", name: "Foundation", appID: "22222222-3333-4444-8555-666666666666",
      bundleIdentifiers: ["org.example.import"], customModels: [], index: 3, line: 4)
    let manifest = Manifest(path: "customers.json", customers: [harbor, acme, words])
    let found = ForeignCustomerCheck.templateWords(template, manifest: manifest)
    XCTAssertEqual(found, [Array("import".utf8), Array("foundation".utf8)])
  }

  func testTheCustomersOwnIdentifiersAreItsOwn() {
    XCTAssertEqual(
      foreign("Harbor Bank com.harborbank.mobile 9B2E4F6A-1C3D-4E5F-8A7B-6C5D4E3F2A19 harbor"), [])
  }

  // MARK: - Privacy manifest

  private func privacy(_ files: [String: String]) -> [String] {
    var check = PrivacyManifestCheck()
    for (path, text) in files.sorted(by: { $0.key < $1.key }) { check.add(Array(text.utf8), path: path) }
    return check.problems(archive: "h.zip")
  }

  private func manifest(_ declarations: PrivacyDeclarations) -> String {
    PrivacyManifest.render(declarations)
  }

  func testUserDefaultsInSourcesMustBeDeclared() {
    let source = "import Foundation\n\nlet store = UserDefaults.standard\n"
    XCTAssertEqual(
      privacy(["Sources/ContextSDKCore/Store.swift": source, PrivacyManifest.file: manifest([:])]),
      [
        "h.zip: Sources/ContextSDKCore/Store.swift:3 uses UserDefaults (NSPrivacyAccessedAPICategoryUserDefaults), which Sources/ContextSDK/Resources/PrivacyInfo.xcprivacy does not declare; declare it with its reason in features.json (the core's \"core\", a feature's own \"privacy\")"
      ])
    XCTAssertEqual(
      privacy([
        "Sources/ContextSDKCore/Store.swift": source,
        PrivacyManifest.file: manifest([.userDefaults: ["CA92.1"]]),
      ]), [])
    XCTAssertEqual(
      privacy(["Tests/ContextSDKCoreTests/StoreTests.swift": source, PrivacyManifest.file: manifest([:])]),
      [],
      "tests do not ship in the app")
  }

  func testADeclarationNoSourceUsesAndAMissingOrBrokenManifestAreRefused() {
    let timestamps = "let date = attributes[.modificationDate]"
    XCTAssertEqual(
      privacy([
        "Sources/ContextSDKCore/A.swift": timestamps,
        PrivacyManifest.file: manifest([.fileTimestamp: ["C617.1"], .systemBootTime: ["35F9.1"]]),
      ]),
      [
        "h.zip: Sources/ContextSDK/Resources/PrivacyInfo.xcprivacy declares NSPrivacyAccessedAPICategorySystemBootTime, which no file under Sources/ uses; remove it from features.json"
      ])
    XCTAssertEqual(
      privacy(["Sources/ContextSDKCore/A.swift": timestamps]),
      [
        "h.zip: Sources/ContextSDK/Resources/PrivacyInfo.xcprivacy is missing; every package declares its privacy"
      ])
    let tracking = manifest([:]).replacingOccurrences(of: "<false/>", with: "<true/>")
    XCTAssertEqual(privacy([PrivacyManifest.file: tracking]).count, 1)
    let badReason = manifest([.fileTimestamp: ["C617.1"]]).replacingOccurrences(of: "C617.1", with: "CA92.1")
    XCTAssertEqual(
      privacy(["Sources/A.swift": timestamps, PrivacyManifest.file: badReason]),
      [
        "h.zip: Sources/ContextSDK/Resources/PrivacyInfo.xcprivacy: NSPrivacyAccessedAPITypes[0]: expected a category of Apple's list, once, with reasons Apple accepts for it"
      ])
    XCTAssertEqual(privacy([PrivacyManifest.file: "not a plist"]).count, 1)
  }

  /// The rendered manifest is a property list with exactly what was declared.
  func testTheRenderedManifestParsesAsAPropertyList() throws {
    let text = manifest([.userDefaults: ["CA92.1"], .fileTimestamp: ["C617.1", "3B52.1"]])
    let plist = try XCTUnwrap(
      try PropertyListSerialization.propertyList(from: Data(text.utf8), format: nil) as? [String: Any])
    XCTAssertEqual(plist["NSPrivacyTracking"] as? Bool, false)
    XCTAssertEqual((plist["NSPrivacyTrackingDomains"] as? [Any])?.count, 0)
    XCTAssertEqual((plist["NSPrivacyCollectedDataTypes"] as? [Any])?.count, 0)
    let types = try XCTUnwrap(plist["NSPrivacyAccessedAPITypes"] as? [[String: Any]])
    XCTAssertEqual(
      types.map { $0["NSPrivacyAccessedAPIType"] as? String },
      [
        "NSPrivacyAccessedAPICategoryFileTimestamp", "NSPrivacyAccessedAPICategoryUserDefaults",
      ])
    XCTAssertEqual(
      types.map { $0["NSPrivacyAccessedAPITypeReasons"] as? [String] }, [["C617.1", "3B52.1"], ["CA92.1"]])
  }

  // MARK: - features.json

  private func catalog(_ json: String) throws -> FeatureCatalog {
    try FeatureCatalog.load(
      data: Data(json.utf8), displayPath: "features.json", templateFiles: ["Sources/ContextSDKATT/A.swift"])
  }

  func testFeaturesJSONDeclaresTheCoresAndEachFeaturesPrivacy() throws {
    let loaded = try catalog(
      #"""
      {"core": {"privacy": {"NSPrivacyAccessedAPICategoryFileTimestamp": ["C617.1"]}},
       "features": {"att": {"module": "ContextSDKATT", "summary": "s", "flows": ["f"], "signals": ["s"],
         "privacy": {"NSPrivacyAccessedAPICategoryUserDefaults": ["CA92.1"],
                     "NSPrivacyAccessedAPICategoryFileTimestamp": ["C617.1", "3B52.1"]}}}}
      """#)
    XCTAssertEqual(
      loaded.privacy(of: loaded.features), [.fileTimestamp: ["C617.1", "3B52.1"], .userDefaults: ["CA92.1"]])
    XCTAssertEqual(loaded.privacy(of: []), [.fileTimestamp: ["C617.1"]])
  }

  func testAnUnknownCategoryOrReasonIsRefusedWithItsPath() {
    XCTAssertThrowsError(
      try catalog(
        #"""
        {"core": {"privacy": {"NSPrivacyAccessedAPICategoryClipboard": ["X"]}},
         "features": {"att": {"module": "ContextSDKATT", "summary": "s", "flows": ["f"], "signals": ["s"],
           "privacy": {"NSPrivacyAccessedAPICategoryUserDefaults": ["C617.1"]}}}}
        """#)
    ) { error in
      let text = "\(error)"
      XCTAssertTrue(text.contains("core.privacy.NSPrivacyAccessedAPICategoryClipboard"), text)
      XCTAssertTrue(text.contains("features.att.privacy.NSPrivacyAccessedAPICategoryUserDefaults[0]"), text)
      XCTAssertTrue(text.contains("CA92.1"), text)
    }
  }
}
