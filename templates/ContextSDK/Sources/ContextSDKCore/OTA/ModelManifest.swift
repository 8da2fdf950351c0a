import Foundation

/// The customer's over-the-air manifest as the release tool publishes it: the payload of the
/// signed `ota/<channel>/manifest.json` (schema version 2, see `SignedManifest`), or the legacy
/// unsigned `ota/<id>/models.json` (schema version 1). Keys this SDK does not know are ignored,
/// so the format can grow.
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
      modelVersion: Int, url: String, sha256: String, size: Int64, minimumSDKVersion: String,
      inputs: [String],
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
  /// When the signed manifest stops being believed: `YYYY-MM-DDTHH:MM:SSZ` (UTC). The legacy
  /// manifest has none.
  public var expires: String?
  public var flows: [String: Flow]

  /// The largest revision: the largest integer JSON carries exactly (2^53 - 1). Devices refuse
  /// any above it, so no one key can sign a revision that shuts out every later one.
  public static let maximumRevision = 9_007_199_254_740_991
  /// How far a device's clock may be behind the publisher's: a manifest expired less than
  /// this long ago is still believed.
  public static let clockSkew: TimeInterval = 5 * 60
  /// A signed manifest expiring further ahead than this is refused (publishers sign for at
  /// most 30 days).
  public static let maximumLifetime: TimeInterval = 31 * 24 * 60 * 60

  /// The format of the signed manifest's payload.
  public static let supportedSchemaVersion = 2
  /// The format of the legacy unsigned `models.json`.
  public static let legacySchemaVersion = 1
  /// Larger downloads are refused: no on-device model comes near it, and a manifest that says
  /// otherwise is wrong.
  public static let maximumModelSize: Int64 = 256 * 1024 * 1024
  /// A manifest larger than this is not read (one customer's flows take a few kilobytes): the
  /// fetch is cut off there.
  public static let maximumManifestSize: Int64 = 1024 * 1024

  /// Why a manifest cannot be followed: a manifest for another app, of another format or with
  /// an entry that could not be checked is ignored as a whole.
  public enum Problem: Error, Equatable, Sendable, CustomStringConvertible, LocalizedError {
    /// Not a DSSE envelope: not JSON of that shape, or a payload that is not base64.
    case notAnEnvelope
    /// The envelope's `payloadType` is not the manifest's.
    case payloadType(String)
    /// The envelope carries no signature.
    case unsigned
    /// No signature is by a key this build pins.
    case untrustedKeys
    /// Signatures by pinned keys are there, and none verifies (the payload or the signature was
    /// changed).
    case badSignature
    /// A format this SDK does not read.
    case schemaVersion(Int)
    /// The manifest of another customer (its `customer` is not this build's).
    case otherCustomer
    /// The manifest of another app (its `appID` is not this build's).
    case otherApp
    /// A signed manifest without an `expires` of the form `YYYY-MM-DDTHH:MM:SSZ`.
    case badExpiry
    /// The signed manifest expired at `expires`: the device keeps its models until a fresh one.
    case expired(expires: String)
    /// A revision below the highest this install has accepted: an old manifest served again.
    case revisionRolledBack(found: Int, accepted: Int)
    /// The revision this install accepted, served again with other content: a manifest
    /// re-signed at a revision already used.
    case revisionContentChanged(revision: Int)
    /// A revision outside 1 to `ModelManifest.maximumRevision`.
    case revisionOutOfRange
    /// The signed manifest expires more than `ModelManifest.maximumLifetime` ahead of this
    /// device's clock: no publisher signs one that long.
    case expiresTooFarAhead(expires: String)
    /// A model's URL is not `https://` (or `http://` to this device itself).
    case notHTTPURL(flowName: String, modelVersion: Int)
    /// A model's SHA-256 is not 64 lower-case hex digits.
    case badDigest(flowName: String, modelVersion: Int)
    /// A model's size is not between 1 byte and `maximumModelSize`.
    case sizeOutOfRange(flowName: String, modelVersion: Int, size: Int64)
    /// A model's status is unknown, or its rollout percentage is not 0 to 100.
    case unknownStatusOrPercentage(flowName: String, modelVersion: Int)

    public var description: String {
      switch self {
      case .notAnEnvelope: "not a signed manifest (DSSE envelope)"
      case .payloadType(let found):
        "payloadType \"\(found.prefix(100))\" is not \(SignedManifest.payloadType)"
      case .unsigned: "not signed"
      case .untrustedKeys: "signed by no key this build trusts"
      case .badSignature: "the signature does not verify"
      case .schemaVersion(let found): "schemaVersion \(found) is not one this SDK reads here"
      case .otherCustomer: "a manifest for another customer"
      case .otherApp: "a manifest for another app"
      case .badExpiry: "no expiry of the form YYYY-MM-DDTHH:MM:SSZ"
      case .expired(let expires): "expired at \(expires)"
      case .revisionRolledBack(let found, let accepted):
        "revision \(found) is older than revision \(accepted), which this device has accepted"
      case .revisionContentChanged(let revision):
        "revision \(revision) differs from the revision \(revision) this device has accepted"
      case .revisionOutOfRange: "revision is not from 1 to \(ModelManifest.maximumRevision)"
      case .expiresTooFarAhead(let expires): "expires at \(expires), more than 31 days ahead"
      case .notHTTPURL(let flow, let version): "\(flow) v\(version): not an https URL"
      case .badDigest(let flow, let version): "\(flow) v\(version): sha256 is not 64 lower-case hex digits"
      case .sizeOutOfRange(let flow, let version, let size): "\(flow) v\(version): size \(size) out of range"
      case .unknownStatusOrPercentage(let flow, let version):
        "\(flow) v\(version): unknown status or percentage"
      }
    }

    public var errorDescription: String? { description }
  }

  /// Why the manifest cannot be followed by the build of `appID`, or nil. `schemaVersion` is
  /// the format the channel publishes; `customer`, when given, must be the manifest's.
  public func problem(
    forAppID appID: String, customer: String? = nil, schemaVersion: Int = ModelManifest.supportedSchemaVersion
  ) -> Problem? {
    guard self.schemaVersion == schemaVersion else { return .schemaVersion(self.schemaVersion) }
    if let customer, self.customer != customer { return .otherCustomer }
    guard self.appID.lowercased() == appID.lowercased() else { return .otherApp }
    for (name, flow) in flows {
      for model in flow.models {
        guard let url = URL(string: model.url), OTATransport.isAllowed(url) else {
          return .notHTTPURL(flowName: name, modelVersion: model.modelVersion)
        }
        guard model.sha256.count == 64, model.sha256.allSatisfy({ $0.isHexDigit && !$0.isUppercase }) else {
          return .badDigest(flowName: name, modelVersion: model.modelVersion)
        }
        guard (1...Self.maximumModelSize).contains(model.size) else {
          return .sizeOutOfRange(flowName: name, modelVersion: model.modelVersion, size: model.size)
        }
        guard ["active", "paused", "retracted"].contains(model.status),
          (0...100).contains(model.rolloutPercent)
        else { return .unknownStatusOrPercentage(flowName: name, modelVersion: model.modelVersion) }
      }
    }
    return nil
  }
}
