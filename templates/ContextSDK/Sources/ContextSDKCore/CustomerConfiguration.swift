import Foundation

/// What one customer's build of the SDK carries: who may run it, which models it bundles, and
/// where its over-the-air manifest is published and who may sign it.
public struct CustomerConfiguration: Codable, Equatable, Sendable {
  public let appID: String
  public let bundleIdentifiers: [String]
  public let sdkVersion: String
  public let models: [FlowModel]
  /// The legacy unsigned `ota/<id>/models.json`, followed only by a build that pins no keys.
  let modelManifestURL: String?
  /// The customer's id, which a signed manifest must name.
  let customer: String?
  /// The keys whose signature a manifest needs: every key the release pinned.
  let trustedKeys: [TrustedKey]?
  /// The signed manifest, `ota/<channel>/manifest.json`.
  let manifestURL: String?
  /// The newest root document of the signed channel when the package was built (its DSSE
  /// envelope's JSON): the device follows newer ones to the channel's current manifest keys
  /// (`RootChain`). Nil: the pinned `trustedKeys` only.
  let trustedRoot: String?
  /// The features this build includes (`att`, `conversion`): the ones the customer licenses.
  public let features: [String]

  init(
    appID: String, bundleIdentifiers: [String], sdkVersion: String, models: [FlowModel],
    modelManifestURL: String? = nil, customer: String? = nil, trustedKeys: [TrustedKey]? = nil,
    manifestURL: String? = nil, features: [String] = [], trustedRoot: String? = nil
  ) {
    self.trustedRoot = trustedRoot
    self.appID = appID
    self.bundleIdentifiers = bundleIdentifiers
    self.sdkVersion = sdkVersion
    self.models = models
    self.modelManifestURL = modelManifestURL
    self.customer = customer
    self.trustedKeys = trustedKeys
    self.manifestURL = manifestURL
    self.features = features
  }

  /// Where this build's models come from over the air; nil: nowhere. A build that pins keys
  /// follows only its signed manifest (and none when it names no customer or manifest URL); a
  /// build that pins none follows the legacy unsigned manifest, if it has one.
  var channel: ModelChannel? {
    if let trustedKeys {
      guard !trustedKeys.isEmpty, let customer, let text = manifestURL, let url = URL(string: text) else {
        return nil
      }
      return .signed(manifestURL: url, customer: customer, trustedKeys: trustedKeys)
    }
    guard let text = modelManifestURL, let url = URL(string: text) else { return nil }
    return .legacyUnsigned(manifestURL: url)
  }

  /// What a build whose `customer.json` cannot be read runs with: no models, no allowed apps
  /// and no over-the-air manifest, so every decision falls back to "no model" (the app does not
  /// show the prompt) and nothing is downloaded.
  package static let unavailable = CustomerConfiguration(
    appID: "", bundleIdentifiers: [], sdkVersion: contextSDKVersion, models: [])

  /// Reads a build's configuration from its `customer.json` (nil: the resource is missing).
  static func load(from url: URL?) throws(CustomerConfigurationError) -> CustomerConfiguration {
    guard let url else { throw .missing }
    let data: Data
    do { data = try Data(contentsOf: url) } catch {
      throw .unreadable(file: url.lastPathComponent, reason: error.localizedDescription)
    }
    do {
      return try JSONDecoder().decode(CustomerConfiguration.self, from: data)
    } catch {
      throw .unreadable(file: url.lastPathComponent, reason: "\(error)")
    }
  }

  /// Reads `url` as `load(from:)` does, but never throws: a configuration that cannot be read
  /// gives `unavailable` and the reason, which the build reports as its `configurationError`.
  package static func loadOrUnavailable(
    from url: URL?
  ) -> (configuration: CustomerConfiguration, error: CustomerConfigurationError?) {
    do throws(CustomerConfigurationError) {
      return (try load(from: url), nil)
    } catch {
      return (unavailable, error)
    }
  }

  public func model(forFlow flowName: String) -> FlowModel? {
    models.first { $0.flowName == flowName }
  }

  public func model(forFlow flowId: Int) -> FlowModel? {
    models.first { $0.flowId == flowId }
  }

  var bundleIdentifierCheck: BundleIdentifierCheck {
    BundleIdentifierCheck(allowedBundleIdentifiers: bundleIdentifiers)
  }
}

/// Where a build follows its models over the air from.
enum ModelChannel: Equatable, Sendable {
  /// The signed manifest (a DSSE envelope, see `SignedManifest`) at `manifestURL`, believed
  /// only when signed by one of `trustedKeys` and made for `customer`.
  case signed(manifestURL: URL, customer: String, trustedKeys: [TrustedKey])
  /// The unsigned `ota/<id>/models.json` of packages released before manifests were signed;
  /// whoever can write where it is served chooses the models.
  case legacyUnsigned(manifestURL: URL)

  var manifestURL: URL {
    switch self {
    case .signed(let url, _, _), .legacyUnsigned(let url): url
    }
  }

  /// The same channel served from `url` (a mirror, a test server).
  func at(_ url: URL) -> ModelChannel {
    switch self {
    case .signed(_, let customer, let keys): .signed(manifestURL: url, customer: customer, trustedKeys: keys)
    case .legacyUnsigned: .legacyUnsigned(manifestURL: url)
    }
  }
}

/// Why a build's `customer.json` could not be read. The build then runs with
/// `CustomerConfiguration.unavailable`; a package as delivered always has a readable one
/// (its own tests check it), so this means the package was changed after it was made.
public enum CustomerConfigurationError: Error, Equatable, Sendable, CustomStringConvertible, LocalizedError {
  /// The package's resources hold no `customer.json`.
  case missing
  /// `customer.json` is there but cannot be read or is not a configuration this SDK reads.
  case unreadable(file: String, reason: String)
  /// The app does not carry the SDK's resource bundle (`name` with `.bundle` or
  /// `.resources`): a build that repackages the SDK must copy it.
  case resourceBundleMissing(name: String)

  public var description: String {
    switch self {
    case .missing: "customer.json is missing from the package's resources"
    case .resourceBundleMissing(let name):
      "the SDK's resource bundle \(name).bundle is not in the app or beside the SDK's code; copy it with the SDK"
    case .unreadable(let file, let reason): "\(file) cannot be read: \(reason)"
    }
  }

  public var errorDescription: String? { description }
}
