import Foundation
import ReleaseCore
import ReleaseGeneration
import ReleaseManifest
import ReleaseModels
import ReleasePipeline
import ReleaseSettings

// The values `release verify`'s steps pass on (see `Verification.run`): the releases found,
// the inputs read once, and each release's findings as its checks go.

/// What every release is checked against, read once (`LoadVerifyInputsStep`): the model
/// store, the template, the manifest, every model's digest, and what the packages are
/// regenerated from.
package struct VerifyInputs: Sendable {
  let store: DirectoryModelStore
  /// Every release is regenerated from the same template, and its features.json says which
  /// features a customer entry may name.
  let template: PackageTemplate
  let manifest: Manifest
  let storeModels: StoreModels
  let templateWords: PackageContentScans.TemplateWords
  /// The template's signals, as every package lists them.
  let signals: [String: String]
  /// The releases the state file records: the package's CHANGELOG.md is made from them.
  let state: ReleaseState
  /// The SDK's CHANGELOG.md sections by version, for release notes.
  let sdkChangelog: [String: [String]]
  let locations: InputSettings
  let settings: VerifySettings
}

/// A release to verify: its directory, and the archive's file name when the argument named
/// the zip itself.
package struct ReleaseLocation: Equatable, Sendable {
  package var directory: URL
  package var namedArchive: String? = nil

  package init(directory: URL, namedArchive: String? = nil) {
    self.directory = directory
    self.namedArchive = namedArchive
  }
}

/// One release as its checks go: its release.json once read, its customer in the manifest,
/// and what is wrong with it so far. A check runs only while nothing is.
package struct ReleaseFindings: Sendable {
  package var location: ReleaseLocation
  /// Nil when release.json cannot be read (then that is the one problem).
  package var record: ReleaseRecord?
  /// The manifest's entry of the customer release.json names.
  package var customer: Customer?
  package var problems: [String] = []
  /// What the code under check printed when it failed: its text, not the tool's.
  package var printed: [String] = []

  package var passed: Bool { record != nil && problems.isEmpty }

  /// Why a check after the first failed one does not run.
  static let earlierCheckFailed = "an earlier check of the release failed"
}
