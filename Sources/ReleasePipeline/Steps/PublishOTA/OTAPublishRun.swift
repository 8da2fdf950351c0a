import Foundation

/// `release ota publish` (and `ota evaluate --apply --publish`): the over-the-air channel
/// published from rollouts.json, without building or publishing any release.
package enum OTAPublishRun {
  /// The steps of `ota publish`: the inputs of a release run, the over-the-air plan checked,
  /// then published to the channel's destination.
  package static func pipeline(_ pipeline: Pipeline) throws {
    let inputs = try pipeline.run(AlignModelsStep(), try pipeline.run(LoadInputsStep(), ()))
    let ota = try pipeline.run(CheckOTAStep(for: .otaPublish), inputs)
    try pipeline.run(PublishOTAStep(), .init(ota: ota, inputs: inputs, results: nil))
  }
}
