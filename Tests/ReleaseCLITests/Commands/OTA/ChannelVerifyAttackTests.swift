import Foundation
import ReleaseCLITestSupport
import ReleaseOTA
import ReleaseSigning
import ReleaseSystem
import ReleaseTestSupport
import XCTest

@testable import ReleaseCLI

/// `release ota verify` against what someone who can write the bucket does (issue 30): a
/// pointer moved back to an older signed revision (`--min-revision`), a pointer at revision
/// 2^63 - 1 signed with the real key (refused within seconds), a pointer re-encoded in base64
/// devices do not decode, and a long channel (only the newest 64 revision files are read).
final class ChannelVerifyAttackTests: XCTestCase {
  private let channel = PublishedChannel.channel
  private var pointer: String { "published/ota/\(channel)/manifest.json" }

  func testMinRevisionCatchesAPointerMovedBack() throws {
    let published = try PublishedChannel()
    try published.write(published.pointerPath, try published.read(published.revisionPath(2)))
    try published.remove(published.revisionPath(3))
    let plain = published.run(["ota", "verify", "dir:published"])
    XCTAssertEqual(plain.code, 0, "without a floor, an older signed revision looks fine: \(plain.allOutput)")

    let moved = published.run(["ota", "verify", "dir:published", "--min-revision", "3"])
    XCTAssertEqual(moved.code, 1, moved.allOutput)
    XCTAssertEqual(
      moved.standardError,
      [
        "\(pointer): holds revision 2, below --min-revision 3; expected 3 or above: an older manifest served again",
        "error: ota verify: 1 problem in 1 of 1 channel (acme)",
      ])
    let atFloor = published.run(["ota", "verify", "dir:published", "--min-revision", "2"])
    XCTAssertEqual(atFloor.code, 0, atFloor.allOutput)

    for bad in ["0", "x", "9007199254740992"] {
      let refused = published.run(["ota", "verify", "dir:published", "--min-revision", bad])
      XCTAssertEqual(refused.code, 2, refused.allOutput)
      XCTAssertEqual(
        refused.standardError,
        ["error: --min-revision: expected a whole number from 1 to 9007199254740991, found \"\(bad)\""])
    }
  }

  func testAPointerAtTheLargestIntegerIsRefusedWithinSeconds() throws {
    let published = try PublishedChannel()
    let manifest = try published.manifest(revision: Int.max)
    var payload = manifest
    payload.expires = SignedOTAChannel.timestamp(published.expires)
    let envelope = try DSSEEnvelope.sign(
      payload: try payload.encoded(), payloadType: SignedOTAChannel.payloadType, with: [published.key])
    try published.write(published.pointerPath, try envelope.jsonData())
    let started = Date()
    let result = published.run(["ota", "verify", "dir:published"])
    let seconds = Date().timeIntervalSince(started)
    XCTAssertEqual(result.code, 1, result.allOutput)
    XCTAssertLessThan(seconds, 5, "refused at once, without walking its revisions")
    XCTAssertEqual(
      result.standardError.first,
      "\(pointer): signed by a trusted key, but at revision 9223372036854775807, above 9007199254740991, the largest a device accepts; nothing was published over it: a signing key may have leaked, find out who signed it"
    )
  }

  /// No signature of the payload whose URL-safe base64 differs from its standard one.
  private struct NoURLUnsafeSignature: Error {}

  /// The payload (followed by as many spaces as needed: the same JSON) and its signature by
  /// `key` in URL-safe base64, which differs from the standard form: a signature's standard
  /// base64 holds no '+' or '/' about one time in sixteen, and re-encoding it then changes
  /// nothing.
  private static func urlSafeSignature(of payload: String, key: SigningKey) throws -> (
    payload: String, signature: String
  ) {
    let bytes = try XCTUnwrap(Data(base64Encoded: payload))
    for spaces in 0..<64 {
      let padded = bytes + Data(repeating: UInt8(ascii: " "), count: spaces)
      let envelope = try DSSEEnvelope.sign(
        payload: padded, payloadType: SignedOTAChannel.payloadType, with: [key])
      let standard = try XCTUnwrap(envelope.signatures.first).signature.base64EncodedString()
      if standard.contains(where: { $0 == "+" || $0 == "/" }) {
        let urlSafe = standard.replacingOccurrences(of: "+", with: "-").replacingOccurrences(
          of: "/", with: "_")
        return (padded.base64EncodedString(), urlSafe)
      }
    }
    throw NoURLUnsafeSignature()
  }

