import Foundation
import ReleaseSettings

/// What `release verify` is asked to check, made by the command from its settings: the
/// releases, where their inputs are, and what a release run would put in every package.
package struct VerifyRequest: Sendable {
  /// Zips, release directories, dist directories or release.json files, as given.
  package var paths: [String]
  package var inputs: VerifyInputLocations
  /// What a release run puts in every package besides the customer's inputs, as `release
  /// all` takes it (a release is reproduced with the same values), and the keys a zip's
  /// signature is checked against.
  package var settings: VerifySettings
  /// Whether each release is built and run (`--no-build`: only its contents are checked).
  package var build: Bool
  /// Seconds each build or test of a package may take.
  package var timeout: Double

  package init(
    paths: [String], inputs: VerifyInputLocations, settings: VerifySettings, build: Bool, timeout: Double
  ) {
    self.paths = paths
    self.inputs = inputs
    self.settings = settings
    self.build = build
    self.timeout = timeout
  }
}

/// Where the inputs every release is checked against are read from, as given.
package struct VerifyInputLocations: Sendable {
  package var manifestPath: String
  /// Always a directory: the foreign-model scan reads every model of the store.
  package var modelsPath: String
  package var maximumModelSize: Int64
  package var templatesPath: String
  /// The package's CHANGELOG.md is made from the releases the state file records.
  package var statePath: String

  package init(
    manifestPath: String, modelsPath: String, maximumModelSize: Int64, templatesPath: String,
    statePath: String
  ) {
    self.manifestPath = manifestPath
    self.modelsPath = modelsPath
    self.maximumModelSize = maximumModelSize
    self.templatesPath = templatesPath
    self.statePath = statePath
  }
}
