import Foundation

/// The channel's root of trust (The Update Framework's root role), as `customer.json` embeds
/// it and `ota/<channel>/root-<n>.json` publishes each version: which keys may sign the next
/// root (`root`, kept offline by the vendor) and which may sign manifests (`manifest`), each
/// with how many of them must sign. A DSSE envelope of type `payloadType` whose payload is
///
///     {"schemaVersion": 1, "version": 2,
///      "root": {"keys": [{"keyID": "<hex>", "publicKey": "<base64>"}], "threshold": 2},
///      "manifest": {"keys": [{"keyID": "<hex>", "publicKey": "<base64>"}], "threshold": 1}}
struct TrustedRoot: Equatable, Sendable {
  static let payloadType = "application/vnd.contextsdk.ota-root+json"

  /// Keys and how many of them must sign.
  struct Role: Codable, Equatable, Sendable {
    let keys: [TrustedKey]
    let threshold: Int
  }

  let version: Int
  let root: Role
  let manifest: Role

  /// Why a root document is not followed.
  enum Refusal: Error, Equatable, Sendable, CustomStringConvertible {
    /// Not an envelope of the root's type, or a payload that is not a root document.
    case malformed
    /// Not the version after the root it would follow.
    case wrongVersion(found: Int, expected: Int)
    /// Fewer distinct keys of a root's root keys signed it than that root's threshold
    /// (`previous`: the root it follows; else its own).
    case belowThreshold(previous: Bool, signed: Int, threshold: Int)

    var description: String {
      switch self {
      case .malformed: "not a root document"
      case .wrongVersion(let found, let expected): "holds version \(found); expected \(expected)"
      case .belowThreshold(let previous, let signed, let threshold):
        "signed by \(signed) of the \(previous ? "previous" : "new") root's root keys; needs \(threshold)"
      }
    }
  }

  private struct Payload: Decodable {
    let schemaVersion: Int
    let version: Int
    let root: Role
    let manifest: Role
  }

  /// The root embedded in the package (an envelope's JSON text). The package itself is what
  /// the device trusts, so its signatures are not checked here; its content is.
  init?(embedded text: String) {
    guard let payload = DSSEEnvelope(Data(text.utf8))?.payload, let root = Self.decode(payload) else {
      return nil
    }
    self = root
  }

  private init(version: Int, root: Role, manifest: Role) {
    self.version = version
    self.root = root
    self.manifest = manifest
  }

  /// A payload every part of which a device can use: schema 1, a version from 1 to 2^53 − 1,
  /// each role's keys well formed and distinct, each threshold from 1 to its number of keys.
  private static func decode(_ payload: Data) -> TrustedRoot? {
    guard let decoded = try? JSONDecoder().decode(Payload.self, from: payload), decoded.schemaVersion == 1,
      (1...ModelManifest.maximumRevision).contains(decoded.version),
      isUsable(decoded.root), isUsable(decoded.manifest)
    else { return nil }
    return TrustedRoot(version: decoded.version, root: decoded.root, manifest: decoded.manifest)
  }

  private static func isUsable(_ role: Role) -> Bool {
    let ids = role.keys.map(\.keyID)
    return role.keys.allSatisfy { $0.rawKey != nil } && Set(ids).count == ids.count
      && (1...max(1, role.keys.count)).contains(role.threshold) && !role.keys.isEmpty
  }

  /// The root in `data`, once it is shown to follow this one: version exactly one above, and
  /// signed by this root's threshold of its root keys and by the new root's threshold of its
  /// own, each key counted once however many signatures it has.
  func next(from data: Data) throws(Refusal) -> TrustedRoot {
    guard let envelope = DSSEEnvelope(data), envelope.payloadType == Self.payloadType,
      let payload = envelope.payload, let next = Self.decode(payload)
    else { throw .malformed }
    guard next.version == version + 1 else { throw .wrongVersion(found: next.version, expected: version + 1) }
    let byPrevious = envelope.signers(among: root.keys).count
    guard byPrevious >= root.threshold else {
      throw .belowThreshold(previous: true, signed: byPrevious, threshold: root.threshold)
    }
    let byItself = envelope.signers(among: next.root.keys).count
    guard byItself >= next.root.threshold else {
      throw .belowThreshold(previous: false, signed: byItself, threshold: next.root.threshold)
    }
    return next
  }

  /// Whether `data` (a manifest envelope) is signed by this root's threshold of manifest keys.
  func meetsManifestThreshold(_ data: Data) -> Bool {
    guard let envelope = DSSEEnvelope(data) else { return false }
    return envelope.signers(among: manifest.keys).count >= manifest.threshold
  }
}
