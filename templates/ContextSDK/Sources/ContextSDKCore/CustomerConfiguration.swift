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

  /// Reads a build's configuration from its `customer.json` (nil: the resource is missing).
  public static func load(from url: URL?) throws -> CustomerConfiguration {
    guard let url else { throw CustomerConfigurationError.missing }
    do {
      return try JSONDecoder().decode(CustomerConfiguration.self, from: Data(contentsOf: url))
    } catch {
      throw CustomerConfigurationError.unreadable(file: url.lastPathComponent, reason: "\(error)")
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

/// Why a build's `customer.json` could not be read.
public enum CustomerConfigurationError: Error, CustomStringConvertible {
  case missing
  case unreadable(file: String, reason: String)

  public var description: String {
    switch self {
    case .missing: "customer.json is missing from the package's resources"
    case .unreadable(let file, let reason): "\(file) cannot be read: \(reason)"
    }
  }
}
