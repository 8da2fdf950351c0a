import Foundation
import ReleaseManifest
import ReleaseSystem

/// Publishes each customer's over-the-air manifest (`ota/<id>/models.json`, see `OTAManifest`)
/// and the model files it names, after the packages:
/// 1. every offered model as `ota/models/<sha256>.mlmodel`, create-only and read back (the same
///    bytes already there count as done; others are an error), before any manifest names it;
/// 2. per customer whose offer changed: the next free revision above the pointer's as
///    `ota/<id>/models-<n>.json` (create-only, immutable), then the pointer `models.json`,
///    replaced only if it still holds the revision that was read (If-Match with its ETag on S3,
///    a lock in a directory). A publisher that lost the race fails clearly instead of
///    overwriting the other's change: no revision is ever lost.
///
/// A revision file above the pointer's that holds other contents was never named by the
/// pointer (it only ever moves up from what it held): a publish died or lost the race before
/// it could name it. It stays as it is, and the next number is taken, so an interrupted
/// publish never blocks the next one.
struct PublishOTAStep: Step {
  let name = "publish over the air"
  let changesState = true

  enum OTAPublishError: Error, CustomStringConvertible {
    /// The pointer no longer holds what this publish read: another publisher's revision is
    /// there now (`now`; nil when it cannot be read as one).
    case changedMeanwhile(location: String, read: Int, now: Int?)
    case unreadablePointer(location: String, reason: String)
    /// `ota/models/<sha256>.mlmodel` holding bytes with another digest.
    case modelDiffers(location: String, sha256: String, size: Int64)

    var description: String {
      switch self {
      case .changedMeanwhile(let location, _, _), .unreadablePointer(let location, _),
        .modelDiffers(let location, _, _):
        return "\(location): \(message)"
      }
    }

    /// What is wrong with the object at `location`.
    var message: String {
      switch self {
      case .changedMeanwhile(_, let read, let now):
        let found = now.map { "it now holds revision \($0)" } ?? "it no longer holds a readable manifest"
        return
          "changed while this publish held revision \(read): \(found) (another rollout was published); nothing was overwritten: rerun 'release ota publish' to publish on top of it"
      case .unreadablePointer(_, let reason):
        return
          "not an OTA manifest written by release for this customer (\(reason)); fix or remove it, then publish again"
      case .modelDiffers(_, let sha256, let size):
        return
          "holds bytes with sha256 \(sha256) (\(size) bytes), not the model its name says; a published model is never overwritten: find out what wrote it"
      }
    }
  }

  struct Input: Sendable {
    /// What the check before building found (`CheckOTAStep`).
    var ota: OTAPlan
    var inputs: ReleaseInputs
    /// The customers of a release run, of which those that ship get a manifest; nil for
    /// `release ota publish`, where every customer of the run does.
    var results: RunResults?
  }

  /// Why `--publish` publishes nothing over the air; the check before building was skipped
  /// for the first reason.
  static let noDestination = "no destination (--publish)"

  func skipReason(_ input: Input, _ context: ReleaseContext) -> String? {
    if context.options.publish.isEmpty { return Self.noDestination }
    if input.ota.stores.isEmpty { return "no object store for over-the-air manifests" }
    guard let results = input.results, !results.customers.isEmpty else { return nil }
    return results.nothingShipsReason("published over the air")
  }

  func dryRunDescription(_ input: Input, _ context: ReleaseContext) -> [String] {
    let ota = input.ota
    return ota.stores.flatMap { store in
      customers(input).map { "would publish \(OTAManifest.pointerKey($0.id)) to \(store.displayName)" }
        + ota.offered.keys.sorted().map { "would upload \($0) as ota/models/… to \(store.displayName)" }
    }
  }

  func run(_ input: Input, _ context: ReleaseContext) throws {
    let ota = input.ota
    let catalog = input.inputs.signals
    let models = input.inputs.modelStore
    let customers = customers(input)
    for store in ota.stores {
      // Every model's key is checked before anything is written: one holding other bytes
      // fails the publish with the store as it was.
      var missing: [RolloutChange.OfferedModel] = []
      for model in ota.offered.values.sorted(by: { $0.reference < $1.reference }) {
        let key = OTAManifest.modelKey(sha256: model.sha256)
        if let remote = try store.digest(of: key) {
          try check(remote, holds: model, at: "\(store.displayName)/\(key)")
        } else {
          missing.append(model)
        }
      }
      var uploaded = 0
      for model in missing {
        if try upload(model, to: store, from: models) { uploaded += 1 }
      }
      var changed: [String] = []
      for customer in customers {
        if let revision = try publishManifest(
          for: customer, ota: ota, catalog: catalog, to: store)
        {
          changed.append("\(customer.id) r\(revision)")
        }
      }
      context.reporter.report(
        .info(
          "over the air to \(store.displayName): \(uploaded) new models, "
            + (changed.isEmpty
              ? "every manifest unchanged" : "new revisions: \(changed.joined(separator: ", "))")))
    }
  }

