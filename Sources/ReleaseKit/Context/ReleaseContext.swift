import Foundation
import ReleaseManifest
import ReleaseSystem

/// One artifact a run produced (after GoReleaser's artifact list): steps append, later steps
/// (verify, publish, report) read.
public struct Artifact: Equatable, Sendable {
  public enum Kind: String, Sendable { case sourceArchive, checksum, releaseManifest }
  public var kind: Kind
  public var customerID: String
  public var version: SemanticVersion
  /// Final location under `dist/`.
  public var path: URL
  public var sha256: String
  public var size: Int64
}

/// State shared by the steps of one run. Steps run in order; the per-customer phase runs
/// jobs in parallel and records results through the locked accessors.
public final class ReleaseContext: @unchecked Sendable {
  public let services: Services
  public let options: ReleaseOptions
  public let reporter: Reporter

  // Filled by the load and plan steps, read by everything after them.
  public var manifest: Manifest?
  public var modelStore: ModelStore?
  public var state: ReleaseState?
  public var inputs: ReleaseInputs?
  public var jobs: [CustomerJob] = []
  /// Publish destinations, resolved (credentials read) by the load step before any work.
  var publishTargets: [PublishTarget]?
  /// Held from the lock step to the end of the run.
  var locks: [FileLock] = []
  /// What a tagging run tags, from the check before building (`TagCheckStep`).
  var tagPlan: TagPlan?

  private let lock = NSLock()
  private var artifactList: [Artifact] = []

  public init(services: Services, options: ReleaseOptions, reporter: Reporter) {
    self.services = services
    self.options = options
    self.reporter = reporter
  }

  public var artifacts: [Artifact] {
    lock.lock()
    defer { lock.unlock() }
    return artifactList
  }

  public func add(_ artifact: Artifact) {
    lock.lock()
    artifactList.append(artifact)
    lock.unlock()
  }

  public var distDirectory: URL { services.resolve(options.distPath) }
  public var cacheDirectory: URL { services.resolve(options.cachePath) }
  public var logsDirectory: URL { distDirectory.appendingPathComponent("logs") }
}

extension ReleaseContext {
  /// The customers of the run whose version and source digest the state file does not record
  /// yet: the run writes them (`WriteStateStep`), so the commit at hand does not hold them.
  var unrecordedJobs: [CustomerJob] {
    jobs.filter { job in
      let recorded = state?.customers[job.id]
      return recorded?.version != job.version || recorded?.sourceDigest != job.digest.source
    }
  }
}
