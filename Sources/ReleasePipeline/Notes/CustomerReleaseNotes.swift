import Foundation
import ReleaseCore
import ReleaseGeneration
import ReleaseManifest
import ReleaseModels
import ReleaseSystem

/// One customer's release notes for the version a run releases: what the release holds, its
/// note against the release it follows, and the notes of every earlier release (newest first),
/// all from the state file's recorded contents and the SDK's CHANGELOG.md.
///
/// Each recorded release names the one it followed, so building a version that is already
/// recorded (a fresh clone, a shard, a restored cache) makes the same notes, byte for byte, as
/// the run that first released it.
package struct CustomerReleaseNotes: Sendable, Equatable {
  package let version: SemanticVersion
  let contents: ReleaseContents
  /// This release's note first, then every earlier release's.
  package let notes: [ReleaseNote]

  package var note: ReleaseNote { notes[0] }

  /// SHA-256 of the notes: part of the build digest, so a release in dist/ made with other
  /// notes (another history) is built again.
  package var digest: String { SHA256Digest.hex(of: StableJSON.canonical(notes)) }

  package init(
    customer: Customer, version: SemanticVersion, sdkVersion: SemanticVersion,
    models: [ModelReference: ModelFacts], recorded: ReleaseState.CustomerEntry?,
    sdkChangelog: [String: [String]], templateDigest: String, modelManifestURL: String?,
    repositoryURL: String?, features: [String]
  ) {
    self.version = version
    let history = recorded?.releases ?? []
    let previousVersion: String?
    if let same = history.first(where: { $0.version == version.description }) {
      previousVersion = same.previousVersion
    } else if let recorded, recorded.version < version {
      previousVersion = recorded.version.description
    } else {
      previousVersion = history.first { (SemanticVersion($0.version).map { $0 < version }) ?? false }?.version
    }
    contents = ReleaseContents(
      version: version.description, previousVersion: previousVersion, sdkVersion: sdkVersion.description,
      bundleIdentifiers: customer.bundleIdentifiers,
      models: Dictionary(
        uniqueKeysWithValues: customer.customModels.map { model in
          let facts = models[model.reference]
          return (
            model.flowName,
            ReleaseContents.Model(
              flowId: model.flowId, modelVersion: model.modelVersion, sha256: facts?.sha256 ?? "",
              shortDescription: facts?.info.shortDescription ?? "")
          )
        }),
      templateDigest: templateDigest, modelManifestURL: modelManifestURL, repositoryURL: repositoryURL,
      features: features.sorted())
    // Back along the chain of releases, each to the one it followed; a version whose contents
    // were not recorded (a state file from before release notes) ends it.
    var notes: [ReleaseNote] = []
    var release = contents
    while notes.count <= history.count {
      let previous: ReleaseNotes.Previous
      if let version = release.previousVersion {
        previous =
          history.first { $0.version == version }.map { .recorded($0) } ?? .unrecorded(version: version)
      } else {
        previous = .none
      }
      notes.append(ReleaseNotes.note(for: release, previous: previous, sdkChangelog: sdkChangelog))
      guard case .recorded(let earlier) = previous else { break }
      release = earlier
    }
    self.notes = notes
  }

  /// The state entry once this release is recorded: its contents go first in the history.
  package func recorded(after entry: ReleaseState.CustomerEntry?, sourceDigest: String)
    -> ReleaseState.CustomerEntry
  {
    let earlier = (entry?.releases ?? []).filter { $0.version != contents.version }
    return ReleaseState.CustomerEntry(
      version: version, sourceDigest: sourceDigest, releases: [contents] + earlier)
  }

  /// The SDK's CHANGELOG.md as sections by version; none when the file does not exist (the
  /// notes then list an SDK version change without its items).
  package static func sdkChangelog(at url: URL, displayPath: String) throws -> [String: [String]] {
    guard FileManager.default.fileExists(atPath: url.path) else { return [:] }
    guard let data = try? Data(contentsOf: url), let text = String(data: data, encoding: .utf8) else {
      throw ReleaseError.invalidInput(
        "\(displayPath): cannot read it as UTF-8 text (expected the SDK's changelog)")
    }
    return ReleaseNotes.sections(ofSDKChangelog: text)
  }
}
