import Foundation
import ReleaseAlignment
import ReleaseCore
import ReleaseGeneration
import ReleaseJSON
import ReleaseManifest
import ReleaseModels
import ReleasePipeline
import ReleaseSettings

/// `release verify`: reads what every release is checked against, once: the model store, the
/// template, the manifest, every model's digest, and what packages are regenerated from (the
/// template's signals, the state file, the SDK's changelog). Bad input in any of them is a
/// named error (exit 2), before any release is read.
package struct LoadVerifyInputsStep: RequiredStep {
  package let name = "load inputs"
  let settings: VerifySettings

  package init(settings: VerifySettings) { self.settings = settings }

  package func run(_ locations: InputSettings, _ context: ReleaseContext) throws -> VerifyInputs {
    let services = context.services
    let store = DirectoryModelStore(
      root: services.resolve(locations.modelsPath), displayName: locations.modelsPath,
      maximumModelSize: locations.maximumModelSize)
    let template = try Self.template(locations.templatesPath, services)
    let manifest = try Self.badInput {
      try ManifestLoader.load(
        contentsOf: services.resolve(locations.manifestPath), displayPath: locations.manifestPath,
        store: store,
        features: template.features)
    }
    // A store entry that is no model file is bad input (exit 2), named, before anything is read.
    let storeModels = try Self.badInput { try StoreModels(store) }
    let signals = try SignalCatalog.load(from: template, templatesPath: locations.templatesPath).introduced
    return VerifyInputs(
      store: store, template: template, manifest: manifest, storeModels: storeModels,
      templateWords: PackageContentScans.TemplateWords(template, manifest: manifest),
      signals: signals.mapValues(\.description),
      state: try ReleaseState.load(
        from: services.resolve(locations.statePath), displayPath: locations.statePath),
      sdkChangelog: try CustomerReleaseNotes.sdkChangelog(
        at: services.resolve(InputSettings.sdkChangelogPath), displayPath: InputSettings.sdkChangelogPath),
      locations: locations, settings: settings)
  }

  /// The template; one that cannot be read is bad input.
  private static func template(_ path: String, _ services: Services) throws -> PackageTemplate {
    do { return try PackageTemplate.load(services.resolve(path), displayPath: path) } catch let
      failure as ValidationFailure
    {
      throw failure
    } catch {
      throw ReleaseError.invalidInput("\(error)")
    }
  }

  /// A model store entry that is no model file is bad input, one line naming it.
  private static func badInput<T>(_ body: () throws -> T) throws -> T {
    do { return try body() } catch let error as DirectoryModelStoreError {
      throw ReleaseError.invalidInput(error.description)
    }
  }
}
