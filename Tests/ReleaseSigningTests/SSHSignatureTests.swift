import Foundation
import XCTest

@testable import ReleaseSigning

/// OpenSSH file signatures, checked against the real `ssh-keygen` (OpenSSH 9.2 here).
final class SSHSignatureTests: XCTestCase {
  let namespace = "contextsdk-release"

  /// A release-sized file that is not a whole number of 64 KiB blocks.
  func writeZip(in scratch: Scratch) throws -> URL {
    var bytes = Data(count: 150_001)
    for index in bytes.indices { bytes[index] = UInt8(truncatingIfNeeded: index &* 131 &+ 3) }
    let url = scratch.url.appendingPathComponent("ContextSDK_Acme-2.4.1.zip")
    try bytes.write(to: url)
    return url
  }

  func testOurSignatureVerifiesWithSSHKeygenAndAChangedFileFails() throws {
    let scratch = try Scratch()
    let zip = try writeZip(in: scratch)
    let key = try SigningKey.generate()
    let armored = try SSHSignature.sign(fileAt: zip, namespace: namespace, with: key)
    try scratch.write("ContextSDK_Acme-2.4.1.zip.sig", armored)
    try scratch.write(
      "allowed_signers",
      key.publicKey.allowedSignersLine(identity: "releases@contextsdk.com", namespace: namespace) + "\n")

    let lines = armored.split(separator: "\n")
    XCTAssertEqual(lines.first, "-----BEGIN SSH SIGNATURE-----")
    XCTAssertEqual(lines.last, "-----END SSH SIGNATURE-----")
    XCTAssertTrue(lines.dropFirst().dropLast().dropLast().allSatisfy { $0.count == 70 })

    let verify = [
      "-Y", "verify", "-f", "allowed_signers", "-I", "releases@contextsdk.com", "-n", namespace, "-s",
      "ContextSDK_Acme-2.4.1.zip.sig",
    ]
    let good = try scratch.run("ssh-keygen", verify, stdin: "ContextSDK_Acme-2.4.1.zip")
    XCTAssertEqual(good.exitCode, 0, good.standardError)
    XCTAssertTrue(good.standardOutput.contains(key.publicKey.sshFingerprint), good.standardOutput)
    XCTAssertEqual(
      try SSHSignature.verify(armored, ofFileAt: zip, namespace: namespace, trustedKeys: [key.publicKey]),
      key.publicKey)

    // The same bytes in memory give the same verdict.
    let bytes = try Data(contentsOf: zip)
    XCTAssertEqual(
      try SSHSignature.verify(armored, of: bytes, namespace: namespace, trustedKeys: [key.publicKey]),
      key.publicKey)

    // Another purpose is refused by both.
    let otherNamespace = try scratch.run(
      "ssh-keygen", verify.map { $0 == namespace ? "git" : $0 }, stdin: "ContextSDK_Acme-2.4.1.zip")
    XCTAssertNotEqual(otherNamespace.exitCode, 0)
    XCTAssertThrowsError(
      try SSHSignature.verify(armored, of: bytes, namespace: "git", trustedKeys: [key.publicKey])
    ) { error in
      XCTAssertEqual(error as? SSHSignatureError, .wrongNamespace(expected: "git", found: namespace))
    }

    // One byte changed.
    var changed = bytes
    changed[70_000] ^= 0x01
    try changed.write(to: zip)
    XCTAssertNotEqual(try scratch.run("ssh-keygen", verify, stdin: "ContextSDK_Acme-2.4.1.zip").exitCode, 0)
    XCTAssertThrowsError(
      try SSHSignature.verify(armored, ofFileAt: zip, namespace: namespace, trustedKeys: [key.publicKey])
    ) { error in
      XCTAssertEqual(error as? SSHSignatureError, .badSignature(fingerprint: key.publicKey.sshFingerprint))
    }
  }

