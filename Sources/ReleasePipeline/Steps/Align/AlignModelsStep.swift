import Foundation
import ReleaseAlignment
import ReleaseCore
import ReleaseJSON
import ReleaseManifest
import ReleaseModels

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
    let catalog = try SignalCatalog.load(
      from: inputs.template, templatesPath: context.settings.inputs.templatesPath)
    var aligned = inputs
    var problems = Self.featureProblems(inputs.template.features, catalog: catalog)
    problems += Self.checkModelFiles(
      &aligned.models, catalog: catalog, modelsPath: context.settings.inputs.modelsPath)
    problems += Self.useProblems(inputs, catalog: catalog)
    if !problems.isEmpty { throw ValidationFailure(problems) }
    return ReleaseInputs(
      loaded: aligned, signals: catalog,
      storeModels: StoreScan(
        inputs.modelStore, known: aligned.models.mapValues(\.sha256), cacheDirectory: context.cacheDirectory))
  }

  /// Each feature computes signals of the SDK's catalog.
  private static func featureProblems(_ features: FeatureCatalog, catalog: SignalCatalog) -> [Diagnostic] {
    features.features.flatMap { feature in
      feature.signals.filter { catalog.introduced[$0] == nil }.map { signal in
        Diagnostic(
          file: features.displayPath, path: "features.\(feature.name).signals",
          message: "'\(signal)' is not a signal of \(SignalCatalog.fileName); expected one the SDK computes")
      }
    }
  }

  /// The model file against its place in the store, once per model however many use it;
  /// records each model's minimum SDK version.
  private static func checkModelFiles(
    _ models: inout [ModelReference: ModelFacts], catalog: SignalCatalog, modelsPath: String
  ) -> [Diagnostic] {
    var problems: [Diagnostic] = []
    for reference in models.keys.sorted() {
      guard let facts = models[reference] else { continue }
      for mismatch in ModelAlignment.metadataMismatches(facts.info, reference: reference, flowId: nil) {
        problems.append(
          Diagnostic(
            file: modelsPath + "/" + reference.relativePath, path: "metadata.\(mismatch.key)",
            message: "\"\(mismatch.found)\" differs from \(mismatch.source) (\(mismatch.expected))"))
      }
      models[reference]?.minimumSDKVersion = ModelAlignment.minimumSDKVersion(
        inputs: facts.info.inputNames, catalog: catalog)
    }
    return problems
  }

  /// Each use of a model against the SDK being released and the manifest's flow id.
  private static func useProblems(_ inputs: LoadedInputs, catalog: SignalCatalog) -> [Diagnostic] {
    let manifest = inputs.manifest
    let features = inputs.template.features
    var problems: [Diagnostic] = []
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
    return problems
  }
}