  /// The genuine envelope with its base64 re-encoded unpadded or URL-safe: the tool's DSSE
  /// verifier takes it (as the specification allows), devices do not.
  func testBase64DevicesDoNotDecodeIsAProblem() throws {
    let published = try PublishedChannel()
    let envelope = try XCTUnwrap(
      try JSONSerialization.jsonObject(with: try published.read(published.pointerPath)) as? [String: Any])
    let payload = try XCTUnwrap(envelope["payload"] as? String)
    let signature = try XCTUnwrap((envelope["signatures"] as? [[String: Any]])?.first?["sig"] as? String)
    let unpaddedPayload = payload.replacingOccurrences(of: "=", with: "")
    let unpaddedSignature = signature.replacingOccurrences(of: "=", with: "")
    let (resignedPayload, urlSafeSignature) = try Self.urlSafeSignature(of: payload, key: published.key)
    let signatureProblem = "\(pointer): no signature by a trusted key that devices can check"
    let cases: [(name: String, payload: String, signature: String, expected: String)] = [
      (
        "payload unpadded", unpaddedPayload, signature,
        "\(pointer): the payload is not standard base64 with padding, the only form devices decode (found URL-safe or unpadded base64); devices refuse it; expected an envelope of type \(SignedOTAChannel.payloadType) signed by a trusted key (key id \(published.key.keyID.prefix(16)))"
      ),
      ("signature unpadded", payload, unpaddedSignature, signatureProblem),
      ("signature URL-safe", resignedPayload, urlSafeSignature, signatureProblem),
    ]
    for (name, payloadText, signatureText, expected) in cases {
      XCTAssertTrue(payloadText != payload || signatureText != signature, "\(name): re-encoded")
      var changed = envelope
      changed["payload"] = payloadText
      changed["signatures"] = [["keyid": published.key.keyID, "sig": signatureText]]
      let bytes = try JSONSerialization.data(withJSONObject: changed)
      XCTAssertNoThrow(
        try DSSEEnvelope.verify(
          json: bytes, payloadType: SignedOTAChannel.payloadType, trustedKeys: [published.key.publicKey]),
        "\(name): the DSSE verifier takes it")
      try published.write(published.pointerPath, bytes)
      let result = published.run(["ota", "verify", "dir:published"])
      XCTAssertEqual(result.code, 1, "\(name): \(result.allOutput)")
      XCTAssertTrue(result.standardError.first?.hasPrefix(expected) == true, "\(name): \(result.allOutput)")
    }
  }

  func testOnlyTheNewest64RevisionFilesAreRead() throws {
    let published = try PublishedChannel()
    for revision in 4...100 {
      try published.write(published.revisionPath(revision), try published.envelope(revision: revision))
    }
    try published.write(published.pointerPath, try published.envelope(revision: 100))
    // Revision 1, outside the window, replaced by another: not read.
    try published.write(
      published.revisionPath(1), try published.envelope(revision: 1, signer: published.other))
    let result = published.run(["ota", "verify", "dir:published"])
    XCTAssertEqual(result.code, 0, result.allOutput)
    XCTAssertTrue(
      result.standardOutput.first?.hasPrefix("acme: ok, revision 100 (64 revision files verified)") == true,
      result.allOutput)
    // Revision 37, the oldest inside it, replaced: found.
    try published.write(
      published.revisionPath(37), try published.envelope(revision: 37, signer: published.other))
    let inside = published.run(["ota", "verify", "dir:published"])
    XCTAssertEqual(inside.code, 1, inside.allOutput)
    XCTAssertTrue(
      inside.standardError.first?.hasPrefix(
        "published/ota/\(channel)/manifest-37.json: DSSE envelope is signed only")
        == true, inside.allOutput)
  }
}
