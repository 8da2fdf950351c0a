import Foundation
import ReleaseManifest
import ReleaseSystem

/// One artifact a run produced (after GoReleaser's artifact list): steps append, later steps
/// (verify, publish, report) read.
public struct Artifact: Equatable, Sendable {
  public enum Kind: String, Codable, Sendable { case sourceArchive, checksum, releaseManifest }
  public var kind: Kind
  public var customerID: String
  public var version: SemanticVersion
  /// Final location under `dist/`.
  public var path: URL
  public var sha256: String
  public var size: Int64
}

/// State shared by the steps of one run. Steps run in order and fill in what later steps read
/// (inputs, plan, locks); the per-customer phase reads it from worker threads and appends
/// artifacts. All of it sits behind one lock.
public final class ReleaseContext: Sendable {
  public let services: Services
  public let options: ReleaseOptions
  public let reporter: Reporter

  /// What the steps have found out so far.
  struct RunState: Sendable {
    var manifest: Manifest?
    var modelStore: ModelStore?
    var state: ReleaseState?
    var inputs: ReleaseInputs?
    var jobs: [CustomerJob] = []
    var publishTargets: [PublishTarget]?
    var locks: [FileLock] = []
    var tagPlan: TagPlan?
    var artifacts: [Artifact] = []
    var shard: ShardRecord?
    var mergeOrigins: [String: MergeOrigin] = [:]
    var ota: OTAPlan?
    var storeModels: StoreModels?
  }
  private let run = Locked(RunState())

  public init(services: Services, options: ReleaseOptions, reporter: Reporter) {
    self.services = services
    self.options = options
    self.reporter = reporter
  }

  // Filled by the load and plan steps, read by everything after them.
  public var manifest: Manifest? {
    get { run.withLock { $0.manifest } }
    set { run.withLock { $0.manifest = newValue } }
  }
  public var modelStore: ModelStore? {
    get { run.withLock { $0.modelStore } }
    set { run.withLock { $0.modelStore = newValue } }
  }
  public var state: ReleaseState? {
    get { run.withLock { $0.state } }
    set { run.withLock { $0.state = newValue } }
  }
  public var inputs: ReleaseInputs? {
    get { run.withLock { $0.inputs } }
    set { run.withLock { $0.inputs = newValue } }
  }
  public var jobs: [CustomerJob] {
    get { run.withLock { $0.jobs } }
    set { run.withLock { $0.jobs = newValue } }
  }

  /// Every model of the store by digest, scanned once per run however many steps ask (the
  /// plan digest of a shard or merge, the checks of a merge's shards, the content checks):
  /// the run's own models by the digests the load step took, the others through the digest
  /// cache (see `ModelDigestCache` for why trusting it is safe).
  func storeModels() throws -> StoreModels {
    if let scanned = run.withLock({ $0.storeModels }) { return scanned }
    guard let store = modelStore, let inputs else {
      preconditionFailure("the store is scanned after load inputs")
    }
    let digests = ModelDigestCache(directory: cacheDirectory)
    let scanned = try StoreModels(store, known: inputs.models.mapValues(\.sha256), digests: digests)
    // A cache that cannot be written only costs the next run the reads.
    try? digests.save()
    run.withLock { $0.storeModels = scanned }
    return scanned
  }
  /// Publish destinations, resolved (credentials read) by the load step before any work.
  var publishTargets: [PublishTarget]? {
    get { run.withLock { $0.publishTargets } }
    set { run.withLock { $0.publishTargets = newValue } }
  }
  /// Held from the lock step to the end of the run.
  var locks: [FileLock] {
    get { run.withLock { $0.locks } }
    set { run.withLock { $0.locks = newValue } }
  }
  /// What a tagging run tags, from the check before building (`TagCheckStep`).
  var tagPlan: TagPlan? {
    get { run.withLock { $0.tagPlan } }
    set { run.withLock { $0.tagPlan = newValue } }
  }

  /// The shard a `--shard k/N` run builds (`SelectShardStep`); its record goes into dist/.
  var shard: ShardRecord? {
    get { run.withLock { $0.shard } }
    set { run.withLock { $0.shard = newValue } }
  }
  /// `release merge`: which shard's dist/ holds each customer's release (`LoadShardsStep`).
  var mergeOrigins: [String: MergeOrigin] {
    get { run.withLock { $0.mergeOrigins } }
    set { run.withLock { $0.mergeOrigins = newValue } }
  }

  /// What goes over the air this run (`CheckOTAStep`).
  var ota: OTAPlan? {
    get { run.withLock { $0.ota } }
    set { run.withLock { $0.ota = newValue } }
  }

  public var artifacts: [Artifact] { run.withLock { $0.artifacts } }

  public func add(_ artifact: Artifact) { run.withLock { $0.artifacts.append(artifact) } }

  public var distDirectory: URL { services.resolve(options.distPath) }
  public var cacheDirectory: URL { services.resolve(options.cachePath) }
  public var logsDirectory: URL { distDirectory.appendingPathComponent("logs") }
}

extension ReleaseContext {
  /// Customers whose release is in dist/ at the end of the run (built or up to date); under
  /// `--dry-run`, those that would be built count as built.
  var releasedJobs: [CustomerJob] {
    jobs.filter {
      $0.status == .succeeded || $0.status == .upToDate || (options.dryRun && $0.status == .pending)
    }
  }

  /// The customers this run checks, lists, publishes, tags and records: all of them when every
  /// customer succeeded; with some failed, those that passed under `--publish-passed`, else
  /// none (all or nothing).
  var shippingJobs: [CustomerJob] {
    let released = releasedJobs
    return released.count == jobs.count || options.publishPassed ? released : []
  }

  /// Why a step that works on `shippingJobs` has nothing to do; nil when it has.
  func nothingShipsReason(_ what: String) -> String? {
    guard shippingJobs.isEmpty else { return nil }
    if releasedJobs.count < jobs.count && !options.publishPassed {
      return "a customer did not succeed; nothing is \(what) (--publish-passed ships those that passed)"
    }
    return "no customer passed; nothing is \(what)"
  }

  /// The customers of the run whose version and source digest the state file does not record
  /// yet: the run writes them (`WriteStateStep`), so the commit at hand does not hold them.
  var unrecordedJobs: [CustomerJob] {
    jobs.filter { job in
      let recorded = state?.customers[job.id]
      return recorded?.version != job.version || recorded?.sourceDigest != job.digest.source
    }
  }
}
