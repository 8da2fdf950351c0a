import Foundation
import ReleaseCore
import ReleaseOTA
import ReleasePublishing
import ReleaseSigning
import ReleaseSystem

/// Publishes the signed channel of each customer that has a channel id (release-state.json's
/// `channels`) to an object store, as `PublishOTAStep` publishes the legacy manifest:
/// 1. the pointer `ota/<channel>/manifest.json` is read and opened against the trusted keys
///    (anything no trusted key signed is an error, never overwritten);
/// 2. when the offer changed (or under `--refresh`, with the pointer's own content), the next
///    free revision is created as `ota/<channel>/manifest-<n>.json` (create-only), a DSSE
///    envelope signed by every private key of the run and opened again before it is uploaded;
/// 3. the pointer is replaced with the same envelope only if it still holds what was read.
///
/// `rollouts.json`'s `published` says which revision this work tree last published: a pointer
/// holding a newer one means another publisher's change this work tree has not seen, and the
/// run is refused before anything is uploaded (`refuseStale`). After publishing, the revisions
/// are recorded there (`record`).
final class SignedChannelPublisher {
  let channels: [String: String]
  let trusted: [PublicKey]
  let signers: [SigningKey]
  /// When every manifest this run signs expires.
  let expires: Date
  let rollouts: RolloutState
  let rolloutsPath: String
  /// Customer id → the highest revision this run published.
  private(set) var published: [String: Int] = [:]

  /// Nil when the run has no signed channel (no trusted key or no public URL).
  init?(_ context: ReleaseContext, rollouts: RolloutState) throws {
    let options = context.options
    guard options.hasSignedChannel else { return nil }
    channels = try ReleaseState.load(
      from: context.services.resolve(options.statePath), displayPath: options.statePath
    ).channels
    trusted = options.signing.trusted
    signers = options.signing.signers
    expires = context.services.clock.now().addingTimeInterval(options.manifestExpiry)
    self.rollouts = rollouts
    rolloutsPath = options.rolloutsPath
  }

  /// The pointer of `customer`'s channel on `store`, opened: its revision and what it says
  /// (nil when the customer has no channel or nothing is published yet).
  func read(_ customer: String, on store: ObjectStore) throws -> (
    object: StoredObject, manifest: OTAManifest
  )? {
    guard let channel = channels[customer] else { return nil }
    let key = SignedOTAChannel.pointerKey(channel: channel)
    guard let object = try store.read(key) else { return nil }
    let manifest = try SignedOTAChannel.open(
      object.data, trusted: trusted, customer: customer, location: location(key, store)
    ).manifest
    return (object, manifest)
  }

  /// Refuses (exit 1) a pointer holding a newer revision than rollouts.json records.
  func refuseStale(_ customer: String, on store: ObjectStore) throws {
    guard let channel = channels[customer], let (_, manifest) = try read(customer, on: store) else { return }
    let known = rollouts.published[customer] ?? 0
    if manifest.revision > known {
      throw OTAPublishError.stalePublisher(
        location: location(SignedOTAChannel.pointerKey(channel: channel), store), found: manifest.revision,
        known: known, rolloutsPath: rolloutsPath)
    }
  }

  /// Publishes `desired` (made from rollouts.json) as `customer`'s next revision when it offers
  /// something else than the pointer; with `desired` nil (`--refresh`), the pointer's own
  /// content with the new expiry. Returns the revision published, nil when nothing was.
  func publish(_ desired: OTAManifest?, customer: String, to store: ObjectStore) throws -> Int? {
    guard let channel = channels[customer] else { return nil }
    let pointer = SignedOTAChannel.pointerKey(channel: channel)
    let current = try read(customer, on: store)
    let revision = current?.manifest.revision ?? 0
    let content: OTAManifest
    if let desired {
      if let current, SignedOTAChannel.offersTheSame(current.manifest, as: desired) { return nil }
      content = desired
    } else {
      guard let current else { return nil }
      content = current.manifest
    }
    let sign = { (revision: Int) in
      try SignedOTAChannel.envelope(
        content.at(revision: revision), expires: self.expires, signers: self.signers, trusted: self.trusted)
    }
    var next = revision + 1
    var bytes = try sign(next)
    // Ends: each pass either creates the revision file or steps over one that exists.
    while !(try PublishOTAStep.createRevision(
      bytes, key: SignedOTAChannel.revisionKey(channel: channel, revision: next), in: store))
    {
      let now = try store.read(pointer)
      guard now?.tag == current?.object.tag else {
        throw OTAPublishError.changedMeanwhile(
          location: location(pointer, store), read: revision,
          now: try? self.read(customer, on: store)?.manifest.revision)
      }
      next += 1
      bytes = try sign(next)
    }
    guard
      try store.replace(
        pointer, with: bytes, contentType: "application/json", ifUnchanged: current?.object.tag)
    else {
      throw OTAPublishError.changedMeanwhile(
        location: location(pointer, store), read: revision,
        now: try? self.read(customer, on: store)?.manifest.revision)
    }
    published[customer] = max(published[customer] ?? 0, next)
    return next
  }

  /// Records the revisions this run published in rollouts.json (under its lock, read again
  /// under it, written atomically), so the next publish from this work tree knows them.
  func record(_ context: ReleaseContext) throws {
    guard !published.isEmpty else { return }
    let options = context.options
    let url = context.services.resolve(options.rolloutsPath)
    let lock = try RolloutState.lock(url)
    try withExtendedLifetime(lock) {
      var state = try RolloutState.load(from: url, displayPath: options.rolloutsPath)
      let before = state
      for (customer, revision) in published where revision > state.published[customer] ?? 0 {
        state.published[customer] = revision
      }
      guard state != before else { return }
      try AtomicFile.write(try state.encoded(), to: url)
      context.reporter.report(
        .info("recorded the published revisions in \(options.rolloutsPath); commit it"))
    }
  }

  private func location(_ key: String, _ store: ObjectStore) -> String { "\(store.displayName)/\(key)" }
}
