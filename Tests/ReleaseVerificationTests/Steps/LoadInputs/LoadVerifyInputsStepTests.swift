import Foundation
import ReleaseCore
import ReleaseSettings
import ReleaseTestSupport
import XCTest

@testable import ReleaseVerification

extension InputSettings {
  /// The repository's own inputs, as a workspace copies them.
  /// The repository's inputs, at their default paths, with a 64 MiB model limit.
  static let repository: InputSettings = {
    var inputs = InputSettings()
    inputs.maximumModelSize = 64 << 20
    return inputs
  }()
}

extension VerifySettings {
  /// No URL, no key, no repository: what packages of a plain `release all` carry.
  static let unsigned = VerifySettings(packages: PackageSettings(), configurationPath: "release.config.json")
}

/// What verify checks every release against, read once, and its bad input named.
final class LoadVerifyInputsStepTests: XCTestCase {
  func testReadsTheStoreTemplateAndManifestOnce() throws {
    let workspace = try Workspace()
    let step = StepContext(root: workspace.root)

    let inputs = try step.pipeline.run(LoadVerifyInputsStep(settings: .unsigned), .repository)

    let modelFiles = try FileManager.default.subpathsOfDirectory(atPath: workspace.file("models").path)
      .filter { $0.hasSuffix(".mlmodel") }
    XCTAssertEqual(inputs.storeModels.count, modelFiles.count)
    XCTAssertFalse(inputs.manifest.customers.isEmpty)
    XCTAssertFalse(inputs.signals.isEmpty)
    XCTAssertEqual(step.runner.invocations.count, 0, "reading starts no process")
  }

  func testAMissingManifestIsBadInputNamingIt() throws {
    let workspace = try Workspace()
    let step = StepContext(root: workspace.root)
    var locations = InputSettings.repository
    locations.manifestPath = "nowhere.json"

    XCTAssertThrowsError(try step.pipeline.run(LoadVerifyInputsStep(settings: .unsigned), locations)) {
      error in
      XCTAssertEqual((error as? ReleaseError)?.exitCode, 2, "\(error)")
      XCTAssertTrue("\((error as? ReleaseError)?.lines ?? [])".contains("nowhere.json"), "\(error)")
    }
  }
}
