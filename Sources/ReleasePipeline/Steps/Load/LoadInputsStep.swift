import Foundation
import ReleaseCore
import ReleaseGeneration
import ReleaseJSON
import ReleaseManifest
import ReleaseModels
import ReleaseSettings
import ReleaseSystem

/// Reads every input once and validates it all before any work starts: the state file, the
/// manifest (all problems in one report), the selected customers, every model they use
/// (hashed and parsed; downloaded first from a URL model store), the template (with the
/// features customers may license) and the publish destinations' settings and credentials. Bad
/// input ends the run with exit 2 and nothing written.
package struct LoadInputsStep: RequiredStep {
  package let name = "load inputs"

  package init() {}

  package func run(_: Void, _ context: ReleaseContext) throws -> LoadedInputs {
    let settings = context.settings
    let services = context.services
    let state = try ReleaseState.load(
      from: services.resolve(settings.inputs.statePath), displayPath: settings.inputs.statePath)
    // Publish destinations first: a missing credential ends the run before any download or build.
    let publishTargets = try PublishTarget.resolving(settings.publishing.destinations, services)
    let store = try ModelStoreLocation.open(settings.inputs, services: services)
    // The whole store is listed (stat only, nothing read) before anything else: an entry that
    // is no model file is bad input, found now rather than mid-run by the scan that hashes it.
    _ = try ReleaseError.badInput(when: Self.notYetReported) { try store.flowNames() }
    // The template before the manifest: its features.json says which features and flows a
    // customer entry may name.
    let template = try ReleaseError.badInput(when: Self.notYetReported) {
      let template = try PackageTemplate.load(
        services.resolve(settings.inputs.templatesPath), displayPath: settings.inputs.templatesPath)
      try template.checkSDKVersion(expected: state.sdkVersion.description)
      return template
    }
    let manifest = try ReleaseError.badInput(when: Self.notYetReported) {
      try ManifestLoader.load(
        contentsOf: services.resolve(settings.inputs.manifestPath), displayPath: settings.inputs.manifestPath,
        store: store,
        features: template.features)
    }
    let selected = try select(settings.mode.namedCustomers, from: manifest)

    let (models, unavailable) = try ModelFacts.read(
      of: selected, store: store, storePath: settings.inputs.modelsPath)

    return LoadedInputs(
      state: state, manifest: Manifest(path: manifest.path, customers: selected),
      allCustomers: manifest.customers, modelStore: store,
      publishTargets: publishTargets, sdkVersion: state.sdkVersion, template: template,
      models: models, unavailableModels: unavailable,
      sdkChangelog: try CustomerReleaseNotes.sdkChangelog(
        at: services.resolve(InputSettings.sdkChangelogPath), displayPath: InputSettings.sdkChangelogPath))
  }

  /// Narrows the manifest to the customers named on the command line (by slug or app id).
  private func select(_ named: [String]?, from manifest: Manifest) throws -> [Customer] {
    guard let keys = named else { return manifest.customers }
    var chosen: [Customer] = []
    var unknown: [String] = []
    for key in keys {
      if let customer = manifest.customer(matching: key) {
        if !chosen.contains(where: { $0.id == customer.id }) { chosen.append(customer) }
      } else {
        unknown.append(key)
      }
    }
    if let key = unknown.first {
      let ids = manifest.customers.map(\.id)
      let hint = Suggestion.closest(to: key, among: ids).map { " (did you mean \"\($0)\"?)" } ?? ""
      throw ReleaseError.usage(
        "customer \"\(key)\": not in \(manifest.path)\(hint); expected one of: \(ids.joined(separator: ", "))"
      )
    }
    return chosen
  }

  /// A missing model store or template, or a template of another SDK version, is bad input
  /// (exit 2), not a failed step: nothing has been done yet. The tool's own errors and
  /// validation failures stay what they are.
  private static func notYetReported(_ error: any Error) -> String? {
    error is ReleaseError || error is ValidationFailure ? nil : "\(error)"
  }
}
