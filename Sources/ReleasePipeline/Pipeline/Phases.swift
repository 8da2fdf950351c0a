import Foundation
import ReleaseAlignment
import ReleaseCore
import ReleaseGeneration
import ReleaseManifest
import ReleaseModels
import ReleaseSettings
import ReleaseSystem

// The values a run passes from phase to phase (after SwiftPM's build plan): each step takes
// the value of the phase before and returns the next, so what runs after what is in the types.
//
//   LoadInputsStep     ()                -> LoadedInputs
//   AlignModelsStep    LoadedInputs      -> ReleaseInputs
//   PlanStep           ReleaseInputs     -> ReleasePlan     (a result per customer, to build or not)
//   BuildCustomersStep ReleasePlan, RunLock -> [CustomerResult]
//   RunResults(...)    the results and the customers that ship
//   the tail           RunResults        -> checked, published, tagged, recorded (ReleaseTail.swift)

/// Everything the run reads, read once and validated before any work (`LoadInputsStep`).
package struct LoadedInputs: Sendable {
  package var state: ReleaseState
  /// The manifest, narrowed to the customers of the run.
  package var manifest: Manifest
  /// Every customer of the manifest, of the run or not: no package may name any other.
  package var allCustomers: [Customer]
  package var modelStore: ModelStore
  /// Publish destinations, resolved (credentials read) before any work.
  var publishTargets: [PublishTarget]
  package var sdkVersion: SemanticVersion
  /// The template, read once: every package of the run is generated and checked from it.
  package var template: PackageTemplate
  /// Every model the selected customers use, read and hashed once.
  package var models: [ModelReference: ModelFacts]
  /// Models a URL store lists but that could not be downloaded (after retries), with why:
  /// the customers using them fail, the others go on.
  var unavailableModels: [ModelReference: String]
  /// The SDK's CHANGELOG.md sections by version, for release notes.
  var sdkChangelog: [String: [String]]
}

/// The run's inputs once every model is checked against the SDK being released
/// (`AlignModelsStep`): what every later phase reads. The loaded inputs read through
/// (`inputs.manifest`), every model now with its minimum SDK version.
@dynamicMemberLookup
package struct ReleaseInputs: Sendable {
  var loaded: LoadedInputs
  package subscript<Field>(dynamicMember field: WritableKeyPath<LoadedInputs, Field>) -> Field {
    get { loaded[keyPath: field] }
    set { loaded[keyPath: field] = newValue }
  }
  var templateDirectory: URL { loaded.template.directory }
  /// The whole template's digest (the SDK tag's marker); a customer's release is identified by
  /// the digest of its own package's files (`PackageTemplate.digest(for:)`).
  package var templateDigest: String { loaded.template.digest }
  /// The template's signal catalog, read and checked.
  var signals: SignalCatalog
  /// Every model of the store by digest, scanned when first asked for.
  package let storeModels: StoreScan

  package init(loaded: LoadedInputs, signals: SignalCatalog, storeModels: StoreScan) {
    self.loaded = loaded
    self.signals = signals
    self.storeModels = storeModels
  }

  /// The customers of `jobs` whose version and source digest the state file does not record
  /// yet: the run writes them (`WriteStateStep`), so the commit at hand does not hold them.
  package func unrecorded(_ jobs: [CustomerJob]) -> [CustomerJob] {
    jobs.filter { job in
      let recorded = loaded.state.customers[job.id]
      return recorded?.version != job.version || recorded?.sourceDigest != job.digest.source
    }
  }
}

/// Every model of the store by digest, scanned once per run however many steps ask (the plan
/// digest of a shard or merge, the checks of a merge's shards, the content checks): the run's
/// own models by the digests the load step took, the others through the digest cache (see
/// `ModelDigestCache` for why trusting it is safe).
package final class StoreScan: Sendable {
  private let store: ModelStore
  private let known: [ModelReference: String]
  private let cacheDirectory: URL
  private let scanned = Locked<StoreModels?>(nil)

  package init(_ store: ModelStore, known: [ModelReference: String], cacheDirectory: URL) {
    self.store = store
    self.known = known
    self.cacheDirectory = cacheDirectory
  }

  package func models() throws -> StoreModels {
    if let scanned = scanned.value { return scanned }
    let digests = ModelDigestCache(directory: cacheDirectory)
    let models = try StoreModels(store, known: known, digests: digests)
    // A cache that cannot be written only costs the next run the reads.
    try? digests.save()
    scanned.set(models)
    return models
  }
}

/// What the plan decided (`PlanStep`): each customer's job and where it starts, pending (to
/// build), up to date, or failed before building (a model could not be fetched).
package struct ReleasePlan: Sendable {
  package let inputs: ReleaseInputs
  /// `swift --version` (all of it), part of every build digest.
  package let toolchain: String
  package var customers: [CustomerResult]

  package var jobs: [CustomerJob] { customers.map(\.job) }
}

/// The customers of a run once built (or copied from shards): which were released and which
/// ship.
package struct RunResults: Sendable {
  package let inputs: ReleaseInputs
  package let customers: [CustomerResult]
  /// Customers whose release is in dist/ at the end of the run (built or up to date); under
  /// `--dry-run`, those that would be built count as built.
  let released: [CustomerResult]
  /// The customers this run checks, lists, publishes, tags and records: all of them when every
  /// customer succeeded; with some failed, those that passed under `--publish-passed`, else
  /// none (all or nothing).
  package let shipping: [CustomerResult]
  private let publishPassed: Bool

  package init(inputs: ReleaseInputs, customers: [CustomerResult], settings: RunSettings) {
    self.inputs = inputs
    self.customers = customers
    (released, shipping) = Self.shipping(customers, settings)
    publishPassed = settings.publishing.publishPassed
  }

  package static func shipping(_ customers: [CustomerResult], _ settings: RunSettings)
    -> (released: [CustomerResult], shipping: [CustomerResult])
  {
    let released = customers.filter {
      $0.status == .succeeded || $0.status == .upToDate || (settings.dryRun && $0.status == .pending)
    }
    return (released, released.count == customers.count || settings.publishing.publishPassed ? released : [])
  }

  /// Why a step that works on `shipping` has nothing to do; nil when it has.
  package func nothingShipsReason(_ what: String) -> String? {
    guard shipping.isEmpty else { return nil }
    if released.count < customers.count && !publishPassed {
      return "a customer did not succeed; nothing is \(what) (--publish-passed ships those that passed)"
    }
    return "no customer passed; nothing is \(what)"
  }
}

/// The run's locks (`LockStep`), held as long as this value lives.
package struct RunLock: Sendable {
  let locks: [FileLock]

  package init(locks: [FileLock]) { self.locks = locks }
}

/// What a run's summary reports, kept by `ReleaseRun.run` as the phases go: the
/// customers' latest results, and the run's lock, held to the end of the run (nil before the
/// lock step ran: nothing was done, there is nothing to summarize).
package struct RunRecord: Sendable {
  package var lock: RunLock?
  package var customers: [CustomerResult] = []

  package init() {}
}
