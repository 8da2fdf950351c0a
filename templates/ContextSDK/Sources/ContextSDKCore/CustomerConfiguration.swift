/// What one customer's build of the SDK carries: who may run it and which models it bundles.
public struct CustomerConfiguration: Equatable, Sendable {
  public let appID: String
  public let bundleIdentifiers: [String]
  public let sdkVersion: String
  public let models: [FlowModel]

  public init(appID: String, bundleIdentifiers: [String], sdkVersion: String, models: [FlowModel]) {
    self.appID = appID
    self.bundleIdentifiers = bundleIdentifiers
    self.sdkVersion = sdkVersion
    self.models = models
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
