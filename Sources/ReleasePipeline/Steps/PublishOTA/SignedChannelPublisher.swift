import Foundation
import ReleaseCore
import ReleaseOTA
import ReleasePublishing
import ReleaseSigning
import ReleaseSystem

/// Publishes the signed channel of each customer that has a channel id (release-state.json's
/// `channels`) to an object store, as `PublishOTAStep` publishes the legacy manifest:
/// 1. the pointer `ota/<channel>/manifest.json` is read and opened against the trusted keys
///    (anything no trusted key signed, or at a revision devices refuse, is refused, never
///    overwritten);
/// 2. when the offer changed, the next revision is created as `ota/<channel>/manifest-<n>.json`
///    (create-only), a DSSE envelope signed by every private key of the run and opened again
///    before it is uploaded;
/// 3. the pointer is replaced with the same envelope only if it still holds what was read.
///
/// `rollouts.json`'s `published` says which revision this work tree last published, with its
/// payload's SHA-256. The next revision is always above the pointer's, the published one and
/// every revision file there, so a device that accepted any of them takes it. A pointer above
/// the published revision is another publisher's change this work tree has not seen
/// (`stalePublisher`); one below it, or none, was moved back or wiped by someone who can write
/// the bucket: a publish then republishes the work tree's state above it, and `--refresh`
/// re-signs exactly the published revision's content, read from its immutable file and
/// checked against the recorded digest, never the pointer's. Each refusal is the channel's
/// own: the other channels are published, and the run fails at the end (`refusals`).
final class SignedChannelPublisher {
  let channels: [String: String]
  let trusted: [PublicKey]
  /// The channel's root documents (`signing.root`), published to every channel; nil without.
  let chain: RootChain?
  let signers: [SigningKey]
  /// When every manifest this run signs expires.
  let expires: Date
  let rollouts: RolloutState
  let rolloutsPath: String
  /// Customer id → the newest revision this run published, with its payload's digest.
  private(set) var published: [String: RolloutState.PublishedRevision] = [:]
  /// One line per channel refused (`<location>: <why>`); the others were published.
  private(set) var refusals: [String] = []

  /// How many revision files above the pointer and the published revision a publish steps
  /// over: interrupted publishes leave a few, never this many.
  static let revisionFilesAbove = 64
  /// How many numbers in a row without a file end the search for revision files above.
  static let probeGap = 3

  /// Nil when the run has no signed channel (no trusted key or no public URL).
  init?(_ context: ReleaseContext, rollouts: RolloutState) throws {
    let settings = context.settings
    guard settings.hasSignedChannel else { return nil }
    channels = try ReleaseState.load(
      from: context.services.resolve(settings.inputs.statePath), displayPath: settings.inputs.statePath
    ).channels
    trusted = settings.signing.trusted
    chain = settings.channel.rootChain
    signers = settings.signing.signers
    expires = context.services.clock.now().addingTimeInterval(settings.channel.manifestExpiry)
    self.rollouts = rollouts
    rolloutsPath = settings.inputs.rolloutsPath
  }

  /// The pointer as read: its object (for the conditional replace) and what it says.
  struct Pointer {
    var object: StoredObject
    var manifest: OTAManifest
    var payloadSHA256: String
    /// Signed only by manifest keys an earlier root listed and the current one retired (a
    /// leaked key's manifest): replaced by the next publish, its revision not counted.
    var retired = false
  }

  /// The pointer of `channel` on `store`, opened: nil when there is none. Throws an
  /// `OTAPublishError` for one no trusted key signed or at a revision devices refuse.
  func read(_ customer: String, channel: String, on store: ObjectStore) throws -> Pointer? {
    let key = SignedOTAChannel.pointerKey(channel: channel)
    guard let object = try store.read(key) else { return nil }
    do {
      let opened = try SignedOTAChannel.open(
        object.data, trusted: trusted, customer: customer, location: location(key, store))
      return Pointer(object: object, manifest: opened.manifest, payloadSHA256: opened.payloadSHA256)
    } catch let error as OTAPublishError {
      guard let retired = chain?.retiredManifestKeys, !retired.isEmpty,
        let opened = try? RetiredManifest.open(object.data, retired: retired, customer: customer)
      else { throw error }
      return Pointer(object: object, manifest: opened, payloadSHA256: "", retired: true)
    }
  }

