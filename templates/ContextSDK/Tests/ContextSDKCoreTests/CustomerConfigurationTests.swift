@testable import ContextSDKCore
import Foundation
import XCTest

final class CustomerConfigurationTests: XCTestCase {
  private let configuration = CustomerConfiguration(
    appID: "app", bundleIdentifiers: [], sdkVersion: "1.0.0",
    models: [
      FlowModel(
        flowId: 8362, flowName: "onboarding_upsell", modelVersion: 73, sha256: "", inputNames: [],
        specificationVersion: 4, resourceName: "onboarding_upsell_v73.mlmodel"),
      FlowModel(
        flowId: 8363, flowName: "paywall_timing", modelVersion: 14, sha256: "", inputNames: [],
        specificationVersion: 4, resourceName: "paywall_timing_v14.mlmodel"),
    ])

  func testFindsModelsByFlowNameAndFlowId() {
    XCTAssertEqual(configuration.model(forFlow: "paywall_timing")?.flowId, 8363)
    XCTAssertEqual(configuration.model(forFlow: 8362)?.flowName, "onboarding_upsell")
    XCTAssertNil(configuration.model(forFlow: "rating_request"))
    XCTAssertNil(configuration.model(forFlow: 1))
  }

  func testReadsTheConfigurationTheReleaseToolWrites() throws {
    let file = try temporaryFile(Self.json)
    defer { try? FileManager.default.removeItem(at: file) }
    let expected = CustomerConfiguration(
      appID: "app", bundleIdentifiers: [], sdkVersion: "1.0.0", models: configuration.models,
      modelManifestURL: nil, features: ["conversion"])
    XCTAssertEqual(try CustomerConfiguration.load(from: file), expected)
  }

  /// A build that pins keys follows only its signed manifest; one that pins none, only its
  /// legacy unsigned one; one with neither has no channel.
  func testTheChannelIsTheSignedOneWheneverKeysArePinned() throws {
    let key = TrustedKey(keyID: String(repeating: "a", count: 64), publicKey: "AAAA")
    func channel(
      legacy: String? = nil, customer: String? = nil, keys: [TrustedKey]? = nil, signed: String? = nil
    ) -> ModelChannel? {
      CustomerConfiguration(
        appID: "app", bundleIdentifiers: [], sdkVersion: "1.0.0", models: [], modelManifestURL: legacy,
        customer: customer, trustedKeys: keys, manifestURL: signed
      ).channel
    }
    let legacy = "https://cdn.example.com/ota/example/models.json"
    let signed = "https://cdn.example.com/ota/0123456789abcdef0123456789abcdef/manifest.json"
    XCTAssertEqual(
      channel(legacy: legacy, customer: "example", keys: [key], signed: signed),
      .signed(manifestURL: try XCTUnwrap(URL(string: signed)), customer: "example", trustedKeys: [key]))
    XCTAssertEqual(
      channel(legacy: legacy), .legacyUnsigned(manifestURL: try XCTUnwrap(URL(string: legacy))))
    XCTAssertNil(channel(legacy: legacy, customer: "example", keys: [], signed: signed), "no key pinned")
    XCTAssertNil(channel(legacy: legacy, customer: "example", keys: [key]), "keys without a signed manifest URL")
    XCTAssertNil(channel(legacy: legacy, keys: [key], signed: signed), "keys without the customer's id")
    XCTAssertNil(channel(customer: "example", signed: signed), "a signed manifest URL without keys")
    XCTAssertNil(channel())
  }

  /// The shape of a delivered package's customer.json: sorted keys, no manifest URL when the
  /// release has no over-the-air models.
  private static let json = """
    {
      "appID" : "app",
      "bundleIdentifiers" : [],
      "features" : ["conversion"],
      "models" : [
        {
          "flowId" : 8362, "flowName" : "onboarding_upsell", "inputNames" : [], "modelVersion" : 73,
          "resourceName" : "onboarding_upsell_v73.mlmodel", "sha256" : "", "specificationVersion" : 4
        },
        {
          "flowId" : 8363, "flowName" : "paywall_timing", "inputNames" : [], "modelVersion" : 14,
          "resourceName" : "paywall_timing_v14.mlmodel", "sha256" : "", "specificationVersion" : 4
        }
      ],
      "sdkVersion" : "1.0.0"
    }
    """

  func testAMissingOrUnreadableConfigurationIsATypedErrorNamingIt() throws {
    XCTAssertThrowsError(try CustomerConfiguration.load(from: nil)) { error in
      XCTAssertEqual(error as? CustomerConfigurationError, .missing)
      XCTAssertEqual("\(error)", "customer.json is missing from the package's resources")
      XCTAssertEqual(error.localizedDescription, "customer.json is missing from the package's resources")
    }
    // Not a configuration, not JSON, not there, not a file: each one `unreadable`, naming it.
    let incomplete = try temporaryFile(#"{"appID": "app"}"#)
    let notJSON = try temporaryFile("customer")
    let absent = FileManager.default.temporaryDirectory.appendingPathComponent("customer-\(UUID().uuidString).json")
    let folder = FileManager.default.temporaryDirectory.appendingPathComponent("customer-\(UUID().uuidString).json")
    try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
    defer {
      for url in [incomplete, notJSON, folder] { try? FileManager.default.removeItem(at: url) }
    }
    for file in [incomplete, notJSON, absent, folder] {
      do throws(CustomerConfigurationError) {
        _ = try CustomerConfiguration.load(from: file)
        XCTFail("\(file.lastPathComponent) was read")
      } catch {
        guard case .unreadable(let name, _) = error else { return XCTFail("\(error)") }
        XCTAssertEqual(name, file.lastPathComponent)
        XCTAssertTrue("\(error)".hasPrefix("\(file.lastPathComponent) cannot be read: "), "\(error)")
      }
    }
  }

  func testAConfigurationThatCannotBeReadGivesTheUnavailableOneAndTheError() throws {
    let missing = CustomerConfiguration.loadOrUnavailable(from: nil)
    XCTAssertEqual(missing.configuration, .unavailable)
    XCTAssertEqual(missing.error, .missing)
    XCTAssertTrue(CustomerConfiguration.unavailable.models.isEmpty)
    XCTAssertTrue(CustomerConfiguration.unavailable.bundleIdentifiers.isEmpty)
    XCTAssertNil(CustomerConfiguration.unavailable.modelManifestURL)

    let file = try temporaryFile(#"{"appID": "app"}"#)
    defer { try? FileManager.default.removeItem(at: file) }
    let unreadable = CustomerConfiguration.loadOrUnavailable(from: file)
    XCTAssertEqual(unreadable.configuration, .unavailable)
    guard case .unreadable(let name, _) = unreadable.error else {
      return XCTFail("\(String(describing: unreadable.error))")
    }
    XCTAssertEqual(name, file.lastPathComponent)

    let readable = try temporaryFile(Self.json)
    defer { try? FileManager.default.removeItem(at: readable) }
    let read = CustomerConfiguration.loadOrUnavailable(from: readable)
    XCTAssertNil(read.error)
    XCTAssertEqual(read.configuration.appID, "app")
  }

  private func temporaryFile(_ text: String) throws -> URL {
    let url = FileManager.default.temporaryDirectory.appendingPathComponent(
      "customer-\(UUID().uuidString).json")
    try Data(text.utf8).write(to: url)
    return url
  }
}
