import Foundation

/// Follows the channel's root documents before each manifest (The Update Framework's root
/// rotation): from the newest root this install trusts (the package's, or a newer one it
/// accepted and kept in `<state>/ota-roots/<n>.json`, each checked again from the package's on
/// every update), it fetches `root-<n+1>.json` beside the manifest until there is none, at most
/// `maximumFetches` per update, and keeps each root it accepts. The state directory is where
/// the install id lives, which the system never purges.
///
/// Then, when every key that signed the manifest behind the revision floor has been retired,
/// it forgets that floor: a leaked key's huge revision no longer locks the device out, while a
/// rotation that keeps a key keeps the floor.
struct RootChain {
  static let directoryName = "ota-roots"
  /// The most root documents one update fetches; the rest wait for the next update.
  static let maximumFetches = 16
  /// The most roots kept on the device read back per update.
  static let maximumStored = 1_000
  /// A root document is a few kilobytes.
  static let maximumSize: Int64 = 64 * 1024

  let embedded: TrustedRoot
  let manifestURL: URL
  let stateDirectory: URL
  let policy: TransferPolicy

  /// The root the updater of `configuration` follows from; nil when the package embeds none
  /// (it then trusts its pinned keys only).
  static func current(for updater: ModelUpdater) async throws(ModelUpdateError) -> TrustedRoot? {
    guard case .signed = updater.channel, let text = updater.configuration.trustedRoot else { return nil }
    guard let embedded = TrustedRoot(embedded: text) else {
      throw .rootRejected(
        url: updater.manifestURL, reason: "customer.json's trustedRoot is not a root document")
    }
    let chain = RootChain(
      embedded: embedded, manifestURL: updater.manifestURL, stateDirectory: updater.stateDirectory,
      policy: updater.settings.transferPolicy)
    let root = try await chain.follow()
    RevisionSigners.forgetFloorIfRetired(by: root, in: updater.stateDirectory)
    return root
  }

  /// The newest root: the stored ones, then the published ones.
  func follow() async throws(ModelUpdateError) -> TrustedRoot {
    var root = embedded
    let directory = stateDirectory.appendingPathComponent(Self.directoryName, isDirectory: true)
    // Ends: one stored file per pass, at most `maximumStored`.
    for _ in 0..<Self.maximumStored {
      let file = directory.appendingPathComponent("\(root.version + 1).json")
      guard let data = try? Data(contentsOf: file), let next = try? root.next(from: data) else { break }
      root = next
    }
    for _ in 0..<Self.maximumFetches {
      let url = manifestURL.deletingLastPathComponent().appendingPathComponent(
        "root-\(root.version + 1).json")
      // None there (or no network): the newest root trusted so far is the current one.
      guard
        let data = try? await BoundedDownload.get(url, limit: Self.maximumSize, policy: policy).body
      else { break }
      do throws(TrustedRoot.Refusal) { root = try root.next(from: data) } catch {
        throw .rootRejected(url: url, reason: error.description)
      }
      do {
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        try data.write(to: directory.appendingPathComponent("\(root.version).json"), options: .atomic)
      } catch { throw .revisionState(path: directory.path, reason: error.localizedDescription) }
    }
    return root
  }
}

/// Which manifest keys signed the revision the device accepted last (`ota-revision-keys`:
/// `<revision> <key id> …`), so a rotation that retires all of them lets the device forget
/// that revision as its floor.
enum RevisionSigners {
  static let fileName = "ota-revision-keys"

  /// Records the distinct `keys` whose signatures of `envelope` verify, for `revision`; the
  /// same revision accepted again adds its signers.
  static func record(_ revision: Int, of envelope: Data, keys: [TrustedKey], in directory: URL) {
    guard let signers = DSSEEnvelope(envelope)?.signers(among: keys), !signers.isEmpty else { return }
    var all = signers
    if let known = read(in: directory), known.revision == revision {
      all.formUnion(known.keyIDs)
    } else if let known = read(in: directory), known.revision > revision {
      return
    }
    let line = ([String(revision)] + all.sorted()).joined(separator: " ")
    try? Data(line.utf8).write(to: directory.appendingPathComponent(fileName), options: .atomic)
  }

  static func read(in directory: URL) -> (revision: Int, keyIDs: Set<String>)? {
    guard let data = try? Data(contentsOf: directory.appendingPathComponent(fileName)),
      let text = String(data: data, encoding: .utf8)
    else { return nil }
    let fields = text.split(separator: " ").map(String.init)
    guard fields.count >= 2, let revision = Int(fields[0]) else { return nil }
    return (revision, Set(fields.dropFirst()))
  }

  /// Forgets the accepted revision (and its digest and signers) when every key that signed it
  /// is not a manifest key of `root`. A floor whose signers are unknown is kept.
  static func forgetFloorIfRetired(by root: TrustedRoot, in directory: URL) {
    guard let known = read(in: directory) else { return }
    let floorFile = directory.appendingPathComponent(ModelUpdater.revisionFileName)
    guard let text = (try? Data(contentsOf: floorFile)).flatMap({ String(data: $0, encoding: .utf8) }),
      Int(text) == known.revision
    else { return }
    let current = Set(root.manifest.keys.map(\.keyID))
    guard known.keyIDs.isDisjoint(with: current) else { return }
    for name in [ModelUpdater.revisionFileName, ModelUpdater.payloadFileName, fileName] {
      try? FileManager.default.removeItem(at: directory.appendingPathComponent(name))
    }
  }
}
