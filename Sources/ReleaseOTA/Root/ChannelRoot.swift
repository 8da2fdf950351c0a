import Foundation
import ReleaseSigning
import ReleaseSystem

/// The root of trust of the signed channel (The Update Framework's root role): which keys may
/// sign the next root (`root`, kept offline) and which may sign manifests (`manifest`, the
/// online key CI holds), each with how many of them must sign. Published as a DSSE envelope of
/// type `payloadType` whose payload is
///
///     {"schemaVersion": 1, "version": 2,
///      "root": {"keys": [{"keyID": "<hex>", "publicKey": "<base64>"}], "threshold": 2},
///      "manifest": {"keys": [{"keyID": "<hex>", "publicKey": "<base64>"}], "threshold": 1}}
///
/// Root n + 1 is believed only when a threshold of root n's root keys and a threshold of its
/// own root keys signed it, each key counted once however many signatures it has.
package struct ChannelRoot: Equatable, Sendable {
  package static let payloadType = "application/vnd.contextsdk.ota-root+json"
  package static let schemaVersion = 1

  /// Keys and how many of them must sign.
  package struct Role: Equatable, Sendable {
    package var keys: [PublicKey]
    package var threshold: Int

    package init(keys: [PublicKey], threshold: Int) {
      self.keys = keys
      self.threshold = threshold
    }
  }

  package var version: Int
  package var root: Role
  package var manifest: Role

  package init(version: Int, root: Role, manifest: Role) {
    self.version = version
    self.root = root
    self.manifest = manifest
  }

  /// The payload's JSON: sorted keys, the same bytes for the same root.
  package func payload() throws -> Data {
    func wire(_ role: Role) -> Wire.Role {
      .init(
        keys: role.keys.map { .init(keyID: $0.keyID, publicKey: $0.rawRepresentation.base64EncodedString()) },
        threshold: role.threshold)
    }
    return try StableJSON.encode(
      Wire(schemaVersion: Self.schemaVersion, version: version, root: wire(root), manifest: wire(manifest)))
  }

  /// The envelope of this root signed by each of `keys`, in order.
  package func signed(by keys: [SigningKey]) throws -> Data {
    try DSSEEnvelope.sign(payload: try payload(), payloadType: Self.payloadType, with: keys).jsonData()
  }

  /// The root a payload describes, every problem of it in one error.
  package static func decode(_ payload: Data, location: String) throws(RootError) -> ChannelRoot {
    let wire: Wire
    do { wire = try JSONDecoder().decode(Wire.self, from: payload) } catch {
      throw .malformed(
        location: location,
        problems: [
          "the payload is not {schemaVersion, version, root: {keys, threshold}, manifest: {keys, threshold}}"
        ])
    }
    var problems: [String] = []
    if wire.schemaVersion != schemaVersion {
      problems.append("schemaVersion is \(wire.schemaVersion); expected 1")
    }
    if !(1...SignedOTAChannel.maximumRevision).contains(wire.version) {
      problems.append("version is \(wire.version); expected 1 to \(SignedOTAChannel.maximumRevision)")
    }
    let root = Self.role(wire.root, name: "root", problems: &problems)
    let manifest = Self.role(wire.manifest, name: "manifest", problems: &problems)
    guard problems.isEmpty else { throw .malformed(location: location, problems: problems) }
    return ChannelRoot(version: wire.version, root: root, manifest: manifest)
  }

  private static func role(_ wire: Wire.Role, name: String, problems: inout [String]) -> Role {
    var keys: [PublicKey] = []
    for (index, entry) in wire.keys.enumerated() {
      guard let raw = Data(base64Encoded: entry.publicKey), let key = try? PublicKey(rawRepresentation: raw)
      else {
        problems.append("\(name).keys[\(index)].publicKey is not a base64 32-byte Ed25519 key")
        continue
      }
      if key.keyID != entry.keyID {
        problems.append("\(name).keys[\(index)].keyID is not the SHA-256 of its key (\(key.keyID))")
      } else if keys.contains(key) {
        problems.append("\(name).keys[\(index)] is listed twice")
      } else {
        keys.append(key)
      }
    }
    if keys.isEmpty { problems.append("\(name).keys is empty; expected at least one key") }
    if !(1...max(1, wire.keys.count)).contains(wire.threshold) {
      problems.append(
        "\(name).threshold is \(wire.threshold); expected 1 to \(wire.keys.count), its number of keys")
    }
    return Role(keys: keys, threshold: wire.threshold)
  }

  /// The root in `envelope`, once it is shown to follow `previous` (nil: it is the first):
  /// version exactly one above, a threshold of `previous`'s root keys and a threshold of its
  /// own root keys among the signatures that verify, each key once.
  package static func open(_ envelope: Data, after previous: ChannelRoot?, location: String) throws(RootError)
    -> ChannelRoot
  {
    let parsed: DSSEEnvelope
    do { parsed = try DSSEEnvelope(json: envelope) } catch {
      throw .malformed(location: location, problems: ["\(error)"])
    }
    guard parsed.payloadType == payloadType else {
      throw .malformed(location: location, problems: ["payloadType is not \(payloadType)"])
    }
    let root = try decode(parsed.payload, location: location)
    let expected = (previous?.version ?? 0) + 1
    guard root.version == expected else {
      throw .wrongVersion(location: location, found: root.version, expected: expected)
    }
    if let previous {
      try previous.root.check(parsed, location: location, whose: "version \(previous.version)'s")
    }
    try root.root.check(parsed, location: location, whose: "its own")
    return root
  }

  /// Why a root document is refused: one line, naming where it was read.
  package enum RootError: Error, Equatable, CustomStringConvertible {
    case malformed(location: String, problems: [String])
    case wrongVersion(location: String, found: Int, expected: Int)
    case belowThreshold(location: String, whose: String, signed: Int, of: Int, threshold: Int)

    package var description: String {
      switch self {
      case .malformed(let location, let problems): "\(location): \(problems.joined(separator: "; "))"
      case .wrongVersion(let location, let found, let expected):
        "\(location): holds version \(found); expected version \(expected), the one after the root it follows"
      case .belowThreshold(let location, let whose, let signed, let of, let threshold):
        "\(location): signed by \(signed) of the \(of) root keys of \(whose) root; expected at least \(threshold)"
      }
    }
  }

  private struct Wire: Codable {
    struct Key: Codable {
      var keyID: String
      var publicKey: String
    }
    struct Role: Codable {
      var keys: [Key]
      var threshold: Int
    }
    var schemaVersion: Int
    var version: Int
    var root: Role
    var manifest: Role
  }
}

extension ChannelRoot.Role {
  /// The distinct keys of this role whose signatures of `envelope` verify.
  package func signers(of envelope: DSSEEnvelope) -> [String] {
    (try? envelope.verify(payloadType: envelope.payloadType, trustedKeys: keys).keyIDs) ?? []
  }

  fileprivate func check(_ envelope: DSSEEnvelope, location: String, whose: String) throws(ChannelRoot
    .RootError)
  {
    let signed = signers(of: envelope).count
    guard signed >= threshold else {
      throw .belowThreshold(
        location: location, whose: whose, signed: signed, of: keys.count, threshold: threshold)
    }
  }
}
