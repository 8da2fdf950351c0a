@testable import ContextSDK
@testable import ContextSDKCore
import Foundation
import XCTest

#if canImport(CryptoKit)
  import CryptoKit
#endif

/// Checks this customer's build against its own registry: every bundled model is found in the
/// package's resource bundle, has the registered bytes and is a model this SDK can read, and the
/// `Models` folder holds exactly the registered files.
final class CustomerBuildTests: XCTestCase {
  private let configuration = ContextSDK.configuration

  /// A package whose `customer.json` is missing or unreadable runs with no models rather than
  /// crash the app; for the package itself that is a failure.
  func testThisPackagesConfigurationIsRead() {
    XCTAssertNil(ContextSDK.configurationError)
    XCTAssertNotEqual(configuration, .unavailable)
  }

  func testRegistryIsForThisSDKVersion() {
    XCTAssertEqual(configuration.sdkVersion, contextSDKVersion)
  }

  func testEveryRegisteredModelIsBundledWithItsDigest() throws {
    XCTAssertFalse(configuration.models.isEmpty)
    for model in configuration.models {
      let url = try XCTUnwrap(ContextSDK.bundledModelURL(forFlow: model.flowName), model.flowName)
      XCTAssertEqual(url.lastPathComponent, model.resourceName)
      XCTAssertEqual(try sha256(of: url), model.sha256, model.resourceName)
      let specificationVersion = try CoreMLModelHeader.specificationVersion(ofModelAt: url)
      XCTAssertEqual(specificationVersion, model.specificationVersion, model.resourceName)
      XCTAssertLessThanOrEqual(
        specificationVersion, ModelResolver.supportedSpecificationVersion, model.resourceName)
    }
  }

  func testModelsFolderHoldsExactlyTheRegisteredModels() throws {
    let first = try XCTUnwrap(configuration.models.first)
    let folder = try XCTUnwrap(ContextSDK.bundledModelURL(forFlow: first.flowName))
      .deletingLastPathComponent()
    let bundled = try FileManager.default.contentsOfDirectory(atPath: folder.path).sorted()
    XCTAssertEqual(bundled, configuration.models.map(\.resourceName).sorted())
  }

  func testWithoutDownloadsTheBundledModelIsResolved() throws {
    let emptyDownloads = FileManager.default.temporaryDirectory.appendingPathComponent(UUID().uuidString)
    for model in configuration.models {
      let resolved = try XCTUnwrap(
        ContextSDK.resolveModel(forFlow: model.flowName, downloadsDirectory: emptyDownloads))
      XCTAssertEqual(resolved.source, .bundled)
      XCTAssertEqual(resolved.modelVersion, model.modelVersion)
      XCTAssertEqual(resolved.attribution.description, "\(model.flowName)@\(model.modelVersion)/bundled")
    }
    XCTAssertNil(ContextSDK.resolveModel(forFlow: "no_such_flow", downloadsDirectory: emptyDownloads))
  }

  /// Every input of every bundled model is a signal this SDK computes: introduced at or before
  /// its version, as the SDK's own table of signals says.
  func testEveryModelInputIsASignalThisSDKComputes() throws {
    func version(_ text: String) throws -> [Int] {
      let parts = text.split(separator: ".").compactMap { Int($0) }
      return try XCTUnwrap(parts.count == 3 ? parts : nil, text)
    }
    let sdk = try version(contextSDKVersion)
    for model in configuration.models {
      XCTAssertFalse(model.inputNames.isEmpty, model.flowName)
      for input in model.inputNames {
        let introduced = try XCTUnwrap(SDKSignals.introduced[input], "\(model.flowName): \(input) is no SDK signal")
        XCTAssertFalse(sdk.lexicographicallyPrecedes(try version(introduced)), "\(input) is newer than this SDK")
      }
    }
  }

  func testBundleIdentifierCheckAcceptsTheCustomersAppsOnly() {
    XCTAssertFalse(configuration.bundleIdentifiers.isEmpty)
    for identifier in configuration.bundleIdentifiers {
      XCTAssertTrue(ContextSDK.isAllowed(bundleIdentifier: identifier), identifier)
    }
    let other = "com.example.not-this-customer-\(UUID().uuidString)"
    XCTAssertFalse(ContextSDK.isAllowed(bundleIdentifier: other))
    XCTAssertFalse(ContextSDK.isAllowed(bundleIdentifier: nil))
  }

  /// The platform's SHA-256: CryptoKit on Apple platforms, coreutils' `sha256sum` on Linux
  /// (Foundation there has no digest API, and a hand-written one could not vouch for the bytes).
  private func sha256(of url: URL) throws -> String {
    #if canImport(CryptoKit)
      let digest = SHA256.hash(data: try Data(contentsOf: url))
      return digest.map { String(format: "%02x", $0) }.joined()
    #else
      let process = Process()
      process.executableURL = URL(fileURLWithPath: "/usr/bin/sha256sum")
      process.arguments = [url.path]
      let output = Pipe()
      process.standardOutput = output
      // Woken when it exits, rather than by `waitUntilExit`, which polls every 50 ms.
      let exited = DispatchSemaphore(value: 0)
      process.terminationHandler = { _ in exited.signal() }
      try process.run()
      let printed = output.fileHandleForReading.readDataToEndOfFile()
      exited.wait()
      XCTAssertEqual(process.terminationStatus, 0, "sha256sum \(url.path)")
      return String(String(decoding: printed, as: UTF8.self).prefix(64))
    #endif
  }
}
