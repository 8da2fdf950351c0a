import Foundation
import ReleaseCore
import ReleaseGeneration
import ReleaseManifest
import ReleaseModels
import ReleasePipeline
import ReleaseSettings
import ReleaseSigning

/// `release verify`, for each release whose contents passed: before any of its code runs,
/// the package must be exactly what the template makes. Regenerates it from the manifest, the
/// model store and the template as `release all` does (with the same URLs and keys, the
/// configuration's repository, the template's signals and the state's recorded releases) and
/// compares the archive with it; says so when it is.
package struct ReproduceReleaseStep: Step {
  package let name = "reproduce"
  let inputs: VerifyInputs

  package init(inputs: VerifyInputs) { self.inputs = inputs }

  package func skipReason(_ release: ReleaseFindings, _ context: ReleaseContext) -> String? {
    release.passed && release.customer != nil ? nil : ReleaseFindings.earlierCheckFailed
  }

  package func run(_ release: ReleaseFindings, _ context: ReleaseContext) throws -> ReleaseFindings {
    guard let record = release.record, let customer = release.customer else { return release }
    var checked = release
    checked.problems += problems(record: record, customer: customer, release.location.directory, context)
    if checked.problems.isEmpty { reportPassed(record, context) }
    return checked
  }

  private func problems(
    record: ReleaseRecord, customer: Customer, _ directory: URL, _ context: ReleaseContext
  )
    -> [String]
  {
    let problems = ReproductionCheck.recordProblems(record, customer: customer, version: record.version)
    do {
      let facts = try ModelFacts.read(
        of: [customer], store: inputs.store, storePath: inputs.store.displayName
      )
      .facts
      guard let version = SemanticVersion(record.version),
        let sdk = SemanticVersion(inputs.template.sdkVersion)
      else {
        return problems + ["release.json: version \(record.version) is not a version this tool releases"]
      }
      let input = generationInput(customer, facts: facts, version: version, sdk: sdk, context.services.root)
      return problems
        + ReproductionCheck.archiveProblems(
          directory.appendingPathComponent(record.artifact.file), topLevelDirectory: customer.packageName,
          expected: try PackageGenerator.files(input, template: inputs.template))
    } catch {
      return problems + [
        "cannot generate the package from \(inputs.locations.templatesPath) to compare with: \(error)"
      ]
    }
  }

  /// What `release all` would generate the customer's package of `version` from.
  private func generationInput(
    _ customer: Customer, facts: [ModelReference: ModelFacts], version: SemanticVersion, sdk: SemanticVersion,
    _ root: URL
  ) -> GenerationInput {
    let template = inputs.template
    // A directory store has every model it lists or throws: none is left out as unavailable.
    let models = customer.customModels.map { facts[$0.reference]!.embedded(as: $0) }
    let urls = inputs.settings.packages
    let repositoryURL = urls.releasesRepository.map {
      ReleasesRepository.url(template: $0, id: customer.id, root: root)
    }
    let modelManifestURL = urls.modelManifestURL(for: customer.id)
    let manifestURL = inputs.state.channels[customer.id].flatMap { urls.manifestURL(channel: $0) }
    let features = template.features.features(of: customer)
    let notes = CustomerReleaseNotes(
      customer: customer, version: version, sdkVersion: sdk, models: facts,
      recorded: inputs.state.customers[customer.id], sdkChangelog: inputs.sdkChangelog,
      templateDigest: template.digest(for: features), modelManifestURL: modelManifestURL,
      repositoryURL: repositoryURL, features: features.map(\.name))
    return GenerationInput(
      customer: customer, version: version.description, sdkVersion: template.sdkVersion, models: models,
      repositoryURL: repositoryURL, modelManifestURL: modelManifestURL,
      trustedKeys: manifestURL == nil ? nil : urls.pinnedKeys, manifestURL: manifestURL,
      signatureCheck: urls.signatureCheck, trustedRoot: manifestURL == nil ? nil : urls.embeddedRoot,
      signals: inputs.signals, releaseNotes: notes.notes)
  }

  /// The contents and the package passed: one line saying what was checked.
  private func reportPassed(_ record: ReleaseRecord, _ context: ReleaseContext) {
    context.services.output.write(
      line:
        "  ok  archive safe; sha256 and size match; \(record.files.count) files accounted for; models exactly "
        + record.models.map { "\($0.flowName) v\($0.modelVersion)" }.joined(separator: ", ")
        + "; no other of the store's \(inputs.storeModels.count) models inside"
        + (record.features.map { "; features \($0.joined(separator: ", ")) and no other feature's code" }
          ?? ""),
      to: .standardOutput)
  }
}
