import Foundation
import ReleasePipeline
import ReleaseSettings
import ReleaseSigning
import ReleaseSystem

/// `release verify`, for each release: its contents against release.json, its manifest entry
/// and the model store (`ArtifactChecks`), and its signature against the trusted keys.
package struct CompareReleaseStep: Step {
  package let name = "compare"
  let inputs: VerifyInputs

  package init(inputs: VerifyInputs) { self.inputs = inputs }

  package func skipReason(_ release: ReleaseFindings, _ context: ReleaseContext) -> String? {
    release.passed ? nil : ReleaseFindings.earlierCheckFailed
  }

  package func run(_ release: ReleaseFindings, _ context: ReleaseContext) throws -> ReleaseFindings {
    guard let record = release.record else { return release }
    var checked = release
    let manifestPath = inputs.locations.manifestPath
    if let named = release.location.namedArchive, named != record.artifact.file {
      checked.problems.append(
        "\(named): release.json beside it describes \(record.artifact.file), not this file")
    }
    if release.customer == nil {
      checked.problems.append("\(record.customer.id): not a customer in \(manifestPath)")
    } else if release.customer?.appID.lowercased() != record.customer.appID.lowercased() {
      checked.problems.append(
        "\(record.customer.id): app_id \(record.customer.appID) differs from \(manifestPath)")
    }
    let scans = PackageContentScans(
      customerID: record.customer.id, manifest: inputs.manifest, templateWords: inputs.templateWords)
    let checks = ArtifactChecks(
      store: inputs.storeModels, features: inputs.template.features, customer: release.customer, scans: scans)
    checked.problems += checks.problems(releaseDirectory: release.location.directory, record: record)
    checked.problems += signatureProblems(release.location.directory, record: record, context.services.output)
    return checked
  }

  /// The zip's signature: a problem when it fails or is missing though the release was
  /// published signed; a line of its own when it is checked or cannot be.
  private func signatureProblems(_ directory: URL, record: ReleaseRecord, _ output: OutputStreaming)
    -> [String]
  {
    let trusted = inputs.settings.trustedKeys
    switch ArtifactChecks.signature(
      releaseDirectory: directory, archive: record.artifact.file, trusted: trusted)
    {
    case .unsigned:
      return Self.missingSignature(directory, record: record, trusted: trusted).map { [$0] } ?? []
    case .unchecked(let file):
      output.write(
        line:
          "  note \(file) not checked: \(inputs.settings.configurationPath) trusts no key (signing.trustedKeys)",
        to: .standardOutput)
    case .signed(let file, let key):
      output.write(
        line: "  ok  \(file): signed by key \(key.keyID) (\(key.sshFingerprint))", to: .standardOutput)
    case .failed(let problem): return [problem]
    }
    return []
  }

  /// With trusted keys, a release whose receipt says it was published signed and whose `.sig`
  /// is not beside the zip (or a receipt that cannot be read): the problem, else nil.
  static func missingSignature(_ directory: URL, record: ReleaseRecord, trusted: [PublicKey]) -> String? {
    guard !trusted.isEmpty else { return nil }
    let signature = record.artifact.file + ReleaseSignature.suffix
    let receipt: PublishReceipt?
    do { receipt = try PublishReceipt.load(from: directory) } catch { return error.description }
    guard let receipt else { return nil }
    guard receipt.signature == signature else {
      return "\(PublishReceipt.fileName): names the signature \(receipt.signature), expected \(signature)"
    }
    return
      "\(signature): missing, and \(PublishReceipt.fileName) says this release was published signed; restore the signature from the destination (\(signature) beside the zip)"
  }
}
