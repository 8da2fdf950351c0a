import Foundation
import ReleaseAlignment
import ReleaseCore
import ReleaseGeneration
import ReleaseJSON
import ReleaseManifest
import ReleaseModels
import ReleaseOTA
import ReleaseSettings
import ReleaseSystem

/// What the over-the-air commands read: the manifest, the model store, the SDK version being
/// released (the newest a device can run), the template's signal catalog and `rollouts.json`,
/// checked against each other (a rollout of a customer or flow the manifest no longer has is
/// an error, reported with every other).
package struct OTAInputs {
  package let manifest: Manifest
  let store: ModelStore
  package let sdkVersion: SemanticVersion
  package let catalog: SignalCatalog
  /// The template's features: a model may read only the signals of its flow's feature.
  package let features: FeatureCatalog
  package let rollouts: RolloutState
  package let rolloutsPath: String
  package let rolloutsURL: URL

  /// Reads the inputs `inputs` name (paths, model store; see `SettingsResolution.inputs`).
  package static func load(_ inputs: InputSettings, services: Services) throws -> OTAInputs {
    let rolloutsPath = inputs.rolloutsPath
    let state = try ReleaseState.load(
      from: services.resolve(inputs.statePath), displayPath: inputs.statePath)
    let store = try ModelStoreLocation.open(inputs, services: services)
    let template = try PackageTemplate.load(
      services.resolve(inputs.templatesPath), displayPath: inputs.templatesPath)
    let manifest = try ManifestLoader.load(
      contentsOf: services.resolve(inputs.manifestPath), displayPath: inputs.manifestPath, store: store,
      features: template.features)
    let catalog = try SignalCatalog.load(from: template, templatesPath: inputs.templatesPath)
    let rolloutsURL = services.resolve(rolloutsPath)
    let rollouts = try RolloutState.load(from: rolloutsURL, displayPath: rolloutsPath)
    try check(rollouts, against: manifest, displayPath: rolloutsPath)
    return OTAInputs(
      manifest: manifest, store: store, sdkVersion: state.sdkVersion, catalog: catalog,
      features: template.features, rollouts: rollouts,
      rolloutsPath: rolloutsPath, rolloutsURL: rolloutsURL)
  }

  /// Every customer and flow of the rollouts must still be in the manifest: models trained on
  /// a customer's data go only to that customer's flows.
  package static func check(_ rollouts: RolloutState, against manifest: Manifest, displayPath: String) throws
  {
    var problems: [Diagnostic] = []
    for (id, flows) in rollouts.customers.sorted(by: { $0.key < $1.key }) {
      guard let customer = manifest.customers.first(where: { $0.id == id }) else {
        problems.append(
          Diagnostic(
            file: displayPath, path: "customers.\(id)",
            message: "not a customer in \(manifest.path); remove its rollouts"))
        continue
      }
      for flowName in flows.keys.sorted()
      where !customer.customModels.contains(where: { $0.flowName == flowName }) {
        problems.append(
          Diagnostic(
            file: displayPath, path: "customers.\(id).\(flowName)",
            message:
              "\(id) has no \(flowName) model in \(manifest.path); a customer only gets models of its own flows"
          ))
      }
    }
    if !problems.isEmpty { throw ValidationFailure(problems) }
  }

  /// A customer by slug or app id, as `release customer` names them.
  package func customer(_ key: String, command: String) throws -> Customer {
    if let customer = manifest.customer(matching: key) { return customer }
    let ids = manifest.customers.map(\.id)
    let hint = Suggestion.closest(to: key, among: ids).map { " (did you mean \"\($0)\"?)" } ?? ""
    throw ReleaseError.usage(
      "\(command): customer \"\(key)\" is not in \(manifest.path)\(hint); expected one of: \(ids.joined(separator: ", "))"
    )
  }

  /// Reads an offered model from the store: its bytes' digest and its Core ML description.
  package func offeredModel(_ reference: ModelReference) throws -> RolloutChange.OfferedModel {
    do { return try Self.read(reference, from: store) } catch let error as ReleaseError {
      throw error
    } catch {
      throw ReleaseError.invalidInput("\(error)")
    }
  }

  static func read(_ reference: ModelReference, from store: ModelStore) throws -> RolloutChange.OfferedModel {
    let file = try store.localFile(for: reference)
    let info = try CoreMLModelInfo.load(contentsOf: file)
    let (sha256, size) = try SHA256Digest.hexAndSize(ofFileAt: file)
    return .init(reference: reference, info: info, sha256: sha256, size: size)
  }
}
