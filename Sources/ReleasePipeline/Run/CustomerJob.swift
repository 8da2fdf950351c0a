import Foundation
import ReleaseCore
import ReleaseGeneration
import ReleaseManifest
import ReleaseModels
import ReleaseReporting
import ReleaseSystem

/// What the tool knows of one model file of the store.
package struct ModelFacts: Sendable, Equatable {
  var reference: ModelReference
  var file: URL
  package var sha256: String
  var size: Int64
  package var info: CoreMLModelInfo
  /// The oldest SDK version that computes every input of the model (`AlignModelsStep`); nil
  /// before alignment, or when an input is no signal at all.
  package var minimumSDKVersion: SemanticVersion? = nil

  /// The model as a package embeds it, as `model` of a customer's manifest entry.
  package func embedded(as model: CustomModel) -> EmbeddedModel {
    EmbeddedModel(
      model: model, sourceFile: file, sha256: sha256, size: size, inputNames: info.inputNames,
      specificationVersion: info.specificationVersion)
  }
}

/// What the plan decided for one customer: its version, what the release is made from and
/// why it builds or not. Fixed once planned; what the customer steps make is a
/// `CustomerResult`.
package struct CustomerJob: Sendable {
  package let customer: Customer
  package let version: SemanticVersion
  /// What the release is made from; its source digest decides versions, its build digest
  /// whether `dist/` is up to date.
  package let digest: InputDigest
  /// Why the job builds (or why it is up to date), for `--dry-run` and the log.
  var reason: String
  /// What the release holds and how it differs from the customer's earlier releases.
  package let releaseNotes: CustomerReleaseNotes
  /// The features the package holds (`FeatureCatalog.features(of:)`), sorted by name.
  package let features: [Feature]

  init(
    customer: Customer, version: SemanticVersion, digest: InputDigest, reason: String,
    releaseNotes: CustomerReleaseNotes, features: [Feature] = []
  ) {
    self.customer = customer
    self.features = features
    self.version = version
    self.digest = digest
    self.reason = reason
    self.releaseNotes = releaseNotes
  }

  /// Jobs with the same value build their packages from the same modules: cheaper one after
  /// another in one warm build slot (see BuildSlots).
  package var slotAffinity: String { features.map(\.module).joined(separator: " ") }

  package var id: String { customer.id }
  /// `dist/<id>/<version>/`.
  package func releaseDirectory(in dist: URL) -> URL {
    dist.appendingPathComponent(customer.id).appendingPathComponent(version.description)
  }
  package var archiveName: String {
    PackageGenerator.archiveName(packageName: customer.packageName, version: version.description)
  }
  /// Where the customer steps write the job's log; it moves to `dist/logs/` when the job ends.
  package func scratchLog(in cache: URL) -> URL {
    cache.appendingPathComponent("logs").appendingPathComponent("\(id).log")
  }
}

/// Where one customer's job stands: planned (to build, up to date, failed before building) and
/// then what the customer steps made of it.
package struct CustomerResult: Sendable {
  package enum Status: Hashable, Sendable {
    /// To build; under `--dry-run`, what would be built.
    case pending
    /// `dist/` already holds a verified release made from the same inputs.
    case upToDate
    case succeeded
    case failed(step: String, reason: String)
    /// Not started because `--fail-fast` stopped the run.
    case cancelled
  }

  /// A release archive: where it is (staging, then `dist/`), its SHA-256 and size.
  package struct Archive: Equatable, Sendable {
    var path: URL
    var sha256: String
    var size: Int64
  }

  package let job: CustomerJob
  package var status: Status
  var duration: Double = 0
  /// The release's archive in `dist/`, for a customer built or up to date.
  var archive: Archive?
  /// How many tests `swift test` ran, when it printed it.
  package var testCount: Int?
  /// How its tests ran, for the run's output and report (never `release.json`).
  package var testedBy: TestMethod?
  package var logFile: URL?

  init(
    job: CustomerJob, status: Status, archive: Archive? = nil, testCount: Int? = nil, logFile: URL? = nil
  ) {
    self.job = job
    self.status = status
    self.archive = archive
    self.testCount = testCount
    self.logFile = logFile
  }

  package var id: String { job.id }
  package var isFailed: Bool {
    if case .failed = status { return true }
    return false
  }

  package func outcome(relativeTo root: URL, shipped: Bool? = nil) -> ReleaseEvent.CustomerOutcome {
    func relative(_ url: URL?) -> String? {
      guard let path = url?.path else { return nil }
      let prefix = root.path.hasSuffix("/") ? root.path : root.path + "/"
      return path.hasPrefix(prefix) ? String(path.dropFirst(prefix.count)) : path
    }
    // Only a release in dist/ is an artifact; a failed job's archive is scratch (staging).
    let released = status == .succeeded || status == .upToDate
    var outcome = ReleaseEvent.CustomerOutcome(
      id: id, version: job.version.description, status: .pending, seconds: duration,
      artifact: released ? relative(archive?.path) : nil, sha256: released ? archive?.sha256 : nil,
      testCount: testCount,
      failedStep: nil, reason: nil, logFile: relative(logFile), shipped: shipped, testedBy: testedBy)
    switch status {
    case .pending: outcome.status = .pending
    case .upToDate: outcome.status = .upToDate
    case .succeeded: outcome.status = .built
    case .cancelled: outcome.status = .cancelled
    case .failed(let step, let reason):
      outcome.status = .failed
      outcome.failedStep = step
      outcome.reason = reason
    }
    return outcome
  }
}
