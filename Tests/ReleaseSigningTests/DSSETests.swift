import Foundation
import XCTest

@testable import ReleaseSigning

final class DSSETests: XCTestCase {
  let type = "application/vnd.contextsdk.ota-manifest+json"
  let payload = Data(#"{"revision":3,"schemaVersion":2}"#.utf8)

  func testPreAuthenticationEncodingOfTheSpecificationsExample() {
    let encoding = DSSEEnvelope.preAuthenticationEncoding(
      payloadType: "http://example.com/HelloWorld", payload: Data("hello world".utf8))
    XCTAssertEqual(
      String(decoding: encoding, as: UTF8.self), "DSSEv1 29 http://example.com/HelloWorld 11 hello world")
    // Lengths count bytes, not characters.
    let multibyte = DSSEEnvelope.preAuthenticationEncoding(payloadType: "é", payload: Data([0, 0xff]))
    XCTAssertEqual(multibyte, Data("DSSEv1 2 é 2 ".utf8) + Data([0, 0xff]))
  }

  func testSignedEnvelopeRoundTripsThroughJSON() throws {
    let key = try SigningKey.generate()
    let envelope = try DSSEEnvelope.sign(payload: payload, payloadType: type, with: [key])
    let json = try envelope.jsonData()
    XCTAssertEqual(try envelope.jsonData(), json)

    let object = try JSONSerialization.jsonObject(with: json) as? [String: Any]
    XCTAssertEqual(Set(object?.keys.map { $0 } ?? []), ["payloadType", "payload", "signatures"])
    XCTAssertEqual(object?["payloadType"] as? String, type)
    XCTAssertEqual(object?["payload"] as? String, payload.base64EncodedString())
    let signatures = object?["signatures"] as? [[String: String]]
    XCTAssertEqual(signatures?.count, 1)
    XCTAssertEqual(signatures?.first?["keyid"], key.keyID)
    // The signature is Ed25519 over the PAE, checked here without the envelope's own verifier.
    let signature = Data(base64Encoded: signatures?.first?["sig"] ?? "")
    let pae = Data("DSSEv1 \(type.utf8.count) \(type) \(payload.count) ".utf8) + payload
    XCTAssertTrue(key.publicKey.isValidSignature(signature ?? Data(), for: pae))

    let verified = try DSSEEnvelope.verify(json: json, payloadType: type, trustedKeys: [key.publicKey])
    XCTAssertEqual(verified.payload, payload)
    XCTAssertEqual(verified.keyIDs, [key.keyID])
  }

  func testEveryTrustedSignerIsReportedAndUntrustedOnesIgnored() throws {
    let old = try SigningKey.generate()
    let new = try SigningKey.generate()
    let stranger = try SigningKey.generate()
    let envelope = try DSSEEnvelope.sign(payload: payload, payloadType: type, with: [old, new, stranger])
    XCTAssertEqual(
      try envelope.verify(payloadType: type, trustedKeys: [new.publicKey, old.publicKey]).keyIDs,
      [old.keyID, new.keyID])
    XCTAssertEqual(try envelope.verify(payloadType: type, trustedKeys: [new.publicKey]).keyIDs, [new.keyID])
  }

  func testUntrustedKeyIsRefused() throws {
    let trusted = try SigningKey.generate()
    let stranger = try SigningKey.generate()
    let envelope = try DSSEEnvelope.sign(payload: payload, payloadType: type, with: [stranger])
    XCTAssertThrowsError(try envelope.verify(payloadType: type, trustedKeys: [trusted.publicKey])) { error in
      XCTAssertEqual(error as? DSSEError, .unknownKeys([stranger.keyID]))
    }
    let unsigned = DSSEEnvelope(payloadType: type, payload: payload, signatures: [])
    XCTAssertThrowsError(try unsigned.verify(payloadType: type, trustedKeys: [trusted.publicKey])) { error in
      XCTAssertEqual(error as? DSSEError, .unknownKeys([]))
    }
    XCTAssertThrowsError(try envelope.verify(payloadType: type, trustedKeys: [])) { error in
      XCTAssertEqual(error as? DSSEError, .unknownKeys([stranger.keyID]))
    }
  }

  func testChangedPayloadIsRefused() throws {
    let key = try SigningKey.generate()
    var envelope = try DSSEEnvelope.sign(payload: payload, payloadType: type, with: [key])
    envelope.payload = Data(#"{"revision":4,"schemaVersion":2}"#.utf8)
    XCTAssertThrowsError(try envelope.verify(payloadType: type, trustedKeys: [key.publicKey])) { error in
      XCTAssertEqual(error as? DSSEError, .badSignature(keyIDs: [key.keyID]))
    }
    // The same through JSON, edited as an attacker would.
    let good = try DSSEEnvelope.sign(payload: payload, payloadType: type, with: [key])
    let json = String(decoding: try good.jsonData(), as: UTF8.self).replacingOccurrences(
      of: payload.base64EncodedString(),
      with: Data(#"{"revision":1,"schemaVersion":2}"#.utf8).base64EncodedString())
    XCTAssertThrowsError(
      try DSSEEnvelope.verify(json: Data(json.utf8), payloadType: type, trustedKeys: [key.publicKey])
    ) { error in
      XCTAssertEqual(error as? DSSEError, .badSignature(keyIDs: [key.keyID]))
    }
  }

  func testChangedPayloadTypeIsRefused() throws {
    let key = try SigningKey.generate()
    let index = "application/vnd.contextsdk.release-index+json"
    var envelope = try DSSEEnvelope.sign(payload: payload, payloadType: index, with: [key])
    // Signed for another type: refused when a manifest is expected.
    XCTAssertThrowsError(try envelope.verify(payloadType: type, trustedKeys: [key.publicKey])) { error in
      XCTAssertEqual(error as? DSSEError, .wrongPayloadType(expected: type, found: index))
    }
    // The type relabelled after signing: the signature covers it.
    envelope.payloadType = type
    XCTAssertThrowsError(try envelope.verify(payloadType: type, trustedKeys: [key.publicKey])) { error in
      XCTAssertEqual(error as? DSSEError, .badSignature(keyIDs: [key.keyID]))
    }
  }

  func testOneGoodTrustedSignatureBesideJunkFromAnUntrustedKeyIsAccepted() throws {
    let key = try SigningKey.generate()
    var envelope = try DSSEEnvelope.sign(payload: payload, payloadType: type, with: [key])
    envelope.signatures.insert(
      .init(keyID: String(repeating: "ab", count: 32), signature: Data(repeating: 7, count: 64)), at: 0)
    envelope.signatures.append(.init(keyID: "", signature: Data("junk".utf8)))
    let reread = try DSSEEnvelope(json: envelope.jsonData())
    XCTAssertEqual(reread, envelope)
    let verified = try reread.verify(payloadType: type, trustedKeys: [key.publicKey])
    XCTAssertEqual(verified.payload, payload)
    XCTAssertEqual(verified.keyIDs, [key.keyID])
  }

  func testMalformedEnvelopesAreRefused() throws {
    let key = try SigningKey.generate()
    let cases = [
      "", "[]", #"{"payloadType":"t","payload":"aGk="}"#,
      #"{"payloadType":"t","payload":"not base64!","signatures":[]}"#,
      #"{"payloadType":"t","payload":"aGk=","signatures":[{"keyid":"k","sig":"%%%"}]}"#,
      #"{"payloadType":7,"payload":"aGk=","signatures":[]}"#,
    ]
    for text in cases {
      XCTAssertThrowsError(
        try DSSEEnvelope.verify(json: Data(text.utf8), payloadType: "t", trustedKeys: [key.publicKey]), text
      ) { error in
        guard case .malformed = error as? DSSEError else { return XCTFail("\(text): \(error)") }
      }
    }
    // URL-safe base64 without padding is read, as the specification asks of a verifier.
    let envelope = try DSSEEnvelope.sign(payload: Data([0xfb, 0xff]), payloadType: "t", with: [key])
    let urlSafe =
      #"{"payloadType":"t","payload":"-_8","signatures":[{"keyid":"\#(key.keyID)","sig":"\#(envelope.signatures[0].signature.base64EncodedString())"}]}"#
    XCTAssertEqual(
      try DSSEEnvelope.verify(json: Data(urlSafe.utf8), payloadType: "t", trustedKeys: [key.publicKey])
        .payload,
      Data([0xfb, 0xff]))
  }
}

extension DSSETests {
  func testRefusalsAreOneLineAndShowEnvelopeValuesShortened() {
    let noisy = DSSEError.unknownKeys(["a\nb", String(repeating: "c", count: 500), "d", "e"])
    XCTAssertFalse(noisy.description.contains("\n"), noisy.description)
    XCTAssertLessThan(noisy.description.count, 300)
    XCTAssertTrue(noisy.description.hasSuffix(" and 1 more"), noisy.description)
    let type = DSSEError.wrongPayloadType(expected: "t", found: "x\ny")
    XCTAssertEqual(type.description, #"DSSE payloadType is "x y", expected "t""#)
  }
}
