import Foundation
import ReleasePipeline
import ReleaseSettings

/// `release verify <zip | release dir | dist dir | release.json>`: checks generated packages
/// the way a customer's engineer would, before they go out. Content checks first (safe
/// archive, checksums, every file accounted for, exactly the customer's models, no other
/// model of the store); then the package is regenerated from the inputs and compared; then,
/// unless `--no-build`, the extracted package is built and tested in a temporary directory
/// and a consumer package that depends on it by path is built and run, calling the SDK for
/// each of the customer's flows.
package enum Verification {
  /// The steps of `release verify`, each taking what the one before returned: the releases
  /// and inputs once, then each release through its checks (a check runs only while the
  /// release has no problem), then the count.
  package static func run(_ request: VerifyRequest, _ pipeline: Pipeline) throws {
    let releases = try pipeline.run(FindReleasesStep(), request.paths)
    let inputs = try pipeline.run(LoadVerifyInputsStep(settings: request.settings), request.inputs)
    let passed = try releases.map { location in
      var release = try pipeline.run(ReadRecordStep(inputs: inputs), location)
      release = try pipeline.run(CompareReleaseStep(inputs: inputs), release) ?? release
      release = try pipeline.run(ReproduceReleaseStep(inputs: inputs), release) ?? release
      release =
        try pipeline.run(BuildAndConsumeStep(build: request.build, timeLimit: request.timeout), release)
        ?? release
      return try pipeline.run(ReportReleaseStep(), release)
    }
    try pipeline.run(SummarizeVerificationStep(), passed)
  }
}
