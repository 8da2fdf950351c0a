import Foundation
import ReleaseSystem

/// Publishes every customer release of the run to each configured destination, in an order
/// that never lets a reader see a manifest pointing at a missing object: all artifacts first
/// (create-only, each read back and checked), then each customer's `index.json`, then the
/// top-level `index.json`. Runs only when every customer succeeded. A rerun after a failure
/// uploads only what is missing and converges to the same state.
struct PublishStep: Step {
  let name = "publish"
  let changesState = true

  enum PublishError: Error, CustomStringConvertible {
    case immutableObjectDiffers(location: String, published: String, local: String)
    case readBackMismatch(location: String, expected: String, found: String)
    case versionDiffers(location: String, version: String)

    var description: String {
      switch self {
      case .immutableObjectDiffers(let location, let published, let local):
        return "\(location): already published with different bytes (sha256 \(published.prefix(12))…, this build \(local.prefix(12))…); a published version never changes — bump the version instead"
      case .readBackMismatch(let location, let expected, let found):
        return "\(location): read back \(found), expected \(expected); the upload is corrupt"
      case .versionDiffers(let location, let version):
        return "\(location): version \(version) is already listed with another archive; a published version never changes"
      }
    }
  }

  func skipReason(_ context: ReleaseContext) -> String? {
    if context.options.publish.isEmpty { return "no destination (--publish)" }
    if context.jobs.contains(where: { $0.status != .succeeded && $0.status != .upToDate }) {
      return "a customer did not succeed; nothing is published"
    }
    return nil
  }

  func dryRunDescription(_ context: ReleaseContext) -> [String] {
    context.options.publish.flatMap { destination in
      context.jobs.map { "would publish \($0.id) \($0.version) to \(destination.description)" }
    }
  }

  func run(_ context: ReleaseContext) throws {
    let releases = try context.jobs.map { job -> PublishedRelease in
      let directory = job.releaseDirectory(in: context.distDirectory)
      return PublishedRelease(
        job: job, directory: directory,
        record: try ReleaseRecord.load(from: directory.appendingPathComponent(ReleaseRecord.fileName)))
    }
    for destination in context.options.publish {
      switch try destination.resolve(context.services) {
      case .objectStore(let store):
        try publish(releases, to: store, context)
      case .releasesRepositories(let locator):
        for release in releases {
          let outcome = try ReleasesRepository(locator: locator, services: context.services)
            .publish(release, cache: context.cacheDirectory)
          context.reporter.report(.info("\(release.job.id) \(release.job.version): \(outcome)"))
        }
      }
    }
  }

  private func publish(_ releases: [PublishedRelease], to store: ObjectStore, _ context: ReleaseContext) throws {
    var uploaded = 0
    var present = 0
    for release in releases {
      for file in release.files {
        let key = release.key(file)
        let location = "\(store.displayName)/\(key)"
        let local = try SHA256Digest.hexAndSize(ofFileAt: release.directory.appendingPathComponent(file))
        let created = try store.createOnly(
          key, from: release.directory.appendingPathComponent(file), contentType: Self.contentType(file))
        guard let remote = try store.digest(of: key) else {
          throw PublishError.readBackMismatch(location: location, expected: "an object", found: "nothing")
        }
        if remote.sha256 != local.sha256 || remote.size != local.size {
          if created {
            throw PublishError.readBackMismatch(
              location: location, expected: "sha256 \(local.sha256) (\(local.size) bytes)",
              found: "sha256 \(remote.sha256) (\(remote.size) bytes)")
          }
          throw PublishError.immutableObjectDiffers(location: location, published: remote.sha256, local: local.sha256)
        }
        if created { uploaded += 1 } else { present += 1 }
      }
    }
    for release in releases { try publishCustomerIndex(release, to: store) }
    try publishTopLevelIndex(releases, to: store)
    context.reporter.report(
      .info("published to \(store.displayName): \(uploaded) new objects, \(present) already in place, \(releases.count) customer indexes"))
  }

  private func publishCustomerIndex(_ release: PublishedRelease, to store: ObjectStore) throws {
    let key = "customers/\(release.job.id)/index.json"
    let record = release.record
    let entry = CustomerIndex.Version(
      version: record.version, sdkVersion: record.sdkVersion, minimumSDKVersion: record.sdkVersion,
      url: store.publicURL(for: release.key(record.artifact.file)), sha256: record.artifact.sha256,
      size: record.artifact.size,
      models: record.models.map { .init(flowId: $0.flowId, flowName: $0.flowName, modelVersion: $0.modelVersion, sha256: $0.sha256) })
    var index =
      try store.read(key).flatMap { try? JSONDecoder().decode(CustomerIndex.self, from: $0) }
      ?? CustomerIndex(
        id: record.customer.id, name: record.customer.name, packageName: record.packageName, latest: record.version,
        versions: [])
    if let existing = index.versions.first(where: { $0.version == entry.version }) {
      guard existing.sha256 == entry.sha256 else {
        throw PublishError.versionDiffers(location: "\(store.displayName)/\(key)", version: entry.version)
      }
    } else {
      index.versions.append(entry)
    }
    index.versions.sort { (SemanticVersion($0.version) ?? .init(0, 0, 0)) < (SemanticVersion($1.version) ?? .init(0, 0, 0)) }
    index.latest = index.versions.last?.version ?? entry.version
    index.name = record.customer.name
    try store.replace(key, with: try PublishedJSON.encode(index), contentType: "application/json")
  }

  private func publishTopLevelIndex(_ releases: [PublishedRelease], to store: ObjectStore) throws {
    var index =
      try store.read("index.json").flatMap { try? JSONDecoder().decode(TopLevelIndex.self, from: $0) }
      ?? TopLevelIndex(customers: [])
    for release in releases {
      let id = release.job.id
      let customerIndex = try store.read("customers/\(id)/index.json")
        .flatMap { try? JSONDecoder().decode(CustomerIndex.self, from: $0) }
      let entry = TopLevelIndex.Entry(
        id: id, latest: customerIndex?.latest ?? release.record.version, index: "customers/\(id)/index.json")
      index.customers.removeAll { $0.id == id }
      index.customers.append(entry)
    }
    index.customers.sort { $0.id < $1.id }
    try store.replace("index.json", with: try PublishedJSON.encode(index), contentType: "application/json")
  }

  static func contentType(_ file: String) -> String {
    if file.hasSuffix(".zip") { return "application/zip" }
    if file.hasSuffix(".json") { return "application/json" }
    return "text/plain; charset=utf-8"
  }
}

/// One customer release as found in `dist/`, ready to publish.
struct PublishedRelease {
  let job: CustomerJob
  let directory: URL
  let record: ReleaseRecord

  /// The immutable files of a release, in upload order (the archive first). release.json
  /// stays local: it records the toolchain, which may differ on a rebuild of the same bytes;
  /// the customer index carries what clients need.
  var files: [String] { [record.artifact.file, record.artifact.file + ".sha256"] }

  func key(_ file: String) -> String { "artifacts/\(job.id)/\(job.version)/\(file)" }
}
