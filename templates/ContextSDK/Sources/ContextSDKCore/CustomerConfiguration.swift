import Foundation

/// What one customer's build of the SDK carries: who may run it, which models it bundles, and
/// where its over-the-air manifest is published.
public struct CustomerConfiguration: Codable, Equatable, Sendable {
  public let appID: String
  public let bundleIdentifiers: [String]
  public let sdkVersion: String
  public let models: [FlowModel]
  /// The customer's `ota/<id>/models.json`; nil when the release published no models over the air.
  public let modelManifestURL: String?
  /// The features this build includes (`att`, `conversion`): the ones the customer licenses.
  public let features: [String]

  public init(
    appID: String, bundleIdentifiers: [String], sdkVersion: String, models: [FlowModel],
    modelManifestURL: String? = nil, features: [String] = []
  ) {
    self.appID = appID
    self.bundleIdentifiers = bundleIdentifiers
    self.sdkVersion = sdkVersion
    self.models = models
    self.modelManifestURL = modelManifestURL
    self.features = features
  }

  /// What a build whose `customer.json` cannot be read runs with: no models, no allowed apps
  /// and no over-the-air manifest, so every decision falls back to "no model" (the app does not
  /// show the prompt) and nothing is downloaded.
  public static let unavailable = CustomerConfiguration(
    appID: "", bundleIdentifiers: [], sdkVersion: contextSDKVersion, models: [])

  /// Reads a build's configuration from its `customer.json` (nil: the resource is missing).
  public static func load(from url: URL?) throws(CustomerConfigurationError) -> CustomerConfiguration {
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
  public static func loadOrUnavailable(
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

  public var bundleIdentifierCheck: BundleIdentifierCheck {
    BundleIdentifierCheck(allowedBundleIdentifiers: bundleIdentifiers)
  }
}

/// Why a build's `customer.json` could not be read. The build then runs with
/// `CustomerConfiguration.unavailable`; a package made by `release` always has a readable one
/// (its own tests check it), so this means the package was changed after it was made.
public enum CustomerConfigurationError: Error, Equatable, Sendable, CustomStringConvertible, LocalizedError {
  /// The package's resources hold no `customer.json`.
  case missing
  /// `customer.json` is there but cannot be read or is not a configuration this SDK reads.
  case unreadable(file: String, reason: String)

  public var description: String {
    switch self {
    case .missing: "customer.json is missing from the package's resources"
    case .unreadable(let file, let reason): "\(file) cannot be read: \(reason)"
    }
  }

  public var errorDescription: String? { description }
}