  func testFingerprintIsWhatSSHKeygenPrints() throws {
    let scratch = try Scratch()
    let key = try SigningKey.generate()
    try scratch.write("key.pub", key.publicKey.openSSHPublicKey + "\n")
    let printed = try scratch.succeed("ssh-keygen", ["-l", "-f", "key.pub"])
    // "256 SHA256:<fingerprint> no comment (ED25519)"
    let fields = printed.split(separator: " ")
    XCTAssertEqual(fields.count >= 2 ? String(fields[1]) : printed, key.publicKey.sshFingerprint)
    XCTAssertTrue(printed.hasSuffix("(ED25519)\n"), printed)
  }

  func testSignatureMadeBySSHKeygenVerifiesHere() throws {
    let scratch = try Scratch()
    let zip = try writeZip(in: scratch)
    _ = try scratch.succeed(
      "ssh-keygen", ["-q", "-t", "ed25519", "-N", "", "-C", "vendor", "-f", "id_ed25519"])
    _ = try scratch.succeed(
      "ssh-keygen", ["-Y", "sign", "-f", "id_ed25519", "-n", namespace, zip.lastPathComponent])
    let armored = try scratch.read(zip.lastPathComponent + ".sig")
    let publicKey = try PublicKey(openSSH: scratch.read("id_ed25519.pub"))

    XCTAssertEqual(
      try SSHSignature.verify(armored, ofFileAt: zip, namespace: namespace, trustedKeys: [publicKey]),
      publicKey)
    // Our rendering of the same key is what ssh-keygen wrote, less the comment.
    XCTAssertEqual(try scratch.read("id_ed25519.pub"), publicKey.openSSHPublicKey + " vendor\n")

    let stranger = try SigningKey.generate().publicKey
    XCTAssertThrowsError(
      try SSHSignature.verify(armored, ofFileAt: zip, namespace: namespace, trustedKeys: [stranger])
    ) { error in
      XCTAssertEqual(error as? SSHSignatureError, .untrustedKey(fingerprint: publicKey.sshFingerprint))
    }
    var changed = try Data(contentsOf: zip)
    changed[0] ^= 0x80
    XCTAssertThrowsError(
      try SSHSignature.verify(armored, of: changed, namespace: namespace, trustedKeys: [publicKey]))
  }

  func testMalformedSignaturesAreRefused() throws {
    let key = try SigningKey.generate()
    let data = Data("zip".utf8)
    let armored = try SSHSignature.sign(data, namespace: namespace, with: key)
    let body = armored.split(separator: "\n").dropFirst().dropLast().joined()
    var blob = Data(base64Encoded: body)!
    let rearmor = { (blob: Data) in
      "-----BEGIN SSH SIGNATURE-----\n\(blob.base64EncodedString())\n-----END SSH SIGNATURE-----\n"
    }
    XCTAssertEqual(
      try SSHSignature.verify(rearmor(blob), of: data, namespace: namespace, trustedKeys: [key.publicKey]),
      key.publicKey)

    var wrongMagic = blob
    wrongMagic[0] = UInt8(ascii: "X")
    var trailing = blob
    trailing.append(0)
    blob.removeLast(10)
    let cases = [
      "", "hello", String(armored.dropLast(30)),
      armored.replacingOccurrences(of: "BEGIN SSH", with: "BEGIN PGP"),
      rearmor(wrongMagic), rearmor(trailing), rearmor(blob),
    ]
    for text in cases {
      XCTAssertThrowsError(
        try SSHSignature.verify(text, of: data, namespace: namespace, trustedKeys: [key.publicKey]), text
      ) { error in
        guard case .malformed = error as? SSHSignatureError else { return XCTFail("\(error)") }
        XCTAssertFalse("\(error)".contains("\n"))
      }
    }
  }

  func testAllowedSignersIdentityIsOneWord() throws {
    let key = try SigningKey.generate().publicKey
    XCTAssertEqual(
      try key.allowedSignersLine(identity: "releases@contextsdk.com", namespace: "contextsdk-release"),
      "releases@contextsdk.com namespaces=\"contextsdk-release\" " + key.openSSHPublicKey)
    for identity in ["", "two words", "tab\there", "quote\"d", "new\nline", "#comment"] {
      XCTAssertThrowsError(try key.allowedSignersLine(identity: identity, namespace: "contextsdk-release")) {
        error in
        XCTAssertEqual(error as? SSHSignatureError, .invalidIdentity)
      }
    }
  }
}
