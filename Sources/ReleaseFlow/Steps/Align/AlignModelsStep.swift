import Foundation
import ReleaseAlignment
import ReleaseCore
import ReleaseJSON
import ReleaseManifest
import ReleasePipeline

/// Checks every model the run embeds against the SDK version being released, before anything is
/// built: each input must be a signal that SDK computes (`signals.json` in the template) and that
/// the feature serving the model's flow computes (`features.json`), and
/// the model's own metadata must agree with its place in the store and its manifest entry.
/// Every problem of the run is reported at once (exit 2, nothing written). Records each
/// model's minimum SDK version for release.json, the indexes and the OTA manifests.
package struct AlignModelsStep: RequiredStep {
  package let name = "check model alignment"

  package init() {}

  package func run(_ inputs: LoadedInputs, _ context: ReleaseContext) throws -> ReleaseInputs {
    let manifest = inputs.manifest
    var models = inputs.models
    let catalog = try SignalCatalog.load(from: inputs.template, templatesPath: context.options.templatesPath)
    let features = inputs.template.features
    var problems: [Diagnostic] = []

    // Each feature computes signals of the SDK's catalog.
    for feature in features.features {
      for signal in feature.signals where catalog.introduced[signal] == nil {
        problems.append(
          Diagnostic(
            file: features.displayPath, path: "features.\(feature.name).signals",
            message: "'\(signal)' is not a signal of \(SignalCatalog.fileName); expected one the SDK computes"
          ))
      }
    }

    // The model file against its place in the store, once per model however many use it.
    for reference in inputs.models.keys.sorted() {
      guard let facts = inputs.models[reference] else { continue }
      for mismatch in ModelAlignment.metadataMismatches(facts.info, reference: reference, flowId: nil) {
        problems.append(
          Diagnostic(
            file: context.options.modelsPath + "/" + reference.relativePath, path: "metadata.\(mismatch.key)",
            message: "\"\(mismatch.found)\" differs from \(mismatch.source) (\(mismatch.expected))"))
      }
      models[reference]?.minimumSDKVersion = ModelAlignment.minimumSDKVersion(
        inputs: facts.info.inputNames, catalog: catalog)
    }

    // Each use of a model against the SDK being released and the manifest's flow id.
    for customer in manifest.customers {
      for (index, model) in customer.customModels.enumerated() {
        guard let facts = inputs.models[model.reference] else { continue }
        let path = "customers[\(customer.index)].customModels[\(index)]"
        func report(_ message: String) {
          problems.append(
            Diagnostic(
              file: manifest.path, path: path, message: "\(model.reference) \(message)", line: customer.line))
        }
        for gap in ModelAlignment.gaps(
          inputs: facts.info.inputNames, catalog: catalog, sdkVersion: inputs.sdkVersion,
          feature: features.feature(servingFlow: model.flowName))
        {
          report(ModelAlignment.describe(gap, sdkVersion: inputs.sdkVersion))
        }
        for mismatch in ModelAlignment.metadataMismatches(
          facts.info, reference: model.reference, flowId: model.flowId)
        where mismatch.key == "flowId" {
          report("has flowId \(mismatch.found) in its metadata; the manifest says \(mismatch.expected)")
        }
      }
    }
    if !problems.isEmpty { throw ValidationFailure(problems) }
    var aligned = inputs
    aligned.models = models
    return ReleaseInputs(
      loaded: aligned, signals: catalog,
      storeModels: StoreScan(
        inputs.modelStore, known: models.mapValues(\.sha256), cacheDirectory: context.cacheDirectory))
  }
}
