import Foundation

/// The customer's over-the-air manifest, `ota/<id>/models.json`, as the release tool publishes
/// it. Keys this SDK does not know are ignored, so the format can grow.
public struct ModelManifest: Codable, Equatable, Sendable {
  public struct Model: Codable, Equatable, Sendable {
    public var modelVersion: Int
    public var url: String
    public var sha256: String
    public var size: Int64
    public var minimumSDKVersion: String
    public var inputs: [String]
    public var specificationVersion: Int
    public var rolloutPercent: Int
    public var salt: String
    /// `active`, `paused` or `retracted`.
    public var status: String

    public init(
      modelVersion: Int, url: String, sha256: String, size: Int64, minimumSDKVersion: String, inputs: [String],
      specificationVersion: Int, rolloutPercent: Int, salt: String, status: String
    ) {
      self.modelVersion = modelVersion
      self.url = url
      self.sha256 = sha256
      self.size = size
      self.minimumSDKVersion = minimumSDKVersion
      self.inputs = inputs
      self.specificationVersion = specificationVersion
      self.rolloutPercent = rolloutPercent
      self.salt = salt
      self.status = status
    }
  }

  public struct Flow: Codable, Equatable, Sendable {
    public var flowId: Int
    public var bundledVersion: Int
    public var paused: Bool
    public var models: [Model]

    public init(flowId: Int, bundledVersion: Int, paused: Bool, models: [Model]) {
      self.flowId = flowId
      self.bundledVersion = bundledVersion
      self.paused = paused
      self.models = models
    }
  }

  public var schemaVersion: Int
  public var customer: String
  public var appID: String
  public var revision: Int
  public var flows: [String: Flow]

  /// The format this SDK reads.
  public static let supportedSchemaVersion = 1
  /// Larger downloads are refused: no on-device model comes near it, and a manifest that says
  /// otherwise is wrong.
  public static let maximumModelSize: Int64 = 256 * 1024 * 1024
  /// A manifest larger than this is not read (one customer's flows take a few kilobytes): the
  /// fetch is cut off there.
  public static let maximumManifestSize: Int64 = 1024 * 1024

  /// Why a manifest cannot be followed: a manifest for another app, of another format or with
  /// an entry that could not be checked is ignored as a whole.
  public enum Problem: Error, Equatable, Sendable, CustomStringConvertible, LocalizedError {
    /// A format this SDK does not read.
    case schemaVersion(Int)
    /// The manifest of another app (its `appID` is not this build's).
    case otherApp
    /// A model's URL is not an http(s) URL.
    case notHTTPURL(flowName: String, modelVersion: Int)
    /// A model's SHA-256 is not 64 lower-case hex digits.
    case badDigest(flowName: String, modelVersion: Int)
    /// A model's size is not between 1 byte and `maximumModelSize`.
    case sizeOutOfRange(flowName: String, modelVersion: Int, size: Int64)
    /// A model's status is unknown, or its rollout percentage is not 0 to 100.
    case unknownStatusOrPercentage(flowName: String, modelVersion: Int)

    public var description: String {
      switch self {
      case .schemaVersion(let found): "schemaVersion \(found), this SDK reads \(ModelManifest.supportedSchemaVersion)"
      case .otherApp: "a manifest for another app"
      case .notHTTPURL(let flow, let version): "\(flow) v\(version): not an http(s) URL"
      case .badDigest(let flow, let version): "\(flow) v\(version): sha256 is not 64 lower-case hex digits"
      case .sizeOutOfRange(let flow, let version, let size): "\(flow) v\(version): size \(size) out of range"
      case .unknownStatusOrPercentage(let flow, let version): "\(flow) v\(version): unknown status or percentage"
      }
    }

    public var errorDescription: String? { description }
  }

  /// Why the manifest cannot be followed by the build of `appID`, or nil.
  public func problem(forAppID appID: String) -> Problem? {
    guard schemaVersion == Self.supportedSchemaVersion else { return .schemaVersion(schemaVersion) }
    guard self.appID.lowercased() == appID.lowercased() else { return .otherApp }
    for (name, flow) in flows {
      for model in flow.models {
        guard let url = URL(string: model.url), ["http", "https"].contains(url.scheme?.lowercased() ?? "") else {
          return .notHTTPURL(flowName: name, modelVersion: model.modelVersion)
        }
        guard model.sha256.count == 64, model.sha256.allSatisfy({ $0.isHexDigit && !$0.isUppercase }) else {
          return .badDigest(flowName: name, modelVersion: model.modelVersion)
        }
        guard (1...Self.maximumModelSize).contains(model.size) else {
          return .sizeOutOfRange(flowName: name, modelVersion: model.modelVersion, size: model.size)
        }
        guard ["active", "paused", "retracted"].contains(model.status), (0...100).contains(model.rolloutPercent)
        else { return .unknownStatusOrPercentage(flowName: name, modelVersion: model.modelVersion) }
      }
    }
    return nil
  }
}
