import Foundation
import ReleaseManifest
import ReleaseSystem

/// Publishes each customer's over-the-air manifest (`ota/<id>/models.json`, see `OTAManifest`)
/// and the model files it names, after the packages:
/// 1. every offered model as `ota/models/<sha256>.mlmodel`, create-only and read back (the same
///    bytes already there count as done; others are an error), before any manifest names it;
/// 2. per customer whose offer changed: the next revision as `ota/<id>/models-<n>.json`
///    (create-only, immutable), then the pointer `models.json`, replaced only if it still holds
///    the revision that was read (If-Match with its ETag on S3, a lock in a directory). A
///    publisher that lost the race fails clearly instead of overwriting the other's change: no
///    revision is ever lost.
struct PublishOTAStep: Step {
  let name = "publish over the air"
  let changesState = true

  enum OTAPublishError: Error, CustomStringConvertible {
    case changedMeanwhile(location: String, revision: Int)
    case revisionTaken(location: String)
    case unreadablePointer(location: String, reason: String)

    var description: String {
      switch self {
      case .changedMeanwhile(let location, let revision):
        return
          "\(location): changed while this publish read revision \(revision) (another rollout was published); nothing was overwritten: rerun 'release ota publish' to publish on top of it"
      case .revisionTaken(let location):
        return
          "\(location): already published with other contents (another publisher took this revision); nothing was overwritten: rerun to publish the next one"
      case .unreadablePointer(let location, let reason):
        return
          "\(location): not an OTA manifest written by release (\(reason)); fix or remove it, nothing was published"
      }
    }
  }

  func skipReason(_ context: ReleaseContext) -> String? {
    if context.options.publish.isEmpty { return "no destination (--publish)" }
    if context.ota?.stores.isEmpty != false { return "no object store for over-the-air manifests" }
    return context.jobs.isEmpty ? nil : context.nothingShipsReason("published over the air")
  }

  func dryRunDescription(_ context: ReleaseContext) -> [String] {
    guard let ota = context.ota else { return [] }
    return ota.stores.flatMap { store in
      customers(context, ota).map { "would publish \(OTAManifest.pointerKey($0.id)) to \(store.displayName)" }
        + ota.offered.keys.sorted().map { "would upload \($0) as ota/models/… to \(store.displayName)" }
    }
  }

  func run(_ context: ReleaseContext) throws {
    guard let ota = context.ota, let inputs = context.inputs, let catalog = inputs.signals,
      let models = context.modelStore
    else {
      preconditionFailure("publish over the air runs after check rollouts")
    }
    let customers = customers(context, ota)
    for store in ota.stores {
      var uploaded = 0
      for model in ota.offered.values.sorted(by: { $0.reference < $1.reference }) {
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
  private func customers(_ context: ReleaseContext, _ ota: OTAPlan) -> [Customer] {
    context.jobs.isEmpty ? ota.customers : context.shippingJobs.map(\.customer)
  }

  /// Uploads a model under its digest, read back; false when it was already there (with the
  /// same bytes).
  private func upload(_ model: RolloutChange.OfferedModel, to store: ObjectStore, from models: ModelStore)
    throws
    -> Bool
  {
    let key = OTAManifest.modelKey(sha256: model.sha256)
    let location = "\(store.displayName)/\(key)"
    if let remote = try store.digest(of: key) {
      guard remote.sha256 == model.sha256, remote.size == model.size else {
        throw PublishStep.PublishError.immutableObjectDiffers(
          location: location, published: remote.sha256, local: model.sha256)
      }
      return false
    }
    let created = try store.createOnly(
      key, from: try models.localFile(for: model.reference), contentType: "application/octet-stream")
    guard let remote = try store.digest(of: key), remote.sha256 == model.sha256, remote.size == model.size
    else {
      throw PublishStep.PublishError.readBackMismatch(
        location: location, expected: "sha256 \(model.sha256) (\(model.size) bytes)", found: "other bytes")
    }
    return created
  }

  /// Publishes the customer's manifest when its offer changed; returns the new revision, or nil
  /// when the published one already says the same.
  private func publishManifest(
    for customer: Customer, ota: OTAPlan, catalog: SignalCatalog, to store: ObjectStore
  ) throws -> Int? {
    let pointer = OTAManifest.pointerKey(customer.id)
    let current = try store.read(pointer)
    FaultPoint.pause("ota.pointer-read")
    var revision = 0
    if let current {
      do { revision = try JSONDecoder().decode(OTAManifest.self, from: current.data).revision } catch {
        throw OTAPublishError.unreadablePointer(
          location: "\(store.displayName)/\(pointer)", reason: "\(error)")
      }
    }
    let desired = OTAManifest.make(
      customer: customer, rollouts: ota.rollouts, offered: ota.offered, catalog: catalog, revision: revision,
      modelURL: store.publicURL(for:))
    if let current, (try? JSONDecoder().decode(OTAManifest.self, from: current.data)) == desired {
      return nil
    }
    let next = desired.at(revision: revision + 1)
    let bytes = try next.encoded()
    let revisionKey = OTAManifest.revisionKey(customer.id, revision + 1)
    let scratch = try TemporaryFiles.shared.makeDirectory(prefix: "release-ota")
    defer { try? FileManager.default.removeItem(at: scratch) }
    let file = scratch.appendingPathComponent("models.json")
    try AtomicFile.write(bytes, to: file)
    if !(try store.createOnly(revisionKey, from: file, contentType: "application/json")) {
      guard try store.digest(of: revisionKey)?.sha256 == SHA256Digest.hex(of: bytes) else {
        throw OTAPublishError.revisionTaken(location: "\(store.displayName)/\(revisionKey)")
      }
    }
    guard
      try store.replace(pointer, with: bytes, contentType: "application/json", ifUnchanged: current?.tag)
    else {
      throw OTAPublishError.changedMeanwhile(location: "\(store.displayName)/\(pointer)", revision: revision)
    }
    return revision + 1
  }
}
