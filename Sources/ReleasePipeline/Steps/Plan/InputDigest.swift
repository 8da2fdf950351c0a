import Foundation
import ReleaseCore
import ReleaseGeneration
import ReleaseManifest
import ReleaseModels
import ReleaseSettings
import ReleaseSystem

/// The content-addressed identity of a customer's release, kept as named parts so a rebuild
/// can say which input changed.
///
/// The source digest covers what goes into the package: the canonical customer entry, each
/// model's SHA-256, the template files of its package (the core and its features) and the SDK
/// version. It decides versions (a change releases only the customers it touches). The build
/// digest adds the tool version, `swift --version` and the archive's modification time
/// (`SOURCE_DATE_EPOCH`): it decides whether `dist/` already holds this release ("up to date").
package struct InputDigest: Codable, Equatable, Sendable {
  /// SHA-256 of the canonical customer entry (id, name, app id, bundle ids, flows, features).
  var entry: String
  /// `"<flowName> v<version>"` -> SHA-256 of the model file.
  package var models: [String: String]
  /// The digest of the template files the customer's package is made from: the core's and
  /// its features' (`PackageTemplate.digest(for:)`).
  package var template: String
  package var sdkVersion: String
  /// The releases repository customers add the package from (shown in its README); nil
  /// without a `git:` destination, and then left out of every digest.
  var repositoryURL: String?
  /// The over-the-air manifest URL the package's customer.json carries; nil without a public URL.
  var modelManifestURL: String?
  /// The keys the package pins for its signed channel (customer.json); nil without one.
  var trustedKeys: [PinnedKey]? = nil
  /// The signed channel's manifest URL (`<public URL>/ota/<channel>/manifest.json`); nil
  /// without one.
  var manifestURL: String? = nil
  /// The newest root document the package embeds (customer.json's `trustedRoot`); nil
  /// without one, and then left out of every digest.
  var trustedRoot: String? = nil
  /// How the package's README tells the customer to check the zip's signature (the trusted
  /// keys' fingerprints, the signer identity, where the `allowed_signers` line is published);
  /// nil without trusted keys, and then left out of every digest.
  var signatureCheck: SignatureCheck? = nil
  var tool: String
  package var toolchain: String
  /// The archive entries' modification time: the same sources zipped with another time are
  /// other bytes.
  var archiveModificationTime: Int64
  /// SHA-256 of the package's release notes (`CustomerReleaseNotes`): part of the build
  /// digest only, since the notes name the version the source digest decides.
  package var releaseNotes: String? = nil

  private struct CanonicalEntry: Encodable {
    var id: String
    var name: String?
    var appID: String
    var bundleIdentifiers: [String]
    var flows: [String]
    var features: [String]
  }

  init(
    customer: Customer, features: [String], models: [ModelReference: ModelFacts], templateDigest: String,
    sdkVersion: SemanticVersion, toolchain: String, repositoryURL: String? = nil,
    modelManifestURL: String? = nil, trustedKeys: [PinnedKey]? = nil, manifestURL: String? = nil,
    signatureCheck: SignatureCheck? = nil, archiveModificationTime: Int64 = SourceDateEpoch.defaultValue
  ) {
    let entry = CanonicalEntry(
      id: customer.id, name: customer.name, appID: customer.appID.lowercased(),
      bundleIdentifiers: customer.bundleIdentifiers,
      flows: customer.customModels.map { "\($0.flowId) \($0.flowName) v\($0.modelVersion)" }.sorted(),
      features: features.sorted())
    self.entry = SHA256Digest.hex(of: StableJSON.canonical(entry))
    self.models = Dictionary(
      uniqueKeysWithValues: customer.customModels.map {
        ($0.reference.description, models[$0.reference]?.sha256 ?? "")
      })
    self.template = templateDigest
    self.sdkVersion = sdkVersion.description
    self.repositoryURL = repositoryURL
    self.modelManifestURL = modelManifestURL
    self.trustedKeys = trustedKeys
    self.manifestURL = manifestURL
    self.signatureCheck = signatureCheck
    self.tool = "\(ReleaseTool.name) \(ReleaseTool.version)"
    self.toolchain = toolchain
    self.archiveModificationTime = archiveModificationTime
  }

  private struct SourceParts: Encodable {
    var entry: String
    var models: [String: String]
    var template: String
    var sdkVersion: String
    var repositoryURL: String?
    var modelManifestURL: String?
    var trustedKeys: [PinnedKey]?
    var manifestURL: String?
    var signatureCheck: SignatureCheck?
    var trustedRoot: String?
  }

  package var source: String {
    SHA256Digest.hex(
      of: StableJSON.canonical(
        SourceParts(
          entry: entry, models: models, template: template, sdkVersion: sdkVersion,
          repositoryURL: repositoryURL, modelManifestURL: modelManifestURL, trustedKeys: trustedKeys,
          manifestURL: manifestURL, signatureCheck: signatureCheck, trustedRoot: trustedRoot)))
  }

  var build: String { SHA256Digest.hex(of: StableJSON.canonical(self)) }

  /// Which inputs differ from an earlier build, in words.
  package func changes(since earlier: InputDigest) -> [String] {
    var changes: [String] = []
    if entry != earlier.entry { changes.append("customer entry") }
    for key in Set(models.keys).union(earlier.models.keys).sorted() where models[key] != earlier.models[key] {
      changes.append("model \(key)")
    }
    if template != earlier.template { changes.append("template") }
    if sdkVersion != earlier.sdkVersion { changes.append("SDK version") }
    if repositoryURL != earlier.repositoryURL { changes.append("releases repository URL") }
    if modelManifestURL != earlier.modelManifestURL { changes.append("over-the-air manifest URL") }
    if trustedKeys != earlier.trustedKeys { changes.append("trusted keys") }
    if manifestURL != earlier.manifestURL { changes.append("signed manifest URL") }
    if trustedRoot != earlier.trustedRoot { changes.append("root document") }
    if signatureCheck != earlier.signatureCheck { changes.append("signature check (README)") }
    if tool != earlier.tool { changes.append("tool version") }
    if toolchain != earlier.toolchain { changes.append("toolchain") }
    if releaseNotes != earlier.releaseNotes { changes.append("release notes") }
    if archiveModificationTime != earlier.archiveModificationTime {
      changes.append("archive time (SOURCE_DATE_EPOCH)")
    }
    return changes
  }
}