  /// Every customer of `release ota publish`; those that ship in a release run.
  private func customers(_ input: Input) -> [Customer] {
    guard let results = input.results, !results.customers.isEmpty else { return input.ota.customers }
    return results.shipping.map(\.job.customer)
  }

  /// Uploads a model under its digest, create-only, and reads it back; false when another
  /// publisher created it first (with the same bytes).
  private func upload(_ model: RolloutChange.OfferedModel, to store: ObjectStore, from models: ModelStore)
    throws -> Bool
  {
    let key = OTAManifest.modelKey(sha256: model.sha256)
    let (created, remote) = try store.createOnlyReadBack(
      key, from: try models.localFile(for: model.reference), contentType: "application/octet-stream",
      sha256: model.sha256, size: model.size)
    try check(remote, holds: model, at: "\(store.displayName)/\(key)")
    return created
  }

  /// A model's key names its SHA-256: other bytes under it were not written by this tool.
  private func check(
    _ remote: (sha256: String, size: Int64), holds model: RolloutChange.OfferedModel, at location: String
  )
    throws
  {
    guard remote.sha256 == model.sha256, remote.size == model.size else {
      throw OTAPublishError.modelDiffers(location: location, sha256: remote.sha256, size: remote.size)
    }
  }

  /// Publishes the customer's manifest when its offer changed; returns the new revision, or nil
  /// when the published one already says the same.
  private func publishManifest(
    for customer: Customer, ota: OTAPlan, catalog: SignalCatalog, to store: ObjectStore
  ) throws -> Int? {
    let pointer = OTAManifest.pointerKey(customer.id)
    let location = "\(store.displayName)/\(pointer)"
    let current = try store.read(pointer)
    FaultPoint.pause("ota.pointer-read")
    let published = try current.map {
      try OTAManifest.published($0.data, customer: customer.id, location: location)
    }
    let revision = published?.revision ?? 0
    let desired = OTAManifest.make(
      customer: customer, rollouts: ota.rollouts, offered: ota.offered, catalog: catalog, revision: revision,
      modelURL: store.publicURL(for:))
    if published == desired { return nil }
    var next = revision + 1
    var bytes = try desired.at(revision: next).encoded()
    // Ends: each pass either publishes the revision file or steps over one that exists, and
    // a store holds finitely many.
    while !(try createRevision(bytes, key: OTAManifest.revisionKey(customer.id, next), in: store)) {
      // Another publisher's, named by the pointer now, or an orphan (see above) when the
      // pointer still holds what was read.
      let now = try store.read(pointer)
      guard now?.tag == current?.tag else {
        throw OTAPublishError.changedMeanwhile(
          location: location, read: revision, now: revisionNumber(now, customer.id, location))
      }
      next += 1
      bytes = try desired.at(revision: next).encoded()
    }
    FaultPoint.reach("ota.revision-created")
    FaultPoint.pause("ota.revision-created")
    guard
      try store.replace(pointer, with: bytes, contentType: "application/json", ifUnchanged: current?.tag)
    else {
      // Read again, to say whose change is there, rather than overwrite it.
      throw OTAPublishError.changedMeanwhile(
        location: location, read: revision,
        now: revisionNumber(try? store.read(pointer), customer.id, location))
    }
    return next
  }

  /// Creates the immutable revision file; false when the key holds other contents. The same
  /// bytes there (a rerun of a publish that died before the pointer) count as created.
  private func createRevision(_ bytes: Data, key: String, in store: ObjectStore) throws -> Bool {
    let scratch = try TemporaryFiles.shared.makeDirectory(prefix: "release-ota")
    defer { try? FileManager.default.removeItem(at: scratch) }
    let file = scratch.appendingPathComponent("models.json")
    try AtomicFile.write(bytes, to: file)
    if try store.createOnly(key, from: file, contentType: "application/json") { return true }
    return try store.digest(of: key)?.sha256 == SHA256Digest.hex(of: bytes)
  }

  /// The revision a pointer read again holds, for the message; nil when it is gone or unreadable.
  private func revisionNumber(_ object: StoredObject?, _ customer: String, _ location: String) -> Int? {
    object.flatMap { try? OTAManifest.published($0.data, customer: customer, location: location).revision }
  }
}