  /// Runs `body` for the customer's channel; an `OTAPublishError` refuses that channel only
  /// (its line kept for the end of the run). False when refused.
  @discardableResult
  func forChannel(_ body: () throws -> Void) throws -> Bool {
    do {
      try body()
      return true
    } catch let error as OTAPublishError {
      refusals.append(error.description)
      return false
    }
  }

  /// Whether the customer's channel on `store` may be published: its pointer verifies and is
  /// not above the revision rollouts.json records (the line is kept when not).
  func admits(_ customer: String, on store: ObjectStore) throws -> Bool {
    guard let channel = channels[customer] else { return true }
    return try forChannel {
      try publishRoots(channel: channel, to: store)
      _ = try current(customer, channel: channel, on: store)
    }
  }

  /// The pointer, refused when it is newer than the published revision.
  private func current(_ customer: String, channel: String, on store: ObjectStore) throws -> Pointer? {
    let pointer = try read(customer, channel: channel, on: store)
    let known = rollouts.published[customer]?.revision ?? 0
    if let pointer, !pointer.retired, pointer.manifest.revision > known {
      throw OTAPublishError.stalePublisher(
        location: location(SignedOTAChannel.pointerKey(channel: channel), store),
        found: pointer.manifest.revision, known: known, rolloutsPath: rolloutsPath)
    }
    return pointer
  }

  /// Publishes `desired` (made from rollouts.json) as the customer's next revision when it
  /// offers something else than the pointer, or when the pointer is not the published revision
  /// (moved back, wiped, replaced). Returns the revision published, nil when nothing was.
  func publish(_ desired: OTAManifest, customer: String, to store: ObjectStore, note: (String) -> Void)
    throws -> Int?
  {
    guard let channel = channels[customer] else { return nil }
    let pointer = try current(customer, channel: channel, on: store)
    let known = rollouts.published[customer]
    let intact = pointer.map { isPublished($0, known) } ?? (known == nil)
    if intact, let pointer, SignedOTAChannel.offersTheSame(pointer.manifest, as: desired) { return nil }
    let revision = try publish(desired, channel: channel, customer: customer, over: pointer, to: store)
    if let pointer, pointer.retired {
      note(
        "\(customer)'s signed manifest held revision \(pointer.manifest.revision) signed only by retired keys: replaced with the work tree's state as revision \(revision)"
      )
    } else if !intact, let known {
      note(
        "\(customer)'s signed manifest \(departure(pointer, from: known)) (moved back or wiped): published the work tree's state as revision \(revision)"
      )
    }
    return revision
  }

  /// How the pointer departs from the published revision, for the note.
  private func departure(_ pointer: Pointer?, from known: RolloutState.PublishedRevision) -> String {
    guard let pointer else {
      return "is missing, and \(rolloutsPath) records revision \(known.revision) as published"
    }
    let revision = pointer.manifest.revision
    guard revision < known.revision else {
      return "holds revision \(revision) with other content than \(rolloutsPath) records as published"
    }
    return
      "holds revision \(revision), below revision \(known.revision) that \(rolloutsPath) records as published"
  }

  /// `--refresh`: re-signs the content of the revision rollouts.json records as published,
  /// read from its own file and checked against the recorded digest, as the customer's next
  /// revision with the new expiry. Nil when nothing is published yet.
  func refresh(_ customer: String, on store: ObjectStore) throws -> Int? {
    guard let channel = channels[customer] else { return nil }
    let pointer = try current(customer, channel: channel, on: store)
    guard let known = rollouts.published[customer] else { return nil }
    let content = try publishedContent(customer, channel: channel, known, on: store)
    return try publish(content, channel: channel, customer: customer, over: pointer, to: store)
  }

