import Foundation
import ReleaseCore
import ReleaseGeneration
import ReleaseJSON
import ReleaseManifest
import ReleaseModels
import ReleasePipeline

/// What `release verify` checks every release against, read once: the model store, the
/// template, the manifest and every model's digest.
struct VerifyInputs {
  let store: DirectoryModelStore
  /// Every release is regenerated from the same template, and its features.json says which
  /// features a customer entry may name.
  let template: PackageTemplate
  let manifest: Manifest
  let storeModels: StoreModels
  let templateWords: PackageContentScans.TemplateWords

  /// Bad input in any of them is a named error (exit 2), before any release is read.
  static func load(_ options: VerifyOptions, services: Services) throws -> VerifyInputs {
    let manifestPath = options.manifestPath
    let modelsPath = options.modelsPath
    let store = DirectoryModelStore(
      root: services.resolve(modelsPath), displayName: modelsPath,
      maximumModelSize: options.maximumModelSize)
    let templates = options.templatesPath
    let template: PackageTemplate
    do { template = try PackageTemplate.load(services.resolve(templates), displayPath: templates) } catch let
      failure as ValidationFailure
    {
      throw failure
    } catch {
      throw ReleaseError.invalidInput("\(error)")
    }
    let manifest: Manifest
    do {
      manifest = try ManifestLoader.load(
        contentsOf: services.resolve(manifestPath), displayPath: manifestPath, store: store,
        features: template.features)
    } catch let error as DirectoryModelStoreError {
      throw ReleaseError.invalidInput(error.description)
    }
    // A store entry that is no model file is bad input (exit 2), named, before anything is read.
    let storeModels: StoreModels
    do { storeModels = try StoreModels(store) } catch let error as DirectoryModelStoreError {
      throw ReleaseError.invalidInput(error.description)
    }
    return VerifyInputs(
      store: store, template: template, manifest: manifest, storeModels: storeModels,
      templateWords: PackageContentScans.TemplateWords(template))
  }
}
