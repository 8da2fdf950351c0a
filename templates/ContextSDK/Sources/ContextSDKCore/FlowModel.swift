/// The model one flow (decision point) of the customer's app runs, as bundled in this package.
public struct FlowModel: Codable, Equatable, Hashable, Sendable {
  public let flowId: Int
  public let flowName: String
  public let modelVersion: Int
  /// Lower-case hex SHA-256 of the bundled model file's bytes.
  public let sha256: String
  /// The model's input feature names, in the order the model declares them.
  public let inputNames: [String]
  /// The Core ML specification version in the bundled file's header.
  public let specificationVersion: Int
  /// File name of the bundled model inside the package's `Models` resource folder.
  public let resourceName: String

  init(
    flowId: Int, flowName: String, modelVersion: Int, sha256: String, inputNames: [String],
    specificationVersion: Int, resourceName: String
  ) {
    self.flowId = flowId
    self.flowName = flowName
    self.modelVersion = modelVersion
    self.sha256 = sha256
    self.inputNames = inputNames
    self.specificationVersion = specificationVersion
    self.resourceName = resourceName
  }
}
