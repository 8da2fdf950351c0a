import Foundation
import ReleaseOTA
import ReleaseSigning
import XCTest

/// The signed channel's envelope as the publisher makes and reads it. The device's side is
/// tested in the SDK template; here: what is published verifies with the trusted key only,
/// and anything else is refused before it is believed.
final class SignedOTAChannelTests: XCTestCase {
  /// A manifest as `ota publish` reads one back (schema 1, no expiry): the payload to sign.
  private func manifest(customer: String = "acme") throws -> OTAManifest {
    let json = """
      {"schemaVersion": 1, "customer": "\(customer)", "appID": "A1B2", "revision": 3,
       "flows": {"onboarding_upsell": {"flowId": 8362, "bundledVersion": 73, "paused": false, "models": []}}}
      """
    return try OTAManifest.published(Data(json.utf8), customer: customer, location: "test")
  }

  private let expiry = Date(timeIntervalSince1970: 1_800_000_000)

  func testEnvelopeOpensWithTheTrustedKeyAsSchemaTwoWithItsExpiry() throws {
    let key = try SigningKey.generate()
    let bytes = try SignedOTAChannel.envelope(
      try manifest(), expires: expiry, signers: [key], trusted: [key.publicKey])
    let opened = try SignedOTAChannel.open(bytes, trusted: [key.publicKey], customer: "acme", location: "x")
    XCTAssertEqual(opened.keyIDs, [key.keyID])
    XCTAssertEqual(opened.manifest.revision, 3)
    // 1,800,000,000 s after the epoch is 2027-01-15 08:00:00 UTC.
    XCTAssertEqual(opened.manifest.expires, "2027-01-15T08:00:00Z")
    let payload =
      try JSONSerialization.jsonObject(
        with: try DSSEEnvelope(json: bytes).verify(
          payloadType: "application/vnd.contextsdk.ota-manifest+json", trustedKeys: [key.publicKey]
        ).payload) as? [String: Any]
    XCTAssertEqual(payload?["schemaVersion"] as? Int, 2)
  }

  func testAnotherKeysEnvelopeIsRefused() throws {
    let ours = try SigningKey.generate()
    let theirs = try SigningKey.generate()
    let forged = try SignedOTAChannel.envelope(
      try manifest(), expires: expiry, signers: [theirs], trusted: [theirs.publicKey])
    XCTAssertThrowsError(
      try SignedOTAChannel.open(
        forged, trusted: [ours.publicKey], customer: "acme", location: "bucket/ota/c/manifest.json")
    ) { error in
      guard case OTAPublishError.unverifiedManifest(let location, _) = error else {
        return XCTFail("expected unverifiedManifest, got \(error)")
      }
      XCTAssertEqual(location, "bucket/ota/c/manifest.json")
    }
  }

  func testSigningWithAnUntrustedKeyFailsClosed() throws {
    let trusted = try SigningKey.generate()
    let other = try SigningKey.generate()
    XCTAssertThrowsError(
      try SignedOTAChannel.envelope(
        try manifest(), expires: expiry, signers: [other], trusted: [trusted.publicKey]))
  }

  func testPayloadChangedAfterSigningIsRefused() throws {
    let key = try SigningKey.generate()
    let bytes = try SignedOTAChannel.envelope(
      try manifest(), expires: expiry, signers: [key], trusted: [key.publicKey])
    var object = try XCTUnwrap(try JSONSerialization.jsonObject(with: bytes) as? [String: Any])
    let payload = try XCTUnwrap(Data(base64Encoded: try XCTUnwrap(object["payload"] as? String)))
    let changed = String(decoding: payload, as: UTF8.self).replacingOccurrences(
      of: #""revision"\s*:\s*3"#, with: "\"revision\": 9", options: .regularExpression)
    XCTAssertNotEqual(changed, String(decoding: payload, as: UTF8.self), "the test must change the payload")
    object["payload"] = Data(changed.utf8).base64EncodedString()
    let tampered = try JSONSerialization.data(withJSONObject: object)
    XCTAssertThrowsError(
      try SignedOTAChannel.open(tampered, trusted: [key.publicKey], customer: "acme", location: "x"))
  }

  func testAnotherCustomersManifestIsRefused() throws {
    let key = try SigningKey.generate()
    let bytes = try SignedOTAChannel.envelope(
      try manifest(customer: "globex"), expires: expiry, signers: [key], trusted: [key.publicKey])
    XCTAssertThrowsError(
      try SignedOTAChannel.open(bytes, trusted: [key.publicKey], customer: "acme", location: "x")
    ) {
      XCTAssertTrue("\($0)".contains("globex"), "\($0)")
    }
  }

  func testTimestampsAreWholeSecondsUTCAndOnlyThatFormIsRead() {
    XCTAssertEqual(SignedOTAChannel.timestamp(Date(timeIntervalSince1970: 0.9)), "1970-01-01T00:00:00Z")
    XCTAssertEqual(SignedOTAChannel.date("1970-01-02T00:00:00Z"), Date(timeIntervalSince1970: 86_400))
    for text in [
      "2026-02-30T00:00:00Z", "2026-01-01T00:00:00", "2026-01-01T00:00:00.5Z", "2026-01-01 00:00:00Z", "",
    ] {
      XCTAssertNil(SignedOTAChannel.date(text), text)
    }
  }

  func testChannelIDsAreThirtyTwoHexDigitsAndDoNotRepeat() {
    let ids = (0..<1000).map { _ in SignedOTAChannel.makeChannelID() }
    XCTAssertTrue(ids.allSatisfy(SignedOTAChannel.isChannelID))
    XCTAssertEqual(Set(ids).count, ids.count)
    for text in [
      "acme", String(repeating: "A", count: 32), String(repeating: "0", count: 31),
      String(repeating: "g", count: 32),
    ] {
      XCTAssertFalse(SignedOTAChannel.isChannelID(text), text)
    }
  }
}
