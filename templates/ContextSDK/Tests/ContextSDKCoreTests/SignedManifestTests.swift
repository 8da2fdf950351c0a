@testable import ContextSDKCore
import Foundation
import XCTest

/// The checks a device makes of a signed manifest before it reads its payload: DSSE's
/// pre-authentication encoding, the envelope's shape and type, key-id matching and Ed25519
/// (RFC 8032's first test vector, on this platform's implementation).
final class SignedManifestTests: XCTestCase {
  private let rfcPublicKey = Data(hexString: "d75a980182b10ab7d54bfed3c964073a0ee172f3daa62325af021a68f707511a")
  private let rfcSignature = Data(
    hexString:
      "e5564300c360ac729086e2cc806e828a84877f1eb8e5d974d873e065224901555fb8821590a33bacc61e39701cf9b46bd25bf5f0595bbe24655141438e7a100b"
  )
  private let payload = Data(#"{"schemaVersion":2}"#.utf8)

  func testRFC8032TestVector1Verifies() {
    XCTAssertTrue(Ed25519.isValidSignature(rfcSignature, of: Data(), publicKey: rfcPublicKey))
    var flipped = rfcSignature
    flipped[0] ^= 1
    XCTAssertFalse(Ed25519.isValidSignature(flipped, of: Data(), publicKey: rfcPublicKey))
    XCTAssertFalse(Ed25519.isValidSignature(rfcSignature, of: Data([0]), publicKey: rfcPublicKey))
    XCTAssertFalse(Ed25519.isValidSignature(rfcSignature.prefix(63), of: Data(), publicKey: rfcPublicKey))
    XCTAssertFalse(Ed25519.isValidSignature(rfcSignature, of: Data(), publicKey: rfcPublicKey.prefix(31)))
  }

  /// The tests' signer is the RFC's: its public key, and (deterministic on libcrypto) its
  /// signature.
  func testTheTestSignerIsRFC8032() {
    XCTAssertEqual(TestSigner.rfc8032.publicKey, rfcPublicKey)
    #if !canImport(CryptoKit)
      XCTAssertEqual(TestSigner.rfc8032.sign(Data()).hexString, rfcSignature.hexString)
    #endif
    XCTAssertTrue(Ed25519.isValidSignature(TestSigner.rfc8032.sign(payload), of: payload, publicKey: rfcPublicKey))
  }

  func testPreAuthenticationEncodingIsDSSEv1() {
    XCTAssertEqual(
      String(
        decoding: SignedManifest.preAuthenticationEncoding(payloadType: "t/x", payload: Data("héllo".utf8)),
        as: UTF8.self), "DSSEv1 3 t/x 6 héllo")
    XCTAssertEqual(
      String(decoding: SignedManifest.preAuthenticationEncoding(payloadType: "", payload: Data()), as: UTF8.self),
      "DSSEv1 0  0 ")
  }

  func testAnEnvelopeSignedByAPinnedKeyGivesItsPayload() throws {
    let envelope = TestSigner.envelope(payload, signedBy: [TestSigner.rfc8032])
    XCTAssertEqual(
      try SignedManifest.verifiedPayload(of: envelope, trustedKeys: [TestSigner.rfc8032.trustedKey]), payload)
    XCTAssertEqual(TestSigner.rfc8032.keyID, SHA256Digest.hex(of: rfcPublicKey))
  }

  /// A signature by another key is ignored, before or after the pinned key's.
  func testSignaturesByOtherKeysAreIgnored() throws {
    let both = TestSigner.envelope(payload, signedBy: [TestSigner.stranger, TestSigner.rfc8032])
    XCTAssertEqual(try SignedManifest.verifiedPayload(of: both, trustedKeys: [TestSigner.rfc8032.trustedKey]), payload)
    let onlyStranger = TestSigner.envelope(payload, signedBy: [TestSigner.stranger])
    XCTAssertThrowsError(
      try SignedManifest.verifiedPayload(of: onlyStranger, trustedKeys: [TestSigner.rfc8032.trustedKey])
    ) { XCTAssertEqual($0 as? ModelManifest.Problem, .untrustedKeys) }
  }

  /// Key rotation: the release adds the new key to `trustedKeys`; once devices carry it, the
  /// manifest is signed by both keys, then by the new one only; the old one is dropped last.
  func testKeyRotation() throws {
    let old = TestSigner.rfc8032
    let next = TestSigner(hex: String(repeating: "43", count: 32))
    let oldPackage = [old.trustedKey]
    let newPackage = [old.trustedKey, next.trustedKey]
    let lastPackage = [next.trustedKey]
    func accepts(_ keys: [TrustedKey], _ signers: [TestSigner]) -> Bool {
      (try? SignedManifest.verifiedPayload(of: TestSigner.envelope(payload, signedBy: signers), trustedKeys: keys))
        == payload
    }
    // Signed by the old key: every package in the field.
    XCTAssertTrue(accepts(oldPackage, [old]))
    XCTAssertTrue(accepts(newPackage, [old]))
    // Signed by both: every package, old or new.
    XCTAssertTrue(accepts(oldPackage, [old, next]))
    XCTAssertTrue(accepts(newPackage, [next, old]))
    // Signed by the new key only: packages that carry it; one that does not changes nothing.
    XCTAssertTrue(accepts(newPackage, [next]))
    XCTAssertTrue(accepts(lastPackage, [next]))
    XCTAssertFalse(accepts(oldPackage, [next]))
    // A package that dropped the old key no longer believes it.
    XCTAssertFalse(accepts(lastPackage, [old]))
  }

  func testRefusals() {
    let keys = [TestSigner.rfc8032.trustedKey]
    func problem(_ envelope: Data, _ trusted: [TrustedKey] = [TestSigner.rfc8032.trustedKey]) -> ModelManifest.Problem?
    {
      do {
        _ = try SignedManifest.verifiedPayload(of: envelope, trustedKeys: trusted)
        return nil
      } catch { return error }
    }
    XCTAssertEqual(problem(TestSigner.envelope(payload, signedBy: [])), .unsigned)
    XCTAssertEqual(
      problem(Data(#"{"payloadType":"application/vnd.contextsdk.ota-manifest+json","payload":"e30="}"#.utf8)), .unsigned
    )
    XCTAssertEqual(problem(Data(#"{"schemaVersion":1}"#.utf8)), .notAnEnvelope)
    XCTAssertEqual(
      problem(
        Data(#"{"payloadType":"application/vnd.contextsdk.ota-manifest+json","payload":"e30","signatures":[]}"#.utf8)),
      .notAnEnvelope, "base64 without padding")
    XCTAssertEqual(
      problem(TestSigner.envelope(payload, signedBy: [TestSigner.rfc8032], payloadType: "application/json")),
      .payloadType("application/json"))
    // The payload changed after signing.
    var object =
      try? JSONSerialization.jsonObject(with: TestSigner.envelope(payload, signedBy: [TestSigner.rfc8032]))
      as? [String: Any]
    object?["payload"] = Data(#"{"schemaVersion":3}"#.utf8).base64EncodedString()
    let changed = (try? JSONSerialization.data(withJSONObject: object ?? [:])) ?? Data()
    XCTAssertEqual(problem(changed, keys), .badSignature)
    // A pinned key whose id is not its SHA-256 trusts nothing.
    let mislabelled = TrustedKey(
      keyID: TestSigner.stranger.keyID, publicKey: TestSigner.rfc8032.publicKey.base64EncodedString())
    var relabelled =
      try? JSONSerialization.jsonObject(with: TestSigner.envelope(payload, signedBy: [TestSigner.rfc8032]))
      as? [String: Any]
    relabelled?["signatures"] = [
      [
        "keyid": TestSigner.stranger.keyID,
        "sig": TestSigner.rfc8032.sign(
          SignedManifest.preAuthenticationEncoding(payloadType: SignedManifest.payloadType, payload: payload)
        ).base64EncodedString(),
      ]
    ]
    XCTAssertEqual(
      problem((try? JSONSerialization.data(withJSONObject: relabelled ?? [:])) ?? Data(), [mislabelled]), .untrustedKeys
    )
  }
}
