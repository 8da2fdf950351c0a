import Foundation
import ReleaseGeneration
import ReleaseSystem

/// `dist/<id>/<version>/release.json`: what a release is, for people, `release verify`,
/// the up-to-date check and publishing.
public struct ReleaseRecord: Codable, Equatable, Sendable {
  public static let fileName = "release.json"

  public struct CustomerInfo: Codable, Equatable, Sendable {
    public var id: String
    public var name: String?
    public var appID: String
    public var bundleIdentifiers: [String]
  }

  public struct Model: Codable, Equatable, Sendable {
    public var flowId: Int
    public var flowName: String
    public var modelVersion: Int
    public var sha256: String
    public var size: Int64
    /// Path inside the archive.
    public var entry: String
    public var specificationVersion: Int
    public var inputNames: [String]
    /// The oldest SDK version that computes every input (from the template's signals.json).
    public var minimumSDKVersion: String
    /// The model's user-defined metadata (Core ML `metadata.userDefined`), as read from the file.
    public var metadata: [String: String]
  }

  /// A file of the package, as it appears in the archive.
  public struct File: Codable, Equatable, Sendable {
    /// Path inside the archive, below the top-level directory.
    public var path: String
    public var sha256: String
    public var size: Int64
  }

  public struct ArtifactInfo: Codable, Equatable, Sendable {
    /// File name beside release.json.
    public var file: String
    public var sha256: String
    public var size: Int64
    /// The archive's single top-level directory.
    public var topLevelDirectory: String
  }

  public var customer: CustomerInfo
  public var version: String
  public var sdkVersion: String
  public var packageName: String
  /// The features the package holds (absent before tool 0.5.0).
  public var features: [String]?
  public var models: [Model]
  /// Every file of the package, sorted by path: `release verify` accounts for each.
  public var files: [File]
  public var artifact: ArtifactInfo
  /// `swift --version` of the toolchain that built and tested the package.
  public var toolchain: String
  public var tool: String
  public var sourceDigest: String
  public var inputDigest: String
  public var inputs: InputDigest
  /// Tests `swift test` ran on the package, when it reported a count.
  public var testCount: Int?
  /// How this release differs from the customer's previous one (absent before tool 0.4.0).
  public var releaseNotes: ReleaseNote?

  public static func load(from url: URL) throws -> ReleaseRecord {
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
  public func encoded() throws -> Data {
    try StableJSON.encode(self)
  }
}
