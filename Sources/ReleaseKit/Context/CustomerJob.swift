import Foundation
import ReleaseGeneration
import ReleaseManifest
import ReleaseSystem

/// The run's fixed inputs, resolved once by the load and plan steps.
public struct ReleaseInputs: Sendable {
  public var sdkVersion: SemanticVersion
  /// The template, read once: every package of the run is generated and checked from it.
  public var template: PackageTemplate
  public var templateDirectory: URL { template.directory }
  /// The whole template's digest (the SDK tag's marker); a customer's release is identified by
  /// the digest of its own package's files (`PackageTemplate.digest(for:)`).
  public var templateDigest: String { template.digest }
  /// `swift --version` (all of it), read by the plan step, the run's first process; part of
  /// the build digest (a new toolchain rebuilds).
  public var toolchain: String = ""
  /// Every model the selected customers use, read and hashed once.
  public var models: [ModelReference: ModelFacts]
  /// Models a URL store lists but that could not be downloaded (after retries), with why:
  /// the customers using them fail, the others go on.
  public var unavailableModels: [ModelReference: String] = [:]
  /// The template's signal catalog, once `AlignModelsStep` has read and checked it.
  public var signals: SignalCatalog? = nil
  /// The SDK's CHANGELOG.md sections by version, for release notes.
  public var sdkChangelog: [String: [String]] = [:]
}

/// What the tool knows of one model file of the store.
public struct ModelFacts: Sendable, Equatable {
  public var reference: ModelReference
  public var file: URL
  public var sha256: String
  public var size: Int64
  public var info: CoreMLModelInfo
  /// The oldest SDK version that computes every input of the model (`AlignModelsStep`); nil
  /// before alignment, or when an input is no signal at all.
  public var minimumSDKVersion: SemanticVersion? = nil

  /// The model as a package embeds it, as `model` of a customer's manifest entry.
  func embedded(as model: CustomModel) -> EmbeddedModel {
    EmbeddedModel(
      model: model, sourceFile: file, sha256: sha256, size: size, inputNames: info.inputNames,
      specificationVersion: info.specificationVersion)
  }
}

/// One customer's work in a run, from plan to result. What the plan decided is fixed; what
/// the customer steps find out (on a worker thread) is kept behind one lock, so the thread
/// that reports and summarises always reads a whole, current value.
public final class CustomerJob: Sendable {
  public enum Status: Hashable, Sendable {
    case pending
    /// `dist/` already holds a verified release made from the same inputs.
    case upToDate
    case succeeded
    case failed(step: String, reason: String)
    /// Not started because `--fail-fast` stopped the run.
    case cancelled
  }

  /// The built archive: where it is now (staging, then `dist/`), its SHA-256 and size.
  public struct Archive: Equatable, Sendable {
    public var path: URL
    public var sha256: String
    public var size: Int64
  }

  /// What the customer steps record as they go.
  struct Progress: Sendable {
    var status: Status
    var duration: Double = 0
    var packageDirectory: URL?
    var generated: GeneratedPackage?
    var archive: Archive?
    var testCount: Int?
    var logFile: URL?
  }

  public let customer: Customer
  public let version: SemanticVersion
  /// What the release is made from; its source digest decides versions, its build digest
  /// whether `dist/` is up to date.
  public let digest: InputDigest
  /// Why the job builds (or why it is up to date), for `--dry-run` and the log.
  public let reason: String
  /// What the release holds and how it differs from the customer's earlier releases.
  public let releaseNotes: CustomerReleaseNotes
  /// The features the package holds (`FeatureCatalog.features(of:)`), sorted by name.
  public let features: [Feature]
  private let progress: Locked<Progress>

  public init(
    customer: Customer, version: SemanticVersion, digest: InputDigest, reason: String, status: Status,
    releaseNotes: CustomerReleaseNotes, features: [Feature] = []
  ) {
    self.customer = customer
    self.features = features
    self.version = version
    self.digest = digest
    self.reason = reason
    self.releaseNotes = releaseNotes
    self.progress = Locked(Progress(status: status))
  }

  /// Jobs with the same value build their packages from the same modules: cheaper one after
  /// another in one warm build slot (see BuildSlots).
  var slotAffinity: String { features.map(\.module).joined(separator: " ") }

  public var status: Status {
    get { progress.withLock { $0.status } }
    set { progress.withLock { $0.status = newValue } }
  }
  public var duration: Double {
    get { progress.withLock { $0.duration } }
    set { progress.withLock { $0.duration = newValue } }
  }
  public var packageDirectory: URL? {
    get { progress.withLock { $0.packageDirectory } }
    set { progress.withLock { $0.packageDirectory = newValue } }
  }
  public var generated: GeneratedPackage? {
    get { progress.withLock { $0.generated } }
    set { progress.withLock { $0.generated = newValue } }
  }
  public var archive: Archive? {
    get { progress.withLock { $0.archive } }
    set { progress.withLock { $0.archive = newValue } }
  }
  public var testCount: Int? {
    get { progress.withLock { $0.testCount } }
    set { progress.withLock { $0.testCount = newValue } }
  }
  public var logFile: URL? {
    get { progress.withLock { $0.logFile } }
    set { progress.withLock { $0.logFile = newValue } }
  }

  public var id: String { customer.id }
  /// `dist/<id>/<version>/`.
  public func releaseDirectory(in dist: URL) -> URL {
    dist.appendingPathComponent(customer.id).appendingPathComponent(version.description)
  }
  public var archiveName: String { "\(customer.packageName)-\(version).zip" }
}
