import Foundation
import XCTest

@testable import ReleaseSigning

/// Keys and signatures exchanged with the real `openssl` command (OpenSSL 3).
final class OpenSSLInteropTests: XCTestCase {
  func testKeyMadeByOpenSSLParsesAndDerivesTheSamePublicKey() throws {
    let scratch = try Scratch()
    _ = try scratch.succeed("openssl", ["genpkey", "-algorithm", "ed25519", "-out", "key.pem"])
    let publicPEM = try scratch.succeed("openssl", ["pkey", "-in", "key.pem", "-pubout"])
    let key = try SigningKey(pem: scratch.read("key.pem"))
    XCTAssertEqual(key.publicKey, try PublicKey(pem: publicPEM))
    XCTAssertEqual(key.publicKey.pemEncoded, publicPEM)
  }

  func testOurSignatureVerifiesWithOpenSSL() throws {
    let scratch = try Scratch()
    _ = try scratch.succeed("openssl", ["genpkey", "-algorithm", "ed25519", "-out", "key.pem"])
    _ = try scratch.succeed("openssl", ["pkey", "-in", "key.pem", "-pubout", "-out", "key.pub"])
    let key = try SigningKey(pem: scratch.read("key.pem"))
    let message = Data("a release manifest\n".utf8)
    try message.write(to: scratch.url.appendingPathComponent("message"))
    try key.signature(for: message).write(to: scratch.url.appendingPathComponent("message.sig"))
    let verify = [
      "pkeyutl", "-verify", "-pubin", "-inkey", "key.pub", "-rawin", "-in", "message", "-sigfile",
    ]
    XCTAssertTrue(
      try scratch.succeed("openssl", verify + ["message.sig"]).contains("Signature Verified Successfully"))

    // And the other way: OpenSSL's signature verifies here, and a changed message fails both.
    _ = try scratch.succeed(
      "openssl", ["pkeyutl", "-sign", "-inkey", "key.pem", "-rawin", "-in", "message", "-out", "openssl.sig"])
    let theirs = try Data(contentsOf: scratch.url.appendingPathComponent("openssl.sig"))
    XCTAssertTrue(key.publicKey.isValidSignature(theirs, for: message))
    XCTAssertFalse(key.publicKey.isValidSignature(theirs, for: Data("a release manifest!\n".utf8)))
    try Data("a release manifest!\n".utf8).write(to: scratch.url.appendingPathComponent("message"))
    XCTAssertNotEqual(try scratch.run("openssl", verify + ["message.sig"]).exitCode, 0)
  }

  func testOurGeneratedPEMsAreReadByOpenSSL() throws {
    let scratch = try Scratch()
    let key = try SigningKey.generate()
    try scratch.write("ours.pem", key.pemEncoded)
    try scratch.write("ours.pub", key.publicKey.pemEncoded)
    // OpenSSL derives the same public key from our private key file ...
    XCTAssertEqual(
      try scratch.succeed("openssl", ["pkey", "-in", "ours.pem", "-pubout"]), key.publicKey.pemEncoded)
    // ... reads our public key file as Ed25519 ...
    let text = try scratch.succeed("openssl", ["pkey", "-pubin", "-in", "ours.pub", "-noout", "-text"])
    XCTAssertTrue(text.hasPrefix("ED25519 Public-Key:"), text)
    // ... and signs with our private key what we verify.
    try Data("payload".utf8).write(to: scratch.url.appendingPathComponent("payload"))
    _ = try scratch.succeed(
      "openssl",
      ["pkeyutl", "-sign", "-inkey", "ours.pem", "-rawin", "-in", "payload", "-out", "payload.sig"])
    let signature = try Data(contentsOf: scratch.url.appendingPathComponent("payload.sig"))
    XCTAssertTrue(key.publicKey.isValidSignature(signature, for: Data("payload".utf8)))
    #if !canImport(CryptoKit)
      // Both are RFC 8032's deterministic signature.
      XCTAssertEqual(signature, try key.signature(for: Data("payload".utf8)))
    #endif
  }
}
