import Foundation
import ReleaseOTA
import ReleaseSigning

/// What every package takes from the settings: where its over-the-air manifests are served,
/// the keys it pins and the root it embeds, how its README says to check a release's signature,
/// and the releases repository customers add it from. A release run makes its packages from
/// these (`RunSettings.packages`), and `release verify` regenerates them from the same.
package struct PackageSettings: Equatable, Sendable {
  /// Where the destinations are served: the base of every package's manifest URLs.
  package var publicURL: String?
  /// The keys packages of the signed channel pin (`signing.trustedKeys`, or the root's).
  package var trustedKeys: [PublicKey] = []
  /// The channel's root documents; the newest is embedded in packages of the signed channel.
  package var rootChain: RootChain?
  /// Whether packages keep the legacy unsigned manifest's URL beside the signed channel.
  package var legacyManifests = true
  /// Where the `allowed_signers` line of the trusted keys is published, named in READMEs.
  package var allowedSignersURL: String?
  /// The `git:` destination's location (with `{id}`), in every package's README.
  package var releasesRepository: String?

  package init() {}

  /// Whether packages get the signed channel: trusted keys and a public URL to serve it from.
  package var hasSignedChannel: Bool { !trustedKeys.isEmpty && publicURL != nil }
}

extension RunSettings {
  /// What this run's packages take from its settings.
  package var packages: PackageSettings {
    var packages = PackageSettings()
    packages.publicURL = publishing.publicURL
    packages.trustedKeys = signing.trusted
    packages.rootChain = channel.rootChain
    packages.legacyManifests = channel.legacyManifests
    packages.allowedSignersURL = publishing.allowedSignersURL
    packages.releasesRepository = publishing.releasesRepository
    return packages
  }
}