  /// Whether the pointer is the revision rollouts.json records, with its payload's digest
  /// where one is recorded.
  private func isPublished(_ pointer: Pointer, _ known: RolloutState.PublishedRevision?) -> Bool {
    guard !pointer.retired, let known, pointer.manifest.revision == known.revision else { return false }
    return known.payloadSHA256.map { $0 == pointer.payloadSHA256 } ?? true
  }

  /// What `manifest-<published>.json` says, once it verifies, holds that revision and (where
  /// recorded) the payload whose digest rollouts.json records.
  private func publishedContent(
    _ customer: String, channel: String, _ known: RolloutState.PublishedRevision, on store: ObjectStore
  ) throws -> OTAManifest {
    let key = SignedOTAChannel.revisionKey(channel: channel, revision: known.revision)
    let fileLocation = location(key, store)
    func changed(_ found: String) -> OTAPublishError {
      .publishedRevisionChanged(location: fileLocation, found: found, revision: known.revision)
    }
    guard let object = try store.read(key) else { throw changed("missing") }
    let opened: (manifest: OTAManifest, keyIDs: [String], payloadSHA256: String)
    do {
      // Its content is checked against the recorded digest; a rotation since may have retired
      // the key that signed it.
      opened = try SignedOTAChannel.open(
        object.data, trusted: trusted + (chain?.retiredManifestKeys ?? []), customer: customer,
        location: fileLocation)
    } catch let error as OTAPublishError { throw changed(error.message) }
    guard opened.manifest.revision == known.revision else {
      throw changed("holds revision \(opened.manifest.revision), not the \(known.revision) its name says")
    }
    if let digest = known.payloadSHA256, digest != opened.payloadSHA256 {
      throw changed(
        "holds a payload with sha256 \(opened.payloadSHA256), not the \(digest) \(rolloutsPath) records")
    }
    return opened.manifest
  }

  /// Signs `content` as the next revision above the pointer, the published revision and the
  /// revision files there; creates its file, then moves the pointer if it still holds what was
  /// read.
  private func publish(
    _ content: OTAManifest, channel: String, customer: String, over pointer: Pointer?, to store: ObjectStore
  ) throws -> Int {
    let pointerKey = SignedOTAChannel.pointerKey(channel: channel)
    let read = pointer.map { $0.retired ? 0 : $0.manifest.revision } ?? 0
    let floor = max(read, rollouts.published[customer]?.revision ?? 0)
    var next = try nextRevision(channel: channel, above: floor, on: store)
    var signed = try sign(content, revision: next, channel: channel, store: store)
    // Ends: each pass creates the revision file or steps over one that exists, at most
    // `revisionFilesAbove` times (`sign` refuses a number past them).
    while !(try store.createRevision(
      signed.envelope, key: SignedOTAChannel.revisionKey(channel: channel, revision: next)))
    {
      guard try store.read(pointerKey)?.tag == pointer?.object.tag else {
        throw changedMeanwhile(customer, channel: channel, read: read, store)
      }
      next += 1
      guard next - floor <= Self.revisionFilesAbove + 1 else {
        throw tooManyFiles(channel: channel, floor: floor, store)
      }
      signed = try sign(content, revision: next, channel: channel, store: store)
    }
    guard
      try store.replace(
        pointerKey, with: signed.envelope, contentType: "application/json", ifUnchanged: pointer?.object.tag)
    else { throw changedMeanwhile(customer, channel: channel, read: read, store) }
    let previous = published[customer]?.revision ?? 0
    if next > previous {
      published[customer] = .init(revision: next, payloadSHA256: signed.payloadSHA256)
    }
    return next
  }

