import Foundation
import ReleaseCore
import ReleaseManifest
import ReleaseModels

/// Whether a model can run on an SDK version, from the model's inputs and the SDK's signal
/// catalog, and whether the model's own metadata agrees with where it is used. Pure: the align
/// step and `release rollout` both ask it.
package enum ModelAlignment {
  /// Why a model cannot run on an SDK version.
  package enum Gap: Equatable, Sendable {
    /// An input the catalog does not declare: no SDK version computes it.
    case unknownSignal(String)
    /// An input introduced after the SDK version in question.
    case newerSignal(String, introduced: SemanticVersion)
    /// An input the feature running the model's flow does not compute (`features.json`).
    case notComputedByFeature(String, feature: String)
  }

  /// The oldest SDK version that computes every input: the newest introduction version among
  /// them. Nil when an input is not in the catalog (then no SDK version can run the model).
  package static func minimumSDKVersion(inputs: [String], catalog: SignalCatalog) -> SemanticVersion? {
    var minimum = SemanticVersion(0, 0, 0)
    for input in inputs {
      guard let introduced = catalog.introduced[input] else { return nil }
      minimum = max(minimum, introduced)
    }
    return minimum
  }

  /// Every input that `sdkVersion` cannot compute, in the model's input order; with `feature`
  /// (the one serving the model's flow), also every input that feature does not compute: a
  /// customer's package holds only its features' signals.
  package static func gaps(
    inputs: [String], catalog: SignalCatalog, sdkVersion: SemanticVersion, feature: Feature? = nil
  ) -> [Gap] {
    inputs.compactMap { input in
      guard let introduced = catalog.introduced[input] else { return .unknownSignal(input) }
      if let feature, !feature.signals.contains(input) {
        return .notComputedByFeature(input, feature: feature.name)
      }
      return introduced > sdkVersion ? .newerSignal(input, introduced: introduced) : nil
    }
  }

  /// `needs signal 'battery_level', which ContextSDK 2.4.0 does not compute (signals.json:
  /// introduced in 2.5.0)`.
  package static func describe(_ gap: Gap, sdkVersion: SemanticVersion) -> String {
    switch gap {
    case .unknownSignal(let signal):
      return
        "needs signal '\(signal)', which no ContextSDK version computes (not in \(SignalCatalog.fileName))"
    case .newerSignal(let signal, let introduced):
      return
        "needs signal '\(signal)', which ContextSDK \(sdkVersion) does not compute (\(SignalCatalog.fileName): introduced in \(introduced))"
    case .notComputedByFeature(let signal, let feature):
      return
        "needs signal '\(signal)', which feature '\(feature)' does not compute (\(FeatureCatalog.fileName): features.\(feature).signals)"
    }
  }

  /// Where the model's user-defined metadata (`flowName`, `flowId`, `modelVersion`, each when
  /// present) disagrees with its place in the store and its manifest entry: a file copied to
  /// the wrong flow or version would otherwise ship under a name that is not its own.
  /// - Parameter flowId: the flow id the manifest (or the rollout) gives; nil to skip that check.
  package static func metadataMismatches(
    _ info: CoreMLModelInfo, reference: ModelReference, flowId: Int?
  ) -> [(key: String, found: String, expected: String, source: String)] {
    var mismatches: [(key: String, found: String, expected: String, source: String)] = []
    let metadata = info.userDefinedMetadata
    if let name = metadata["flowName"], name != reference.flowName {
      mismatches.append(("flowName", name, reference.flowName, "its place in the model store"))
    }
    if let version = metadata["modelVersion"], version != String(reference.version) {
      mismatches.append(("modelVersion", version, String(reference.version), "its place in the model store"))
    }
    if let flowId, let id = metadata["flowId"], id != String(flowId) {
      mismatches.append(("flowId", id, String(flowId), "the manifest"))
    }
    return mismatches
  }
}
