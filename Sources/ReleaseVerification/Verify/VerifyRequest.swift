import Foundation
import ReleaseSigning

/// What `release verify` is asked to check, made by the command from its settings: the
/// releases, where their inputs are, and what a release run would put in every package.
package struct VerifyRequest: Sendable {
  /// Zips, release directories, dist directories or release.json files, as given.
  package var paths: [String]
  package var inputs: VerifyInputLocations
  package var packages: PackageSettings
  /// Whether each release is built and run (`--no-build`: only its contents are checked).
  package var build: Bool
  /// Seconds each build or test of a package may take.
  package var timeout: Double

  package init(
    paths: [String], inputs: VerifyInputLocations, packages: PackageSettings, build: Bool, timeout: Double
  ) {
    self.paths = paths
    self.inputs = inputs
    self.packages = packages
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

/// What a release run puts in every package besides the customer's inputs, as `release all`
/// takes it: a release is reproduced with the same values.
package struct PackageSettings: Sendable {
  /// The base of the over-the-air manifest URLs (`--public-url`, else the configuration's).
  package var publicURL: String?
  /// The keys packages pin and a zip's signature (`<zip>.sig`) is checked against
  /// (`signing.trustedKeys`); none: a signature is reported, not checked.
  package var trustedKeys: [PublicKey]
  /// Whether packages keep the legacy unsigned manifest (`publish.legacyManifests`).
  package var legacyManifests: Bool
  /// Where the `allowed_signers` line is published, named in signed packages' READMEs.
  package var allowedSignersURL: String?
  /// The releases repository's location (with `{id}`), named in every package's README.
  package var repositoryTemplate: String?
  /// The configuration file, as a note on a signature no key can check names it.
  package var configurationPath: String

  package init(
    publicURL: String?, trustedKeys: [PublicKey], legacyManifests: Bool, allowedSignersURL: String?,
    repositoryTemplate: String?, configurationPath: String
  ) {
    self.publicURL = publicURL
    self.trustedKeys = trustedKeys
    self.legacyManifests = legacyManifests
    self.allowedSignersURL = allowedSignersURL
    self.repositoryTemplate = repositoryTemplate
    self.configurationPath = configurationPath
  }
}