  /// One above the highest revision file found above `floor` (numbers are tried up while
  /// files are there, until `probeGap` in a row are missing); `floor + 1` when none is.
  private func nextRevision(channel: String, above floor: Int, on store: ObjectStore) throws -> Int {
    var highest = floor
    var number = floor + 1
    var missingInARow = 0
    while missingInARow < Self.probeGap, number <= SignedOTAChannel.maximumRevision {
      guard number - floor <= Self.revisionFilesAbove else {
        throw tooManyFiles(channel: channel, floor: floor, store)
      }
      if try store.digest(of: SignedOTAChannel.revisionKey(channel: channel, revision: number)) != nil {
        highest = number
        missingInARow = 0
      } else {
        missingInARow += 1
      }
      number += 1
    }
    return highest + 1
  }

  private func sign(_ content: OTAManifest, revision: Int, channel: String, store: ObjectStore) throws
    -> (envelope: Data, payloadSHA256: String)
  {
    guard revision <= SignedOTAChannel.maximumRevision else {
      throw OTAPublishError.noRevisionLeft(
        location: location(SignedOTAChannel.pointerKey(channel: channel), store),
        reason:
          "the next revision, \(revision), is above \(SignedOTAChannel.maximumRevision), the largest a device accepts"
      )
    }
    return try SignedOTAChannel.signed(
      content.at(revision: revision), expires: expires, signers: signers, trusted: trusted)
  }

  private func tooManyFiles(channel: String, floor: Int, _ store: ObjectStore) -> OTAPublishError {
    .noRevisionLeft(
      location: location("ota/\(channel)/", store),
      reason:
        "more than \(Self.revisionFilesAbove) revision files above revision \(floor) (the pointer's or the published one); interrupted publishes leave a few: find out what wrote them"
    )
  }

  private func changedMeanwhile(_ customer: String, channel: String, read: Int, _ store: ObjectStore)
    -> OTAPublishError
  {
    .changedMeanwhile(
      location: location(SignedOTAChannel.pointerKey(channel: channel), store), read: read,
      now: try? self.read(customer, channel: channel, on: store)?.manifest.revision)
  }

  /// Records the revisions this run published in rollouts.json (under its lock, read again
  /// under it, written atomically), so the next publish from this work tree knows them.
  func record(_ context: ReleaseContext) throws {
    guard !published.isEmpty else { return }
    let settings = context.settings
    let url = context.services.resolve(settings.inputs.rolloutsPath)
    let lock = try RolloutState.lock(url)
    try withExtendedLifetime(lock) {
      var state = try RolloutState.load(from: url, displayPath: settings.inputs.rolloutsPath)
      let before = state
      for (customer, revision) in published where revision.revision > state.published[customer]?.revision ?? 0
      {
        state.published[customer] = revision
      }
      guard state != before else { return }
      try AtomicFile.write(try state.encoded(), to: url)
      context.reporter.report(
        .info("recorded the published revisions in \(settings.inputs.rolloutsPath); commit it"))
    }
  }

  /// Every root document as `ota/<channel>/root-<n>.json`, create-only: one that went missing
  /// is restored; another document under a root's name refuses the channel (devices would
  /// refuse it and never reach the newer roots).
  private func publishRoots(channel: String, to store: ObjectStore) throws {
    guard let chain else { return }
    for (index, envelope) in chain.envelopes.enumerated() {
      let key = RootChain.publishedKey(channel: channel, version: index + 1)
      guard try store.createRevision(envelope, key: key) else {
        throw OTAPublishError.unverifiedManifest(
          location: location(key, store),
          reason:
            "holds another document than root document \(index + 1); remove it so the committed one is published"
        )
      }
    }
  }

  private func location(_ key: String, _ store: ObjectStore) -> String { "\(store.displayName)/\(key)" }
}

/// A manifest envelope signed by a retired manifest key: read only to say what it held.
enum RetiredManifest {
  static func open(_ data: Data, retired: [PublicKey], customer: String) throws -> OTAManifest {
    let verified = try DSSEEnvelope.verify(
      json: data, payloadType: SignedOTAChannel.payloadType, trustedKeys: retired)
    return try OTAManifest.published(
      verified.payload, customer: customer, location: "a retired key's manifest",
      schemaVersion: SignedOTAChannel.schemaVersion)
  }
}
