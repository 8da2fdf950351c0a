import Foundation

/// What one release of a customer's package holds, as far as its notes compare releases. The
/// tool records it for every released version (in release-state.json), so each release's notes
/// are the difference to the one before, and every earlier release's notes can be made again,
/// byte for byte, from what is committed.
public struct ReleaseContents: Codable, Equatable, Sendable {
  public struct Model: Codable, Equatable, Sendable {
    public var flowId: Int
    public var modelVersion: Int
    public var sha256: String
    /// The model's own short description (Core ML metadata), shown beside its name.
    public var shortDescription: String

    public init(flowId: Int, modelVersion: Int, sha256: String, shortDescription: String) {
      self.flowId = flowId
      self.modelVersion = modelVersion
      self.sha256 = sha256
      self.shortDescription = shortDescription
    }
  }

  public var version: String
  /// The customer's release this one followed; nil for its first.
  public var previousVersion: String?
  public var sdkVersion: String
  public var bundleIdentifiers: [String]
  /// By flow name.
  public var models: [String: Model]
  /// SHA-256 of the SDK template the package was made from: the SDK's code, which can change
  /// without a new SDK version. Absent in contents recorded before it was (then not compared).
  public var templateDigest: String?
  /// Where the package's SDK fetches its models over the air, and where the customer adds the
  /// package from; nil when the release had none.
  public var modelManifestURL: String?
  public var repositoryURL: String?
  /// The features the package holds, sorted; absent in contents recorded before features
  /// existed (then not compared).
  public var features: [String]?

  public init(
    version: String, previousVersion: String?, sdkVersion: String, bundleIdentifiers: [String],
    models: [String: Model], templateDigest: String? = nil, modelManifestURL: String? = nil,
    repositoryURL: String? = nil, features: [String]? = nil
  ) {
    self.version = version
    self.previousVersion = previousVersion
    self.sdkVersion = sdkVersion
    self.bundleIdentifiers = bundleIdentifiers
    self.models = models
    self.templateDigest = templateDigest
    self.modelManifestURL = modelManifestURL
    self.repositoryURL = repositoryURL
    self.features = features
  }
}
