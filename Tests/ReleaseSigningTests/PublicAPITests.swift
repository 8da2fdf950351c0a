import Foundation
import ReleaseSigning
import XCTest

/// Only the public API (no `@testable`), used as the commands will: proves other modules can.
final class PublicAPITests: XCTestCase {
  func testGenerateThenSignAndVerifyAManifestAndAZip() throws {
    let scratch = try Scratch()
    // `release keys generate`: both halves written, then read back as configuration and CI do.
    let generated = try SigningKey.generate()
    try scratch.write("signing.pem", generated.pemEncoded)
    try scratch.write("signing.pub", generated.publicKey.pemEncoded)
    let keys = try SigningKey.keys(pem: scratch.read("signing.pem"))
    let trusted = [try PublicKey(pem: scratch.read("signing.pub"))]
    XCTAssertEqual(keys.map(\.keyID), trusted.map(\.keyID))

    // `ota publish`: an envelope written, then verified before upload and by `ota verify`.
    let type = "application/vnd.contextsdk.ota-manifest+json"
    let manifest = Data(#"{"schemaVersion":2}"#.utf8)
    let json = try DSSEEnvelope.sign(payload: manifest, payloadType: type, with: keys).jsonData()
    let verified = try DSSEEnvelope.verify(json: json, payloadType: type, trustedKeys: trusted)
    XCTAssertEqual(verified.payload, manifest)
    XCTAssertEqual(verified.keyIDs, [generated.keyID])

    // Publishing a zip and `release verify` of it; the line a customer puts in allowed_signers.
    let zip = scratch.url.appendingPathComponent("ContextSDK_Acme-2.4.1.zip")
    try Data("zip".utf8).write(to: zip)
    let signature = try SSHSignature.sign(fileAt: zip, namespace: "contextsdk-release", with: keys[0])
    let signer = try SSHSignature.verify(
      signature, ofFileAt: zip, namespace: "contextsdk-release", trustedKeys: trusted)
    XCTAssertEqual(signer, trusted[0])
    XCTAssertTrue(signer.sshFingerprint.hasPrefix("SHA256:"))
    XCTAssertTrue(
      try signer.allowedSignersLine(identity: "releases", namespace: "contextsdk-release").hasPrefix(
        "releases namespaces=\"contextsdk-release\" ssh-ed25519 AAAA"))
  }
}
