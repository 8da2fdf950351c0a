import Foundation
import ReleaseSigning
import ReleaseSystem

/// The signed over-the-air channel of one customer (see docs/over-the-air.md): at
/// `ota/<channel>/manifest.json` the pointer devices poll, and every revision, immutable, at
/// `ota/<channel>/manifest-<revision>.json`. Each file is a DSSE envelope whose payload is the
/// customer's `OTAManifest` at schema 2, with an `expires`. The channel id is 128 random bits
/// kept in release-state.json, never derived from the customer's id, so nobody finds a
/// channel by guessing (as long as the bucket does not list).
package enum SignedOTAChannel {
  package static let payloadType = "application/vnd.contextsdk.ota-manifest+json"
  package static let schemaVersion = 2
  /// The largest revision: the largest integer JSON carries exactly (2^53 - 1). Devices refuse
  /// any above it; so do the publisher and `ota verify`, and no revision arithmetic can
  /// overflow below it.
  package static let maximumRevision = 9_007_199_254_740_991
  /// The longest a signed manifest may be believed (`--expires`); devices refuse one that
  /// expires more than 31 days ahead of their clock.
  package static let maximumLifetime: TimeInterval = 30 * 86_400

  /// Whether `text` is a lower-case hex SHA-256.
  package static func isDigest(_ text: String) -> Bool {
    text.utf8.count == 64 && text.utf8.allSatisfy { (0x30...0x39).contains($0) || (0x61...0x66).contains($0) }
  }

  package static func pointerKey(channel: String) -> String { "ota/\(channel)/manifest.json" }
  package static func revisionKey(channel: String, revision: Int) -> String {
    "ota/\(channel)/manifest-\(revision).json"
  }

  /// A new channel id: 32 lower-case hex digits from the system's random generator.
  package static func makeChannelID() -> String {
    var generator = SystemRandomNumberGenerator()
    return (0..<16).map { _ in String(format: "%02x", UInt8.random(in: 0...255, using: &generator)) }.joined()
  }

  package static func isChannelID(_ text: String) -> Bool {
    text.utf8.count == 32 && text.utf8.allSatisfy { (0x30...0x39).contains($0) || (0x61...0x66).contains($0) }
  }

  /// `YYYY-MM-DDTHH:MM:SSZ` of `date`, UTC, whole seconds: the form devices read.
  package static func timestamp(_ date: Date) -> String {
    let formatter = DateFormatter()
    formatter.locale = Locale(identifier: "en_US_POSIX")
    formatter.timeZone = TimeZone(identifier: "UTC")
    formatter.dateFormat = "yyyy-MM-dd'T'HH:mm:ss'Z'"
    return formatter.string(from: date)
  }

  /// The date of a `timestamp`, nil when `text` is not of that form.
  package static func date(_ text: String) -> Date? {
    guard text.utf8.count == 20 else { return nil }
    let formatter = DateFormatter()
    formatter.locale = Locale(identifier: "en_US_POSIX")
    formatter.timeZone = TimeZone(identifier: "UTC")
    formatter.dateFormat = "yyyy-MM-dd'T'HH:mm:ss'Z'"
    guard let date = formatter.date(from: text), timestamp(date) == text else { return nil }
    return date
  }

  /// The envelope of `manifest` (made schema 2, expiring at `expires`) signed by every key of
  /// `signers`. It is opened again against `trusted` before it is returned: an envelope no
  /// device would accept is never published (fail closed).
  package static func envelope(
    _ manifest: OTAManifest, expires: Date, signers: [SigningKey], trusted: [PublicKey]
  ) throws -> Data {
    try signed(manifest, expires: expires, signers: signers, trusted: trusted).envelope
  }

  /// `envelope(…)`, with the SHA-256 of its payload (what rollouts.json records as published).
  package static func signed(
    _ manifest: OTAManifest, expires: Date, signers: [SigningKey], trusted: [PublicKey]
  ) throws -> (envelope: Data, payloadSHA256: String) {
    var payload = manifest
    payload.schemaVersion = schemaVersion
    payload.expires = timestamp(expires)
    let bytes = try payload.encoded()
    let envelope = try DSSEEnvelope.sign(payload: bytes, payloadType: payloadType, with: signers).jsonData()
    _ = try open(
      envelope, trusted: trusted, customer: manifest.customer, location: "the envelope just signed")
    return (envelope, SHA256Digest.hex(of: bytes))
  }

  /// Whether a manifest read from the channel offers what `desired` (made from rollouts.json)
  /// does: the schema, expiry and revision aside, which only a new revision changes.
  package static func offersTheSame(_ published: OTAManifest, as desired: OTAManifest) -> Bool {
    var normalized = published
    normalized.schemaVersion = desired.schemaVersion
    normalized.expires = desired.expires
    return normalized.at(revision: desired.revision) == desired
  }

  /// What an envelope read from `location` says, once it is shown to be signed by a trusted
  /// key and to be `customer`'s schema 2 manifest with an expiry; an `unverifiedManifest`
  /// error otherwise. Expiry itself is the caller's to judge (a publisher re-signs an expired
  /// manifest; a monitor warns).
  /// The revision too must be one a device accepts (1 to `maximumRevision`), and the envelope
  /// must verify as a device reads it (`DeviceEnvelope`): a monitor that believed what devices
  /// refuse would say "ok" while every device stood still.
  package static func open(_ data: Data, trusted: [PublicKey], customer: String, location: String) throws
    -> (manifest: OTAManifest, keyIDs: [String], payloadSHA256: String)
  {
    let verified: DSSEEnvelope.Verified
    do {
      verified = try DSSEEnvelope.verify(json: data, payloadType: payloadType, trustedKeys: trusted)
    } catch {
      throw OTAPublishError.unverifiedManifest(location: location, reason: error.description)
    }
    if let refusal = DeviceEnvelope.refusal(of: data, trusted: trusted, payloadType: payloadType) {
      throw OTAPublishError.unverifiedManifest(location: location, reason: refusal)
    }
    let manifest = try OTAManifest.published(
      verified.payload, customer: customer, location: location, schemaVersion: schemaVersion)
    guard let expires = manifest.expires, date(expires) != nil else {
      throw OTAPublishError.unverifiedManifest(
        location: location, reason: "no expires of the form YYYY-MM-DDTHH:MM:SSZ")
    }
    guard (1...maximumRevision).contains(manifest.revision) else {
      throw OTAPublishError.revisionOutOfRange(location: location, revision: manifest.revision)
    }
    return (manifest, verified.keyIDs, SHA256Digest.hex(of: verified.payload))
  }
}
