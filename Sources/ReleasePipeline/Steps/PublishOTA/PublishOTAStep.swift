import Foundation
import ReleaseAlignment
import ReleaseCore
import ReleaseManifest
import ReleaseModels
import ReleaseOTA
import ReleasePublishing
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
///
/// With trusted keys and a public URL, each customer with a channel id also gets its signed
/// channel, the same way (see `SignedChannelPublisher`): `ota/<channel>/manifest-<n>.json`, then
/// the pointer `ota/<channel>/manifest.json`. The legacy `models.json` is then published only
/// for a customer that still has a released package without pinned keys (`ReleasedPackage`),
/// and for none once `publish.legacyManifests` is false; before it stops, one last revision
/// retracts every offer it makes, so old apps fall back to their bundled models.
package struct PublishOTAStep: Step {
  package let name = "publish over the air"
  package let changesState = true

  package init() {}

  package struct Input: Sendable {
    /// What the check before building found (`CheckOTAStep`); nil when it did not run.
    var ota: OTAPlan?
    var inputs: ReleaseInputs
    /// The customers of a release run, of which those that ship get a manifest; nil for
    /// `release ota publish`, where every customer of the run does.
    var results: RunResults?

    package init(ota: OTAPlan?, inputs: ReleaseInputs, results: RunResults? = nil) {
      self.ota = ota
      self.inputs = inputs
      self.results = results
    }
  }

  package func skipReason(_ input: Input, _ context: ReleaseContext) -> String? {
    // The check before building did not run (no destination) or, in a dry run, refused.
    guard let ota = input.ota, !context.settings.publishing.destinations.isEmpty else {
      return OTAPlan.noDestination
    }
    if ota.stores.isEmpty { return "no object store for over-the-air manifests" }
    guard let results = input.results, !results.customers.isEmpty else { return nil }
    return results.nothingShipsReason("published over the air")
  }

  package func dryRunDescription(_ input: Input, _ context: ReleaseContext) -> [String] {
    guard let ota = input.ota else { return [] }
    let settings = context.settings
    // Channel ids are not printed: they are what keeps a channel from being found.
    let signed = settings.hasSignedChannel ? customers(input).map(\.id) : []
    if settings.channel.refresh {
      return ota.stores.flatMap { store in
        signed.map { "would re-sign \($0)'s signed manifest as published at \(store.displayName)" }
      }
    }
    return ota.stores.flatMap { store in
      customers(input).map { legacyPlan(for: $0, to: store, input, context) }
        + signed.map { "would publish \($0)'s signed manifest to \(store.displayName)" }
        + ota.offered.keys.sorted().map { "would upload \($0) as ota/models/… to \(store.displayName)" }
    }
  }

  /// What the run would do with the customer's legacy manifest: publish it, or (in a signed run
  /// that no longer wants it) retract its offers in a last revision.
  private func legacyPlan(
    for customer: Customer, to store: ObjectStore, _ input: Input, _ context: ReleaseContext
  )
    -> String
  {
    let pointer = OTAManifest.pointerKey(customer.id)
    if !context.settings.hasSignedChannel || wantsLegacyManifest(customer, input, context) {
      return "would publish \(pointer) to \(store.displayName)"
    }
    return "would retract every offer of \(pointer), if it still offers any, at \(store.displayName)"
  }

  package func run(_ input: Input, _ context: ReleaseContext) throws {
    // Without a plan the step is skipped (`skipReason`).
    guard let ota = input.ota else { return }
    let signed = try SignedChannelPublisher(context, rollouts: ota.rollouts)
    if let signed, context.settings.channel.refresh {
      try refresh(signed, customers: customers(input), stores: ota.stores, context)
    } else {
      try publish(input, ota, signed: signed, context)
    }
    try signed?.record(context)
    // Each refused channel's line; every other channel was published.
    if let refusals = signed?.refusals, !refusals.isEmpty {
      throw ReleaseError.stepProblems(step: name, problems: refusals)
    }
  }

  /// `--refresh`: every channel's published revision re-signed with the new expiry.
  private func refresh(
    _ signed: SignedChannelPublisher, customers: [Customer], stores: [ObjectStore], _ context: ReleaseContext
  ) throws {
    for store in stores {
      var refreshed: [String] = []
      for customer in customers {
        try signed.forChannel {
          if let revision = try signed.refresh(customer.id, on: store) {
            refreshed.append("\(customer.id) r\(revision)")
          }
        }
      }
      context.reporter.report(
        .info(
          "signed manifests at \(store.displayName) re-signed until \(SignedOTAChannel.timestamp(signed.expires)): "
            + (refreshed.isEmpty ? "none" : refreshed.joined(separator: ", "))))
    }
  }

  /// The models, then per customer its signed channel and legacy manifest. A customer whose
  /// signed channel is refused (stale work tree, a pointer no trusted key signed or at a
  /// revision devices refuse) gets nothing, and its models are not uploaded for it.
  private func publish(
    _ input: Input, _ ota: OTAPlan, signed: SignedChannelPublisher?, _ context: ReleaseContext
  ) throws {
    let catalog = input.inputs.signals
    for store in ota.stores {
      var admitted: [Customer] = []
      for customer in customers(input) where try signed?.admits(customer.id, on: store) ?? true {
        admitted.append(customer)
      }
      let uploaded = try uploadModels(offeredTo: admitted, ota: ota, to: store, from: input.inputs.modelStore)
      var changed: [String] = []
      for customer in admitted {
        if let signed {
          let desired = OTAManifest.make(
            customer: customer, rollouts: ota.rollouts, offered: ota.offered, catalog: catalog, revision: 0,
            modelURL: store.publicURL(for:))
          let published = try signed.forChannel {
            if let revision = try signed.publish(
              desired, customer: customer.id, to: store, note: { context.reporter.report(.info($0)) })
            {
              changed.append("\(customer.id) signed r\(revision)")
            }
          }
          guard published else { continue }
        }
        if signed == nil || wantsLegacyManifest(customer, input, context) {
          if let revision = try publishManifest(for: customer, ota: ota, catalog: catalog, to: store) {
            changed.append("\(customer.id) r\(revision)")
          }
        } else if let revision = try retractLegacyManifest(of: customer, on: store) {
          changed.append("\(customer.id) r\(revision)")
          context.reporter.report(
            .info(
              "\(customer.id): every released package pins keys: its legacy manifest's last revision (\(revision)) retracts every offer"
            ))
        }
      }
      context.reporter.report(
        .info(
          "over the air to \(store.displayName): \(uploaded) new models, "
            + (changed.isEmpty
              ? "every manifest unchanged" : "new revisions: \(changed.joined(separator: ", "))")))
    }
  }

  /// Every model the customers' rollouts name as `ota/models/<sha256>.mlmodel`: each key is
  /// checked before anything is written (one holding other bytes fails the publish with the
  /// store as it was), then the missing ones are uploaded. Returns how many were new.
  private func uploadModels(
    offeredTo customers: [Customer], ota: OTAPlan, to store: ObjectStore, from models: ModelStore
  ) throws -> Int {
    let references = Set(
      customers.flatMap { customer in
        (ota.rollouts.customers[customer.id] ?? [:]).flatMap { flowName, flow in
          flow.models.map { ModelReference(flowName: flowName, version: $0.modelVersion) }
        }
      })
    var missing: [RolloutChange.OfferedModel] = []
    for model in ota.offered.values.sorted(by: { $0.reference < $1.reference })
    where references.contains(model.reference) {
      let key = OTAManifest.modelKey(sha256: model.sha256)
      if let remote = try store.digest(of: key) {
        try check(remote, holds: model, at: "\(store.displayName)/\(key)")
      } else {
        missing.append(model)
      }
    }
    var uploaded = 0
    for model in missing where try upload(model, to: store, from: models) { uploaded += 1 }
    return uploaded
  }

  /// Whether the signed run still publishes the customer's legacy manifest: while
  /// `publish.legacyManifests` is true and a released package of the customer pins no keys.
  private func wantsLegacyManifest(_ customer: Customer, _ input: Input, _ context: ReleaseContext) -> Bool {
    guard context.settings.channel.legacyManifests else { return false }
    return ReleasedPackage.hasUnpinnedPackage(
      customer.id, state: input.inputs.state, dist: context.services.resolve(context.settings.inputs.distPath)
    )
  }

  /// The legacy manifest's last revision: the published one with every offer retracted (0 %),
  /// when it still offers anything; nil when there is none or it offers nothing.
  private func retractLegacyManifest(of customer: Customer, on store: ObjectStore) throws -> Int? {
    let pointer = OTAManifest.pointerKey(customer.id)
    guard let current = try store.read(pointer) else { return nil }
    let published = try OTAManifest.published(
      current.data, customer: customer.id, location: "\(store.displayName)/\(pointer)")
    let retracted = published.retractingEveryOffer()
    guard retracted != published, published.revision < SignedOTAChannel.maximumRevision else { return nil }
    let next = published.revision + 1
    let bytes = try retracted.at(revision: next).encoded()
    guard try store.createRevision(bytes, key: OTAManifest.revisionKey(customer.id, next)),
      try store.replace(pointer, with: bytes, contentType: "application/json", ifUnchanged: current.tag)
    else {
      throw OTAPublishError.changedMeanwhile(
        location: "\(store.displayName)/\(pointer)", read: published.revision,
        now: revisionNumber(try? store.read(pointer), customer.id, "\(store.displayName)/\(pointer)"))
    }
    return next
  }

  /// Every customer of `release ota publish`; those that ship in a release run.
  private func customers(_ input: Input) -> [Customer] {
    guard let results = input.results, !results.customers.isEmpty else { return input.ota?.customers ?? [] }
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
    while !(try store.createRevision(bytes, key: OTAManifest.revisionKey(customer.id, next))) {
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

  /// The revision a pointer read again holds, for the message; nil when it is gone or unreadable.
  private func revisionNumber(_ object: StoredObject?, _ customer: String, _ location: String) -> Int? {
    object.flatMap { try? OTAManifest.published($0.data, customer: customer, location: location).revision }
  }
}
