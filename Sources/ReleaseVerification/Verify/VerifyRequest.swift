import Foundation
import ReleaseSettings

/// What `release verify` is asked to check, made by the command from its settings: the
/// releases, where their inputs are, and what a release run would put in every package.
package struct VerifyRequest: Sendable {
  /// Zips, release directories, dist directories or release.json files, as given.
  package var paths: [String]
  package var inputs: InputSettings
  /// What a release run puts in every package besides the customer's inputs, as `release
  /// all` takes it (a release is reproduced with the same values), and the keys a zip's
  /// signature is checked against.
  package var settings: VerifySettings
  /// Whether each release is built and run (`--no-build`: only its contents are checked).
  package var build: Bool
  /// Seconds each build or test of a package may take.
  package var timeout: Double

  package init(
    paths: [String], inputs: InputSettings, settings: VerifySettings, build: Bool, timeout: Double
  ) {
    self.paths = paths
    self.inputs = inputs
    self.settings = settings
    self.build = build
    self.timeout = timeout
  }
}
