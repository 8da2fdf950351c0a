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

  /// Why the manifest cannot be followed, or nil: a manifest for another app, of another format
  /// or with an entry that could not be checked is ignored as a whole.
  public func problem(forAppID appID: String) -> String? {
    guard schemaVersion == Self.supportedSchemaVersion else {
      return "schemaVersion \(schemaVersion), this SDK reads \(Self.supportedSchemaVersion)"
    }
    guard self.appID.lowercased() == appID.lowercased() else { return "a manifest for another app" }
    for (name, flow) in flows {
      for model in flow.models {
        guard let url = URL(string: model.url), ["http", "https"].contains(url.scheme?.lowercased() ?? "") else {
          return "\(name) v\(model.modelVersion): not an http(s) URL"
        }
        guard model.sha256.count == 64, model.sha256.allSatisfy({ $0.isHexDigit && !$0.isUppercase }) else {
          return "\(name) v\(model.modelVersion): sha256 is not 64 lower-case hex digits"
        }
        guard (1...Self.maximumModelSize).contains(model.size) else {
          return "\(name) v\(model.modelVersion): size \(model.size) out of range"
        }
        guard ["active", "paused", "retracted"].contains(model.status), (0...100).contains(model.rolloutPercent)
        else { return "\(name) v\(model.modelVersion): unknown status or percentage" }
      }
    }
    return nil
  }
}
