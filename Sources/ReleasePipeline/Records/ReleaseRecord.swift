import Foundation
import ReleaseGeneration
import ReleaseSystem

/// `dist/<id>/<version>/release.json`: what a release is, for people, `release verify`,
/// the up-to-date check and publishing.
package struct ReleaseRecord: Codable, Equatable, Sendable {
  package static let fileName = "release.json"

  package struct CustomerInfo: Codable, Equatable, Sendable {
    package var id: String
    var name: String?
    package var appID: String
    package var bundleIdentifiers: [String]
  }

  package struct Model: Codable, Equatable, Sendable {
    package var flowId: Int
    package var flowName: String
    package var modelVersion: Int
    package var sha256: String
    package var size: Int64
    /// Path inside the archive.
    package var entry: String
    var specificationVersion: Int
    package var inputNames: [String]
    /// The oldest SDK version that computes every input (from the template's signals.json).
    package var minimumSDKVersion: String
    /// The model's user-defined metadata (Core ML `metadata.userDefined`), as read from the file.
    var metadata: [String: String]
  }

  /// A file of the package, as it appears in the archive.
  package struct File: Codable, Equatable, Sendable {
    /// Path inside the archive, below the top-level directory.
    package var path: String
    package var sha256: String
    package var size: Int64

    package init(path: String, sha256: String, size: Int64) {
      self.path = path
      self.sha256 = sha256
      self.size = size
    }
  }

  package struct ArtifactInfo: Codable, Equatable, Sendable {
    /// File name beside release.json.
    package var file: String
    package var sha256: String
    package var size: Int64
    /// The archive's single top-level directory.
    package var topLevelDirectory: String
  }

  package var customer: CustomerInfo
  package var version: String
  package var sdkVersion: String
  package var packageName: String
  /// The features the package holds (absent before tool 0.5.0).
  package var features: [String]?
  package var models: [Model]
  /// Every file of the package, sorted by path: `release verify` accounts for each.
  package var files: [File]
  package var artifact: ArtifactInfo
  /// `swift --version` of the toolchain that built and tested the package.
  var toolchain: String
  var tool: String
  var sourceDigest: String
  var inputDigest: String
  var inputs: InputDigest
  /// Tests `swift test` ran on the package, when it reported a count.
  package var testCount: Int?
  /// How this release differs from the customer's previous one (absent before tool 0.4.0).
  package var releaseNotes: ReleaseNote?
  /// Whether the package pins the signing keys, so it follows only its signed channel; absent
  /// in records written before it was recorded, which count as unpinned (`ReleasedPackage`).
  package var pinnedKeys: Bool? = nil

  package static func load(from url: URL) throws -> ReleaseRecord {
    let data: Data
    do { data = try Data(contentsOf: url) } catch {
      throw SystemError.cannotRead(
        path: url.path, reason: "no release.json (expected one beside the archive)")
    }
    do { return try JSONDecoder().decode(ReleaseRecord.self, from: data) } catch {
      throw SystemError.cannotRead(
        path: url.path, reason: "not a release.json written by this tool (\(error))")
    }
  }

  /// Stable bytes: sorted keys and a trailing newline.
  package func encoded() throws -> Data {
    try StableJSON.encode(self)
  }
}
