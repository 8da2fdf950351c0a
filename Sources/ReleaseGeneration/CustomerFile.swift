import Foundation
import ReleaseManifest

/// A customer's configuration as its SDK reads it: `customer.json` in the `ContextSDK` target's
/// resources, which the template's `CustomerConfiguration` decodes, so the keys are that type's
/// property names. Data rather than generated Swift: every customer with the same features
/// then has the same Swift, and a warm build slot compiles nothing for the next customer.
struct CustomerFile: Encodable {
  struct Model: Encodable {
    let flowId: Int
    let flowName: String
    let modelVersion: Int
    /// Lower-case hex SHA-256 of the bundled file.
    let sha256: String
    let inputNames: [String]
    let specificationVersion: Int
    let resourceName: String
  }

  let appID: String
  let bundleIdentifiers: [String]
  let sdkVersion: String
  let models: [Model]
  /// The legacy unsigned manifest; left out when the release publishes no models over the air.
  let modelManifestURL: String?
  /// The signed channel (all three, or none): the customer's id, which a manifest must name,
  /// the keys one of which must sign it, and its URL.
  let customer: String?
  let trustedKeys: [PinnedKey]?
  let manifestURL: String?
  /// The newest root document (its envelope's JSON), which the device follows to the
  /// channel's current manifest keys; left out without a root.
  let trustedRoot: String?
  let features: [String]

  init(_ input: GenerationInput, features: [Feature]) {
    appID = input.customer.appID
    bundleIdentifiers = input.customer.bundleIdentifiers
    sdkVersion = input.sdkVersion
    models = input.models.map { embedded in
      Model(
        flowId: embedded.model.flowId, flowName: embedded.model.flowName,
        modelVersion: embedded.model.modelVersion, sha256: embedded.sha256, inputNames: embedded.inputNames,
        specificationVersion: embedded.specificationVersion, resourceName: embedded.resourceName)
    }
    modelManifestURL = input.modelManifestURL
    if let keys = input.trustedKeys, let url = input.manifestURL {
      customer = input.customer.id
      trustedKeys = keys
      manifestURL = url
      trustedRoot = input.trustedRoot
    } else {
      trustedRoot = nil
      customer = nil
      trustedKeys = nil
      manifestURL = nil
    }
    self.features = features.map(\.name)
  }
}
