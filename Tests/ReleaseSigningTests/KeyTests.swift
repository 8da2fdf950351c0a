import Foundation
import ReleaseSystem
import XCTest

@testable import ReleaseSigning

final class KeyTests: XCTestCase {
  /// RFC 8032 §7.1, tests 1–3: secret key, public key, message, signature.
  static let rfc8032 = [
    (
      "9d61b19deffd5a60ba844af492ec2cc44449c5697b326919703bac031cae7f60",
      "d75a980182b10ab7d54bfed3c964073a0ee172f3daa62325af021a68f707511a", "",
      "e5564300c360ac729086e2cc806e828a84877f1eb8e5d974d873e065224901555fb8821590a33bacc61e39701cf9b46bd25bf5f0595bbe24655141438e7a100b"
    ),
    (
      "4ccd089b28ff96da9db6c346ec114e0f5b8a319f35aba624da8cf6ed4fb8a6fb",
      "3d4017c3e843895a92b70aa74d1b7ebc9c982ccf2ec4968cc0cd55f12af4660c", "72",
      "92a009a9f0d4cab8720e820b5f642540a2b27b5416503f8fb3762223ebdb69da085ac1e43e15996e458f3613d0f11d8c387b2eaeb4302aeeb00d291612bb0c00"
    ),
    (
      "c5aa8df43f9f837bedb7442f31dcb7b166d38535076f094b85ce3a2e0b4458f7",
      "fc51cd8e6218a1a38da47ed00230f0580816ed13ba3303ac5deb911548908025", "af82",
      "6291d657deec24024827e69c3abe01a30ce548a284743a445e3680d7db5ac3ac18ff9b538d16f290ae67f760984dc6594a7c15e9716ed28dc027beceea1ec40a"
    ),
  ]

  func testRFC8032Vectors() throws {
    for (secret, publicHex, messageHex, signatureHex) in Self.rfc8032 {
      let key = try SigningKey(pem: privateKeyPEM(seedHex: secret))
      XCTAssertEqual(key.publicKey.rawRepresentation.hex, publicHex)
      let message = Data(hex: messageHex)
      let expected = Data(hex: signatureHex)
      let signature = try key.signature(for: message)
      #if canImport(CryptoKit)
        // CryptoKit's Ed25519 signatures are randomized: they verify, but are not RFC 8032's bytes.
        XCTAssertTrue(key.publicKey.isValidSignature(signature, for: message))
      #else
        XCTAssertEqual(signature.hex, signatureHex)
      #endif
      XCTAssertTrue(key.publicKey.isValidSignature(expected, for: message))
      var flipped = expected
      flipped[5] ^= 0x01
      XCTAssertFalse(key.publicKey.isValidSignature(flipped, for: message))
      XCTAssertFalse(key.publicKey.isValidSignature(expected, for: message + Data([0])))
      XCTAssertFalse(key.publicKey.isValidSignature(expected.prefix(63), for: message))
    }
  }

  func testKeyIDIsTheSHA256OfTheRawPublicKey() throws {
    let key = try SigningKey(pem: privateKeyPEM(seedHex: Self.rfc8032[0].0))
    XCTAssertEqual(key.keyID, SHA256Digest.hex(of: Data(hex: Self.rfc8032[0].1)))
    XCTAssertEqual(key.keyID, key.publicKey.keyID)
    XCTAssertEqual(key.keyID.count, 64)
  }

  func testGeneratedKeysRoundTripThroughPEM() throws {
    let key = try SigningKey.generate()
    let other = try SigningKey.generate()
    XCTAssertNotEqual(key.keyID, other.keyID)
    let reread = try SigningKey(pem: key.pemEncoded)
    XCTAssertEqual(reread.publicKey, key.publicKey)
    XCTAssertEqual(try PublicKey(pem: key.publicKey.pemEncoded), key.publicKey)
    let message = Data("release".utf8)
    XCTAssertTrue(key.publicKey.isValidSignature(try reread.signature(for: message), for: message))
    XCTAssertFalse(other.publicKey.isValidSignature(try key.signature(for: message), for: message))
  }

  func testSeveralKeysInOneText() throws {
    let first = try SigningKey.generate()
    let second = try SigningKey.generate()
    let text =
      "# CI secret\n" + first.pemEncoded + "\n\n  "
      + second.pemEncoded.replacingOccurrences(of: "\n", with: "\r\n")
    let keys = try SigningKey.keys(pem: text)
    XCTAssertEqual(keys.map(\.keyID), [first.keyID, second.keyID])
    XCTAssertThrowsError(try SigningKey(pem: text)) { error in
      XCTAssertEqual(error as? KeyError, .moreThanOneKey(count: 2))
    }
  }

