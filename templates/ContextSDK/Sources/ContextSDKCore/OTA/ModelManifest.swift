import Foundation

/// The customer's over-the-air manifest as the release tool publishes it: the payload of the
/// signed `ota/<channel>/manifest.json` (schema version 2, see `SignedManifest`), or the legacy
/// unsigned `ota/<id>/models.json` (schema version 1). Keys this SDK does not know are ignored,
/// so the format can grow.
struct ModelManifest: Codable, Equatable, Sendable {
  struct Model: Codable, Equatable, Sendable {
    var modelVersion: Int
    var url: String
    var sha256: String
    var size: Int64
    var minimumSDKVersion: String
    var inputs: [String]
    var specificationVersion: Int
    var rolloutPercent: Int
    var salt: String
    var status: Status

    init(
      modelVersion: Int, url: String, sha256: String, size: Int64, minimumSDKVersion: String,
      inputs: [String],
      specificationVersion: Int, rolloutPercent: Int, salt: String, status: Status
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

  /// A model entry's status. One this SDK does not know (a later format's) is `unknown`: that
  /// entry is not offered to this device, and the rest of the manifest is followed.
  enum Status: Codable, Equatable, Sendable {
    case active
    case paused
    case retracted
    case unknown(String)

    init(from decoder: Decoder) throws {
      switch try decoder.singleValueContainer().decode(String.self) {
      case "active": self = .active
      case "paused": self = .paused
      case "retracted": self = .retracted
      case let other: self = .unknown(other)
      }
    }

    func encode(to encoder: Encoder) throws {
      var container = encoder.singleValueContainer()
      switch self {
      case .active: try container.encode("active")
      case .paused: try container.encode("paused")
      case .retracted: try container.encode("retracted")
      case .unknown(let other): try container.encode(other)
      }
    }
  }

  struct Flow: Codable, Equatable, Sendable {
    var flowId: Int
    var bundledVersion: Int
    var paused: Bool
    var models: [Model]

    init(flowId: Int, bundledVersion: Int, paused: Bool, models: [Model]) {
      self.flowId = flowId
      self.bundledVersion = bundledVersion
      self.paused = paused
      self.models = models
    }
  }

  var schemaVersion: Int
  var customer: String
  var appID: String
  var revision: Int
  /// When the signed manifest stops being believed: `YYYY-MM-DDTHH:MM:SSZ` (UTC). The legacy
  /// manifest has none.
  var expires: String?
  var flows: [String: Flow]

  /// The largest revision: the largest integer JSON carries exactly (2^53 - 1). Devices refuse
  /// any above it, so no one key can sign a revision that shuts out every later one.
  static let maximumRevision = 9_007_199_254_740_991
  /// How far a device's clock may be behind the publisher's: a manifest expired less than
  /// this long ago is still believed.
  static let clockSkew: TimeInterval = 5 * 60
  /// A signed manifest expiring further ahead than this is refused (publishers sign for at
  /// most 30 days).
  static let maximumLifetime: TimeInterval = 31 * 24 * 60 * 60

  /// The format of the signed manifest's payload.
  static let supportedSchemaVersion = 2
  /// The format of the legacy unsigned `models.json`.
  static let legacySchemaVersion = 1
  /// Larger downloads are refused: no on-device model comes near it, and a manifest that says
  /// otherwise is wrong.
  static let maximumModelSize: Int64 = 256 * 1024 * 1024
  /// A manifest larger than this is not read (one customer's flows take a few kilobytes): the
  /// fetch is cut off there.
  static let maximumManifestSize: Int64 = 1024 * 1024

  /// Why a manifest cannot be followed (the name the channel's code uses).
  typealias Problem = ManifestProblem

  /// Why the manifest cannot be followed by the build of `appID`, or nil. `schemaVersion` is
  /// the format the channel publishes; `customer`, when given, must be the manifest's.
  func problem(
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
        guard (0...100).contains(model.rolloutPercent) else {
          return .rolloutPercentOutOfRange(flowName: name, modelVersion: model.modelVersion)
        }
      }
    }
    return nil
  }
}

/// Why a manifest cannot be followed: a manifest for another app, of another format or with
/// an entry that could not be checked is ignored as a whole.
public enum ManifestProblem: Error, Equatable, Sendable, CustomStringConvertible, LocalizedError {
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
  /// A model's rollout percentage is not 0 to 100.
  case rolloutPercentOutOfRange(flowName: String, modelVersion: Int)

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
    case .rolloutPercentOutOfRange(let flow, let version):
      "\(flow) v\(version): rolloutPercent is not from 0 to 100"
    }
  }

  public var errorDescription: String? { description }
}
