import Foundation
import ReleaseGeneration
import ReleaseManifest
import ReleaseSystem

/// Generates the customer's source package from the template into scratch space
/// (`<cache>/packages/<id>/<PackageName>`), embedding exactly the customer's models.
package struct GenerateStep: CustomerStep {
  package let name = "generate"
  package let inputs: ReleaseInputs

  package init(inputs: ReleaseInputs) { self.inputs = inputs }

  package func run(_ job: CustomerJob, for _: CustomerJob, _ context: ReleaseContext) throws
    -> GeneratedSource
  {
    let scratch = context.cacheDirectory.appendingPathComponent("packages").appendingPathComponent(job.id)
    try? FileManager.default.removeItem(at: scratch)
    let packageDirectory = scratch.appendingPathComponent(job.customer.packageName)
    try AtomicFile.createDirectory(scratch)
    let input = Self.input(for: job, inputs: inputs)
    _ = try PackageGenerator.generate(input, template: inputs.template, into: packageDirectory)
    return GeneratedSource(directory: packageDirectory)
  }

  /// What the customer's package is generated from: its entry, version, the SDK version, its
  /// models as the load step read them, and what its README shows: the releases repository URL
  /// and, with trusted keys, how to check the zip's signature.
  static func input(for job: CustomerJob, inputs: ReleaseInputs) -> GenerationInput {
    let models = job.customer.customModels.map { inputs.models[$0.reference]!.embedded(as: $0) }
    return GenerationInput(
      customer: job.customer, version: job.version.description, sdkVersion: inputs.sdkVersion.description,
      models: models, repositoryURL: job.digest.repositoryURL, modelManifestURL: job.digest.modelManifestURL,
      trustedKeys: job.digest.trustedKeys, manifestURL: job.digest.manifestURL,
      signatureCheck: job.digest.signatureCheck, trustedRoot: job.digest.trustedRoot,
      signals: inputs.signals.introduced.mapValues(\.description),
      releaseNotes: job.releaseNotes.notes)
  }
}

/// A customer's generated source package, in scratch space.
package struct GeneratedSource: Sendable {
  package var directory: URL
}