  func testPrivateKeyIsNeverPrinted() throws {
    let pem = privateKeyPEM(seedHex: Self.rfc8032[0].0)
    let key = try SigningKey(pem: pem)
    let expected = "SigningKey(\(key.keyID))"
    XCTAssertEqual("\(key)", expected)
    XCTAssertEqual(String(describing: key), expected)
    XCTAssertEqual(String(reflecting: key), expected)
    var dumped = ""
    dump(key, to: &dumped)
    dump([key], to: &dumped)
    for shown in [dumped, "\(key)", String(reflecting: [key]), "\(Optional(key) as Any)"] {
      XCTAssertFalse(shown.lowercased().contains(String(Self.rfc8032[0].0.prefix(16))), shown)
      XCTAssertFalse(shown.contains(String(pem.split(separator: "\n")[1].suffix(20))), shown)
    }
    XCTAssertTrue(dumped.contains(key.keyID))
    XCTAssertFalse(isEncodable(key))
  }

  func testBadPEMIsATypedErrorWithoutKeyBytes() throws {
    let good = privateKeyPEM(seedHex: Self.rfc8032[1].0)
    let body = String(good.split(separator: "\n")[1])
    let publicPEM = try SigningKey(pem: good).publicKey.pemEncoded
    // A PKCS#8 of another algorithm (Ed448's OID).
    let otherDER = Data(hex: "302e020100300506032b657104220420" + Self.rfc8032[1].0).base64EncodedString()
    let cases: [(String, KeyError)] = [
      ("", .noPEMBlock),
      ("not a key at all " + body, .noPEMBlock),
      (publicPEM, .wrongPEMType(expected: .privateKey, found: .publicKey)),
      (
        good.replacingOccurrences(of: "PRIVATE KEY", with: "RSA PRIVATE KEY"),
        .wrongPEMType(expected: .privateKey, found: .other)
      ),
      (
        good.replacingOccurrences(of: "PRIVATE KEY", with: "ENCRYPTED PRIVATE KEY"),
        .wrongPEMType(expected: .privateKey, found: .encryptedPrivateKey)
      ),
      (good.components(separatedBy: "-----END")[0], .truncatedPEM(.privateKey)),
      ("-----BEGIN PRIVATE KEY-----\n" + body + "\n-----END PUBLIC KEY-----\n", .truncatedPEM(.privateKey)),
      (
        "-----BEGIN PRIVATE KEY-----\n" + body.dropLast(6) + "\n-----END PRIVATE KEY-----\n",
        .notBase64(.privateKey)
      ),
      (
        "-----BEGIN PRIVATE KEY-----\n" + otherDER + "\n-----END PRIVATE KEY-----\n", .notEd25519(.privateKey)
      ),
      (
        "-----BEGIN PRIVATE KEY-----\n"
          + Data(hex: "302e020100300506032b657004220420" + Self.rfc8032[1].0 + "00")
          .base64EncodedString() + "\n-----END PRIVATE KEY-----\n", .notEd25519(.privateKey)
      ),
    ]
    for (text, expected) in cases {
      XCTAssertThrowsError(try SigningKey.keys(pem: text), "\(expected)") { error in
        XCTAssertEqual(error as? KeyError, expected)
        let description = "\(error)"
        XCTAssertFalse(description.contains(String(body.suffix(20))), description)
        XCTAssertFalse(description.contains(Self.rfc8032[1].0.prefix(8)), description)
        XCTAssertFalse(description.contains("\n"), description)
      }
    }
    XCTAssertThrowsError(try PublicKey(pem: good)) { error in
      XCTAssertEqual(error as? KeyError, .wrongPEMType(expected: .publicKey, found: .privateKey))
    }
    let shortPublic = Data(hex: "302a300506032b6570032100" + Self.rfc8032[1].1.dropLast(2))
      .base64EncodedString()
    XCTAssertThrowsError(
      try PublicKey(pem: "-----BEGIN PUBLIC KEY-----\n\(shortPublic)\n-----END PUBLIC KEY-----")
    ) { error in XCTAssertEqual(error as? KeyError, .notEd25519(.publicKey)) }
  }
}

/// Asked at run time, so the compiler does not answer it.
private func isEncodable(_ value: Any) -> Bool { value is any Encodable }
