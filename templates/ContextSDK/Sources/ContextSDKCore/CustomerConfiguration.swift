/// What one customer's build of the SDK carries: who may run it, which models it bundles, and
/// where its over-the-air manifest is published.
public struct CustomerConfiguration: Equatable, Sendable {
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
