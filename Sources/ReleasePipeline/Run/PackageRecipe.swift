import Foundation
import ReleaseGeneration
import ReleaseManifest

// What a customer's package and its release.json are made from, in one place: the build
// (`GenerateStep`, `StageStep`) and the content checks that hold a release to its inputs
// (`ReproductionCheck`) read the same recipe.

extension ReleaseInputs {
  /// What the customer's package is generated from: its entry, version, the SDK version, its
  /// models as the load step read them, and what its README shows: the releases repository URL
  /// and, with trusted keys, how to check the zip's signature.
  package func generationInput(for job: CustomerJob) -> GenerationInput {
    let models = job.customer.customModels.map { self.models[$0.reference]!.embedded(as: $0) }
    return GenerationInput(
      customer: job.customer, version: job.version.description, sdkVersion: self.sdkVersion.description,
      models: models, repositoryURL: job.digest.repositoryURL, modelManifestURL: job.digest.modelManifestURL,
      trustedKeys: job.digest.trustedKeys, manifestURL: job.digest.manifestURL,
      signatureCheck: job.digest.signatureCheck, trustedRoot: job.digest.trustedRoot,
      signals: self.signals.introduced.mapValues(\.description),
      releaseNotes: job.releaseNotes.notes)
  }
}

extension ReleaseRecord {
  /// The release.json of `job`: everything in it follows from the job and the run's inputs,
  /// but for what the build produced — the archive's bytes, the package's files, and how many
  /// tests `swift test` ran. The content checks hold a release in dist/ to this record.
  package init(
    _ job: CustomerJob, archiveSHA256: String, archiveSize: Int64, files: [ReleaseRecord.File],
    testCount: Int?,
    inputs: ReleaseInputs
  ) {
    let customer = job.customer
    self.init(
      customer: .init(
        id: customer.id, name: customer.name, appID: customer.appID,
        bundleIdentifiers: customer.bundleIdentifiers),
      version: job.version.description, sdkVersion: inputs.sdkVersion.description,
      packageName: customer.packageName,
      features: job.features.map(\.name),
      models: inputs.generationInput(for: job).models.map { embedded in
        ReleaseRecord.Model(
          flowId: embedded.model.flowId, flowName: embedded.model.flowName,
          modelVersion: embedded.model.modelVersion,
          sha256: embedded.sha256, size: embedded.size,
          entry: PackageGenerator.modelsDirectory + "/" + embedded.resourceName,
          specificationVersion: embedded.specificationVersion, inputNames: embedded.inputNames,
          minimumSDKVersion: inputs.models[embedded.model.reference]?.minimumSDKVersion?.description ?? "",
          metadata: inputs.models[embedded.model.reference]?.info.userDefinedMetadata ?? [:])
      },
      files: files,
      artifact: .init(
        file: job.archiveName, sha256: archiveSHA256, size: archiveSize,
        topLevelDirectory: customer.packageName),
      toolchain: job.digest.toolchain, tool: job.digest.tool, sourceDigest: job.digest.source,
      inputDigest: job.digest.build, inputs: job.digest, testCount: testCount,
      releaseNotes: job.releaseNotes.note, pinnedKeys: !(job.digest.trustedKeys ?? []).isEmpty)
  }
}
