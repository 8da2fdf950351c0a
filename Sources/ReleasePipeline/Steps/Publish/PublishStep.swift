import Foundation
import ReleaseCore
import ReleasePublishing
import ReleaseSettings
import ReleaseSigning
import ReleaseSystem

/// Publishes every customer release of the run to each configured destination, in an order
/// that never lets a reader see a manifest pointing at a missing object: all artifacts first
/// (create-only, each read back and checked), then each customer's `index.json`, then the
/// top-level `index.json`. Runs only when every customer succeeded. A rerun after a failure
/// uploads only what is missing and converges to the same state.
///
/// With trusted keys configured (`signing.trustedKeys`) every zip published to an object store
/// gets `<zip>.sig` (`ReleaseSignature`), made here with the run's first private key and
/// written beside the zip in `dist/`, and each customer index is a DSSE envelope
/// (`CustomerIndex.payloadType`). A run with trusted keys and no private key is refused before
/// anything is built (`ReleaseSignature.checkCanSign`).
///
/// It publishes only what the content checks passed (`CheckedRelease`), and returns what
/// shipped (`ShippedRelease`), also when it publishes nowhere.
package struct PublishStep: PhaseStep {
  package let name = "publish"
  package let changesState = true

  package init() {}

  package func skipReason(_ release: CheckedRelease, _ context: ReleaseContext) -> String? {
    if context.settings.publishing.destinations.isEmpty { return "no destination (--publish)" }
    return release.results.nothingShipsReason("published")
  }

  package func dryRunDescription(_ release: CheckedRelease, _ context: ReleaseContext) -> [String] {
    context.settings.publishing.destinations.flatMap { destination in
      release.results.shipping.map {
        "would publish \($0.id) \($0.job.version) to \(destination.description)"
      }
    }
  }

  /// Skipped (no destination, nothing ships) or previewed: what the checks passed ships in
  /// dist/ only.
  package func notRun(_ release: CheckedRelease, _ context: ReleaseContext) -> ShippedRelease {
    ShippedRelease(published: release)
  }

  /// Every destination of the run, resolved (credentials read, endpoints checked). The load
  /// step does this before anything is built, so a missing credential ends the run at once.
  package func run(_ checked: CheckedRelease, _ context: ReleaseContext) throws -> ShippedRelease {
    let results = checked.results
    let signing = context.settings.signing
    try ReleaseSignature.checkCanSign(context.settings)
    // Zips go only to object stores; a releases repository holds the package's files.
    let toObjectStores = results.inputs.publishTargets.contains {
      if case .objectStore = $0.resolved { return true }
      return false
    }
    let releases = try checked.releases.map(\.job).map { job -> PublishedRelease in
      let directory = job.releaseDirectory(in: context.distDirectory)
      return PublishedRelease(
        job: job, directory: directory,
        record: try ReleaseRecord.load(from: directory.appendingPathComponent(ReleaseRecord.fileName)),
        signed: signing.hasTrustedKeys && toObjectStores)
    }
    // Signed once, before any upload: the same key gives the same bytes (Ed25519 is
    // deterministic), so a rerun's signature matches what an earlier run published.
    for release in releases where release.signed {
      let zip = release.directory.appendingPathComponent(release.record.artifact.file)
      try AtomicFile.write(
        try ReleaseSignature.sign(zipAt: zip, signing),
        to: release.directory.appendingPathComponent(release.record.artifact.file + ReleaseSignature.suffix))
    }
    for target in results.inputs.publishTargets {
      switch target.resolved {
      case .objectStore(let store):
        try publish(releases, to: store, signing: signing, context)
      case .releasesRepositories(let locator):
        for release in releases {
          let outcome = try ReleasesRepository(
            locator: locator, services: context.services,
            commitTime: context.settings.build.archiveModificationTime
          )
          .publish(release, cache: context.cacheDirectory)
          context.reporter.report(.info("\(release.job.id) \(release.job.version): \(outcome)"))
        }
      }
    }
    try writeReceipts(releases, results)
    return ShippedRelease(published: checked)
  }

  /// Once every destination has a signed release: its receipt in dist/ (`PublishReceipt`).
  private func writeReceipts(_ releases: [PublishedRelease], _ results: RunResults) throws {
    let stores = results.inputs.publishTargets.compactMap { target -> String? in
      if case .objectStore(let store) = target.resolved { return store.displayName }
      return nil
    }
    for release in releases where release.signed {
      try PublishReceipt(
        signature: release.record.artifact.file + ReleaseSignature.suffix, destinations: stores
      ).write(to: release.directory)
    }
  }

  /// One file of a release to publish, with the digest of its local bytes.
  private struct Upload {
    let release: PublishedRelease
    let file: String
    let sha256: String
    let size: Int64
    var key: String { release.key(file) }
    var localFile: URL { release.directory.appendingPathComponent(file) }
  }

  /// 1. Check everything already in the store against this build — before writing anything,
  ///    so a conflict (same version, other bytes) fails with the store unchanged.
  /// 2. Upload what is missing, create-only, each read back and compared (size and SHA-256).
  /// 3. Each customer's index, then 4. the top-level index: a reader following an index
  ///    only ever finds objects that are complete and checked.
  private func publish(
    _ releases: [PublishedRelease], to store: ObjectStore, signing: SigningSetup, _ context: ReleaseContext
  )
    throws
  {
    var missing: [Upload] = []
    var present = 0
    for release in releases {
      for file in release.files {
        let (sha256, size) = try SHA256Digest.hexAndSize(
          ofFileAt: release.directory.appendingPathComponent(file))
        let upload = Upload(release: release, file: file, sha256: sha256, size: size)
        // One byte more than the local copy is enough to tell it differs.
        if let remote = try store.digest(of: upload.key, maximumSize: size + 1) {
          guard remote.sha256 == sha256, remote.size == size else {
            if try acceptsPublishedSignature(upload, in: store, signing) {
              present += 1
              continue
            }
            throw PublishError.immutableObjectDiffers(
              location: location(store, upload.key), published: remote.sha256, local: sha256)
          }
          present += 1
        } else {
          missing.append(upload)
        }
      }
      // Also when the archive itself is gone: an index listing this version with another
      // archive must not be "repaired" with this one.
      _ = try customerIndex(for: release, in: store, signing)?.index
    }

    var uploaded = 0
    for upload in missing {
      let (created, remote) = try store.createOnlyReadBack(
        upload.key, from: upload.localFile, contentType: Self.contentType(upload.file), sha256: upload.sha256,
        size: upload.size)
      // Another publisher's object under a release's key must be byte-identical (a signature:
      // made by a trusted key for these bytes).
      if remote.sha256 != upload.sha256 || remote.size != upload.size,
        try !acceptsPublishedSignature(upload, in: store, signing)
      {
        throw PublishError.immutableObjectDiffers(
          location: location(store, upload.key), published: remote.sha256, local: upload.sha256)
      }
      if created { uploaded += 1 } else { present += 1 }
    }

    for release in releases { try publishCustomerIndex(release, to: store, signing) }
    try publishTopLevelIndex(releases, to: store, signing)
    context.reporter.report(
      .info(
        "published to \(store.displayName): \(uploaded) new objects, \(present) already in place, "
          + "\(releases.count) customer indexes and index.json"))
  }

  private func location(_ store: ObjectStore, _ key: String) -> String { "\(store.displayName)/\(key)" }

  /// A published signature other than this run's stays as it is when a trusted key made it for
  /// these very bytes (an earlier run signed with a key since rotated out of the signers).
  private func acceptsPublishedSignature(_ upload: Upload, in store: ObjectStore, _ signing: SigningSetup)
    throws -> Bool
  {
    guard upload.file.hasSuffix(ReleaseSignature.suffix), let published = try store.read(upload.key) else {
      return false
    }
    let zip = upload.release.directory.appendingPathComponent(upload.release.record.artifact.file)
    guard
      case .success = ReleaseSignature.verify(zipAt: zip, signature: published.data, trusted: signing.trusted)
    else { return false }
    return true
  }

  /// The customer's published index and its tag, nil when there is none yet. An index that
  /// lists this release's version with another archive is an error: published versions never
  /// change.
  private func customerIndex(for release: PublishedRelease, in store: ObjectStore, _ signing: SigningSetup)
    throws
    -> (index: CustomerIndex, tag: String)?
  {
    let key = ReleaseLayout.customerIndexKey(release.job.id)
    guard let object = try store.read(key) else { return nil }
    let index = try CustomerIndex.decode(
      object.data, trusted: signing.trusted, location: location(store, key),
      adoptUnsigned: signing.adoptUnsignedIndexes)
    if let existing = index.versions.first(where: { $0.version == release.record.version }),
      existing.sha256 != release.record.artifact.sha256
    {
      throw PublishError.versionDiffers(location: location(store, key), version: release.record.version)
    }
    return (index, object.tag)
  }

  /// Read, merge, replace only if unchanged since read; on a lost race, again from the read.
  /// Two publishers of different customers (or versions) both end up in the index; neither
  /// overwrites the other.
  static let mergeAttempts = 8

  private func publishCustomerIndex(
    _ release: PublishedRelease, to store: ObjectStore, _ signing: SigningSetup
  ) throws {
    let key = ReleaseLayout.customerIndexKey(release.job.id)
    let record = release.record
    let entry = CustomerIndex.Version(
      version: record.version, sdkVersion: record.sdkVersion, minimumSDKVersion: record.sdkVersion,
      url: store.publicURL(for: release.key(record.artifact.file)), sha256: record.artifact.sha256,
      size: record.artifact.size,
      models: record.models.map {
        .init(
          flowId: $0.flowId, flowName: $0.flowName, modelVersion: $0.modelVersion, sha256: $0.sha256,
          inputs: $0.inputNames, minimumSDKVersion: $0.minimumSDKVersion)
      },
      // The job's notes, made from the state file by this run, not release.json's copy of them.
      releaseNotes: release.job.releaseNotes.note)
    for _ in 0..<Self.mergeAttempts {
      let current = try customerIndex(for: release, in: store, signing)
      var index =
        current?.index
        ?? CustomerIndex(
          id: record.customer.id, name: record.customer.name, packageName: record.packageName,
          latest: record.version, versions: [])
      // A version already listed keeps its entry: it was published once and never changes.
      if !index.versions.contains(where: { $0.version == entry.version }) { index.versions.append(entry) }
      index.versions.sort {
        (SemanticVersion($0.version) ?? .init(0, 0, 0)) < (SemanticVersion($1.version) ?? .init(0, 0, 0))
      }
      index.latest = index.versions.last?.version ?? entry.version
      index.name = record.customer.name
      index.packageName = record.packageName
      if try store.replace(
        key, with: try index.encoded(signing), contentType: "application/json", ifUnchanged: current?.tag
      ) {
        return
      }
    }
    throw PublishError.contended(location: location(store, key), attempts: Self.mergeAttempts)
  }

  /// Each attempt reads index.json first, then the customer indexes: a publisher of the same
  /// customer that wrote a newer version after this one read its customer index has changed
  /// index.json too, or will write it after this one (its replace then fails and it reads again),
  /// so `latest` never goes back to what this publisher saw. And it is never lowered from what
  /// index.json already says: versions are only ever added.
  private func publishTopLevelIndex(
    _ releases: [PublishedRelease], to store: ObjectStore, _ signing: SigningSetup
  ) throws {
    for _ in 0..<Self.mergeAttempts {
      let current = try store.read("index.json")
      var index = TopLevelIndex(customers: [])
      if let current {
        do { index = try JSONDecoder().decode(TopLevelIndex.self, from: current.data) } catch {
          throw PublishError.unreadableIndex(location: location(store, "index.json"), reason: "\(error)")
        }
      }
      for release in releases {
        let id = release.job.id
        let key = ReleaseLayout.customerIndexKey(id)
        guard let object = try store.read(key),
          let customerIndex = try? CustomerIndex.decode(
            object.data, trusted: signing.trusted, location: location(store, key))
        else {
          throw PublishError.readBackMismatch(
            location: location(store, key), expected: "the index just written", found: "none")
        }
        let listed = index.customers.first { $0.id == id }?.latest
        let latest = [customerIndex.latest, listed].compactMap { $0 }.max {
          (SemanticVersion($0) ?? .init(0, 0, 0)) < (SemanticVersion($1) ?? .init(0, 0, 0))
        }
        index.customers.removeAll { $0.id == id }
        index.customers.append(
          TopLevelIndex.Entry(id: id, latest: latest ?? customerIndex.latest, index: key))
      }
      FaultPoint.pause("publish.customer-indexes-read")
      index.customers.sort { $0.id < $1.id }
      if try store.replace(
        "index.json", with: try StableJSON.encode(index), contentType: "application/json",
        ifUnchanged: current?.tag)
      {
        return
      }
    }
    throw PublishError.contended(location: location(store, "index.json"), attempts: Self.mergeAttempts)
  }

  static func contentType(_ file: String) -> String {
    if file.hasSuffix(".zip") { return "application/zip" }
    if file.hasSuffix(".json") { return "application/json" }
    return "text/plain; charset=utf-8"
  }
}

/// A destination of the run and what it resolved to.
struct PublishTarget {
  let destination: PublishDestination
  let resolved: PublishDestination.Resolved

  /// Each destination resolved: its store opened, its credentials read.
  static func resolving(_ destinations: [PublishDestination], _ services: Services) throws -> [PublishTarget]
  {
    try destinations.map { PublishTarget(destination: $0, resolved: try $0.resolve(services)) }
  }
}

/// One customer release as found in `dist/`, ready to publish.
struct PublishedRelease {
  let job: CustomerJob
  let directory: URL
  let record: ReleaseRecord
  /// Whether the archive's signature (`<zip>.sig`) is published with it.
  var signed = false

  /// The immutable files of a release, in upload order (the archive first). release.json
  /// stays local: it records the toolchain, which may differ on a rebuild of the same bytes;
  /// the customer index carries what clients need.
  var files: [String] {
    [record.artifact.file, record.artifact.file + ".sha256"]
      + (signed ? [record.artifact.file + ReleaseSignature.suffix] : [])
  }

  func key(_ file: String) -> String {
    ReleaseLayout.artifactKey(customer: job.id, version: job.version, file: file)
  }
}
