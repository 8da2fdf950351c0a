import Foundation
import ReleaseCLITestSupport
import ReleaseJSON
import ReleaseManifest
import ReleaseSettings
import ReleaseSigning
import ReleaseSystem
import ReleaseTestSupport
import XCTest

@testable import ReleaseCLI

/// `release keys generate`, `allowed-signers` and `check`, against OpenSSL and OpenSSH.
final class KeysCommandTests: XCTestCase {
  private var directory: TemporaryDirectory!
  private var root: URL { directory.url }

  override func setUpWithError() throws {
    directory = try TemporaryDirectory()
  }

  override func tearDown() {
    directory = nil
  }

  private func run(_ arguments: [String], environment: [String: String] = [:]) -> InProcessCLI.Run {
    // An empty RELEASE_SIGNING_KEY counts as none: the test process's own never leaks in.
    // `keys generate` asks git whether it ignores the private key (the real git).
    InProcessCLI.run(
      arguments, root: root, environment: ["RELEASE_SIGNING_KEY": ""].merging(environment) { $1 },
      processRunner: .realGit())
  }

  private func writeConfiguration(_ text: String, to name: String = "release.config.json") throws {
    try text.write(to: root.appendingPathComponent(name), atomically: true, encoding: .utf8)
  }

  private func text(_ path: String) throws -> String {
    try String(contentsOf: root.appendingPathComponent(path), encoding: .utf8)
  }

  // MARK: generate

  func testGenerateWritesAPrivateKeyOnlyTheOwnerReadsAndItsPublicHalf() throws {
    let result = run(["keys", "generate", "keys", "--name", "ota-2026"])
    XCTAssertEqual(result.code, 0, result.allOutput)
    let attributes = try FileManager.default.attributesOfItem(
      atPath: root.appendingPathComponent("keys/ota-2026.pem").path)
    XCTAssertEqual(
      (attributes[.posixPermissions] as? NSNumber)?.intValue, 0o600, "the private key is mode 0600")

    // OpenSSL reads the private key and derives exactly the .pub written beside it.
    let derived = try KeysTestSupport.tool(
      "openssl", ["pkey", "-in", "keys/ota-2026.pem", "-pubout"], in: root)
    XCTAssertEqual(derived.exitCode, 0, derived.standardError)
    XCTAssertEqual(derived.standardOutput, try text("keys/ota-2026.pub"))

    let key = try PublicKey(pem: try text("keys/ota-2026.pub"))
    let output = result.standardOutput.joined(separator: "\n")
    XCTAssertTrue(output.contains("key id \(key.keyID)"), output)
    XCTAssertTrue(output.contains("keys/ota-2026.pub") && output.contains("signing.trustedKeys"), output)
    XCTAssertTrue(output.contains("keys/ota-2026.pem") && output.contains("RELEASE_SIGNING_KEY"), output)
    XCTAssertTrue(output.contains("never commit"), output)
    for line in KeysTestSupport.secretLines(ofPEM: try text("keys/ota-2026.pem")) {
      XCTAssertFalse(result.allOutput.contains(line), "the private key is printed")
    }
    // No temporary file is left beside the keys.
    XCTAssertEqual(
      try FileManager.default.contentsOfDirectory(atPath: root.appendingPathComponent("keys").path).sorted(),
      ["ota-2026.pem", "ota-2026.pub"])
  }

  func testGenerateDefaultsToTheNameSigning() throws {
    XCTAssertEqual(run(["keys", "generate", "."]).code, 0)
    XCTAssertNoThrow(try SigningKey(pem: try text("signing.pem")))
    XCTAssertNoThrow(try PublicKey(pem: try text("signing.pub")))
  }

  func testGenerateNeverOverwritesAKey() throws {
    XCTAssertEqual(run(["keys", "generate", "keys"]).code, 0)
    let before = Workspace.snapshot(root)

    let again = run(["keys", "generate", "keys"])
    XCTAssertEqual(again.code, 2)
    XCTAssertEqual(again.standardError.count, 1, again.allOutput)
    XCTAssertTrue(again.allOutput.contains("keys/signing.pem already exists"), again.allOutput)
    XCTAssertEqual(Workspace.snapshot(root), before, "the existing pair is untouched")

    // Only the .pub exists: refused too, and no lone private key is written.
    try FileManager.default.removeItem(at: root.appendingPathComponent("keys/signing.pem"))
    let lonePublic = run(["keys", "generate", "keys"])
    XCTAssertEqual(lonePublic.code, 2)
    XCTAssertTrue(lonePublic.allOutput.contains("keys/signing.pub already exists"), lonePublic.allOutput)
    XCTAssertFalse(
      FileManager.default.fileExists(atPath: root.appendingPathComponent("keys/signing.pem").path))
  }

  func testGenerateRefusesBadArguments() {
    for (arguments, expected) in [
      (["keys", "generate"], "expected one directory, found nothing"),
      (["keys", "generate", "keys", "--name", "../x"], "--name ../x: expected letters"),
      (["keys", "generate", "keys", "--name", ".hidden"], "--name .hidden"),
      (["keys", "nope"], "'nope' is not a subcommand"),
    ] {
      let result = run(arguments)
      XCTAssertEqual(result.code, 2, "\(arguments)")
      XCTAssertEqual(result.standardError.count, 1, result.allOutput)
      XCTAssertTrue(result.allOutput.contains(expected), "\(arguments): \(result.allOutput)")
    }
  }

  // MARK: allowed-signers

  func testAllowedSignersLineVerifiesAReleaseSignatureWithSSHKeygen() throws {
    XCTAssertEqual(run(["keys", "generate", "keys", "--name", "old"]).code, 0)
    XCTAssertEqual(run(["keys", "generate", "keys", "--name", "new"]).code, 0)
    try writeConfiguration(#"{"signing": {"trustedKeys": ["keys/old.pub", "keys/new.pub"]}}"#)

    let printed = run(["keys", "allowed-signers", "--identity", "releases@example.com"])
    XCTAssertEqual(printed.code, 0, printed.allOutput)
    let lines = printed.standardOutput.filter { !$0.hasPrefix("#") }
    XCTAssertEqual(lines.count, 2, "one line per trusted key")
    for name in ["old", "new"] {
      let key = try PublicKey(pem: try text("keys/\(name).pub"))
      XCTAssertTrue(
        lines.contains("releases@example.com namespaces=\"contextsdk-release\" \(key.openSSHPublicKey)"),
        printed.allOutput)
      XCTAssertTrue(
        printed.standardOutput.contains { $0.hasPrefix("#") && $0.contains(key.sshFingerprint) },
        "the fingerprint of \(name) is named")
    }
    let allowedSigners = root.appendingPathComponent("allowed_signers")
    try printed.standardOutput.joined(separator: "\n").appending("\n").write(
      to: allowedSigners, atomically: true, encoding: .utf8)

    // A release signed (SSHSIG) with the new key, as publishing will sign it.
    let zip = root.appendingPathComponent("ContextSDK_Acme-2.4.1.zip")
    try Data((0..<4096).map { UInt8(truncatingIfNeeded: $0 &* 31) }).write(to: zip)
    let signingKey = try SigningKey(pem: try text("keys/new.pem"))
    try SSHSignature.sign(fileAt: zip, namespace: "contextsdk-release", with: signingKey).write(
      to: root.appendingPathComponent("ContextSDK_Acme-2.4.1.zip.sig"), atomically: true, encoding: .utf8)

    let verify = KeysTestSupport.sshVerifyArguments(
      identity: "releases@example.com", signature: "ContextSDK_Acme-2.4.1.zip.sig")
    let good = try KeysTestSupport.tool("ssh-keygen", verify, in: root, input: zip)
    XCTAssertEqual(good.exitCode, 0, good.standardOutput + good.standardError)
    XCTAssertTrue(good.standardOutput.contains("Good \"contextsdk-release\" signature"), good.standardOutput)

    // One byte changed: refused.
    var bytes = try Data(contentsOf: zip)
    bytes[100] ^= 1
    try bytes.write(to: zip)
    XCTAssertNotEqual(try KeysTestSupport.tool("ssh-keygen", verify, in: root, input: zip).exitCode, 0)
  }

  func testAllowedSignersDefaultIdentityAndNoTrustedKeys() throws {
    XCTAssertEqual(run(["keys", "generate", "keys"]).code, 0)
    let none = run(["keys", "allowed-signers"])
    XCTAssertEqual(none.code, 2)
    XCTAssertEqual(none.standardError.count, 1, none.allOutput)
    XCTAssertTrue(none.allOutput.contains("trusts no key"), none.allOutput)
    XCTAssertTrue(none.allOutput.contains("release keys generate keys"), none.allOutput)

    try writeConfiguration(#"{"signing": {"trustedKeys": ["keys/signing.pub"]}}"#)
    let printed = run(["keys", "allowed-signers"])
    XCTAssertEqual(printed.code, 0, printed.allOutput)
    XCTAssertTrue(
      printed.standardOutput.contains {
        $0.hasPrefix("\(KeysCommand.defaultIdentity) namespaces=\"contextsdk-release\" ssh-ed25519 ")
      })

    let badIdentity = run(["keys", "allowed-signers", "--identity", "two words"])
    XCTAssertEqual(badIdentity.code, 2)
    XCTAssertTrue(badIdentity.allOutput.contains("--identity two words"), badIdentity.allOutput)
  }

  // MARK: trusted keys in release.config.json

  func testTrustedKeyProblemsNameTheConfigurationKeyAndFile() throws {
    XCTAssertEqual(run(["keys", "generate", "keys"]).code, 0)
    try "not a key\n".write(
      to: root.appendingPathComponent("keys/garbage.pub"), atomically: true, encoding: .utf8)
    let cases: [(String, String)] = [
      (
        #"{"signing": {"trustedKeys": ["keys/signing.pub", "keys/missing.pub"]}}"#,
        "release.config.json: signing.trustedKeys[1]: keys/missing.pub: no such file"
      ),
      (
        #"{"signing": {"trustedKeys": ["keys/signing.pem"]}}"#,
        "release.config.json: signing.trustedKeys[0]: keys/signing.pem: not an Ed25519 public key (expected a PUBLIC KEY PEM block, found PRIVATE KEY)"
      ),
      (
        #"{"signing": {"trustedKeys": ["keys/garbage.pub"]}}"#,
        "release.config.json: signing.trustedKeys[0]: keys/garbage.pub: not an Ed25519 public key (no PEM block"
      ),
    ]
    for (configuration, expected) in cases {
      try writeConfiguration(configuration)
      let result = run(["keys", "allowed-signers"])
      XCTAssertEqual(result.code, 2, configuration)
      XCTAssertEqual(result.standardError.count, 1, result.allOutput)
      XCTAssertTrue(result.allOutput.contains(expected), "\(configuration):\n\(result.allOutput)")
      for line in KeysTestSupport.secretLines(ofPEM: try text("keys/signing.pem")) {
        XCTAssertFalse(result.allOutput.contains(line), "a private key named as a trusted one is printed")
      }
    }
  }

  func testSigningSectionIsDecodedWithEveryProblemAndItsPath() throws {
    let configuration = """
      {
        "signing": {"trustedKeys": ["keys/a.pub", 3, ""], "trustedkeys": []},
        "publish": {"destinations": ["dir:out"]}
      }
      """
    let failure = try XCTUnwrap(
      catchValidation {
        _ = try ReleaseConfiguration.parse(Data(configuration.utf8), displayPath: "release.config.json")
      })
    let lines = failure.diagnostics.map(\.description)
    XCTAssertEqual(lines.count, 3, lines.joined(separator: "\n"))
    XCTAssertTrue(
      lines.contains { $0.contains("signing.trustedKeys[1]") && $0.contains("found 3") }, "\(lines)")
    XCTAssertTrue(
      lines.contains { $0.contains("signing.trustedKeys[2]") && $0.contains("non-empty string") }, "\(lines)")
    XCTAssertTrue(
      lines.contains { $0.contains("signing.trustedkeys") && $0.contains("did you mean \"trustedKeys\"") },
      "\(lines)")

    let good = try ReleaseConfiguration.parse(
      Data(#"{"signing": {"trustedKeys": ["keys/a.pub", "keys/b.pub"]}}"#.utf8), displayPath: "c.json")
    XCTAssertEqual(good.trustedKeys, ["keys/a.pub", "keys/b.pub"])
    let wrongType = catchValidation {
      _ = try ReleaseConfiguration.parse(
        Data(#"{"signing": {"trustedKeys": "keys/a.pub"}}"#.utf8), displayPath: "c.json")
    }
    XCTAssertEqual(wrongType?.diagnostics.count, 1)
    XCTAssertTrue(wrongType?.diagnostics.first?.description.contains("signing.trustedKeys") == true)
  }

  private func catchValidation(_ body: () throws -> Void) -> ValidationFailure? {
    do { try body() } catch let failure as ValidationFailure { return failure } catch {
      XCTFail("not a ValidationFailure: \(error)")
    }
    return nil
  }

  func testTrustedKeyPathsAreRelativeToTheConfigurationFile() throws {
    XCTAssertEqual(run(["keys", "generate", "ci/keys"]).code, 0)
    try writeConfiguration(#"{"signing": {"trustedKeys": ["keys/signing.pub"]}}"#, to: "ci/release.json")
    let result = run(["keys", "allowed-signers", "--config", "ci/release.json"])
    XCTAssertEqual(result.code, 0, result.allOutput)
    let key = try PublicKey(pem: try text("ci/keys/signing.pub"))
    XCTAssertTrue(
      result.standardOutput.contains(
        "\(KeysCommand.defaultIdentity) namespaces=\"contextsdk-release\" \(key.openSSHPublicKey)"),
      result.allOutput)
  }

  // MARK: private keys

  func testAPrivateKeyThatIsNotTrustedIsRefusedWithoutShowingIt() throws {
    XCTAssertEqual(run(["keys", "generate", "keys", "--name", "trusted"]).code, 0)
    XCTAssertEqual(run(["keys", "generate", "keys", "--name", "stranger"]).code, 0)
    try writeConfiguration(#"{"signing": {"trustedKeys": ["keys/trusted.pub"]}}"#)
    let stranger = try text("keys/stranger.pem")
    let strangerID = try SigningKey(pem: stranger).keyID
    let trusted = try text("keys/trusted.pem")

    let runs = [
      ("--signing-key", run(["keys", "check", "--signing-key", "keys/stranger.pem"])),
      ("RELEASE_SIGNING_KEY", run(["keys", "check"], environment: ["RELEASE_SIGNING_KEY": stranger])),
      // A trusted key beside an untrusted one: still refused, naming the one.
      (
        "RELEASE_SIGNING_KEY (key 2 of 2)",
        run(["keys", "check"], environment: ["RELEASE_SIGNING_KEY": trusted + "\n" + stranger])
      ),
    ]
    for (source, result) in runs {
      XCTAssertEqual(result.code, 2, source)
      XCTAssertEqual(result.standardError.count, 1, result.allOutput)
      XCTAssertTrue(result.allOutput.contains(source), "\(source): \(result.allOutput)")
      XCTAssertTrue(
        result.allOutput.contains("key \(strangerID) is not among release.config.json's signing.trustedKeys"))
      for line in KeysTestSupport.secretLines(ofPEM: stranger) + KeysTestSupport.secretLines(ofPEM: trusted) {
        XCTAssertFalse(result.allOutput.contains(line), "\(source): key material in the output")
      }
      XCTAssertFalse(result.allOutput.contains("PRIVATE KEY"), result.allOutput)
    }
  }

  func testTheEnvironmentVariableIsReadWithOneOrMoreKeys() throws {
    XCTAssertEqual(run(["keys", "generate", "keys", "--name", "old"]).code, 0)
    XCTAssertEqual(run(["keys", "generate", "keys", "--name", "new"]).code, 0)
    try writeConfiguration(#"{"signing": {"trustedKeys": ["keys/old.pub", "keys/new.pub"]}}"#)
    let (old, new) = (try text("keys/old.pem"), try text("keys/new.pem"))

    let one = run(["keys", "check"], environment: ["RELEASE_SIGNING_KEY": new])
    XCTAssertEqual(one.code, 0, one.allOutput)
    XCTAssertEqual(
      one.standardOutput,
      [
        "RELEASE_SIGNING_KEY: key \(try SigningKey(pem: new).keyID) (\(try SigningKey(pem: new).publicKey.sshFingerprint)) is trusted (keys/new.pub)"
      ])

    // During a rotation the secret holds both keys.
    let both = run(["keys", "check"], environment: ["RELEASE_SIGNING_KEY": old + new])
    XCTAssertEqual(both.code, 0, both.allOutput)
    XCTAssertEqual(both.standardOutput.count, 2)
    XCTAssertTrue(
      both.standardOutput[0].hasPrefix(
        "RELEASE_SIGNING_KEY (key 1 of 2): key \(try SigningKey(pem: old).keyID)"))

    // --signing-key wins over the variable.
    let file = run(
      ["keys", "check", "--signing-key", "keys/old.pem"], environment: ["RELEASE_SIGNING_KEY": "garbage"])
    XCTAssertEqual(file.code, 0, file.allOutput)
    XCTAssertTrue(file.standardOutput[0].hasPrefix("--signing-key keys/old.pem: key "), file.allOutput)

    for line in KeysTestSupport.secretLines(ofPEM: old) + KeysTestSupport.secretLines(ofPEM: new) {
      XCTAssertFalse(
        (one.allOutput + both.allOutput + file.allOutput).contains(line), "key material in the output")
    }
  }

  func testNoKeyOrAnUnreadableOneIsRefusedInOneLine() throws {
    XCTAssertEqual(run(["keys", "generate", "keys"]).code, 0)
    try writeConfiguration(#"{"signing": {"trustedKeys": ["keys/signing.pub"]}}"#)
    let secretLooking =
      "-----BEGIN PRIVATE KEY-----\nTUlTU0lORy1TRUNSRVQtQllURVM=\n-----END PRIVATE KEY-----\n"
    let cases: [([String], [String: String], String)] = [
      (
        ["keys", "check"], [:],
        "no signing key: set RELEASE_SIGNING_KEY or pass --signing-key; make a key with 'release keys generate keys'"
      ),
      (
        ["keys", "check", "--signing-key", "keys/none.pem"], [:], "--signing-key keys/none.pem: no such file"
      ),
      (
        ["keys", "check", "--signing-key", "keys/signing.pub"], [:],
        "expected a PRIVATE KEY PEM block, found PUBLIC KEY"
      ),
      (
        ["keys", "check"], ["RELEASE_SIGNING_KEY": secretLooking],
        "RELEASE_SIGNING_KEY: not an Ed25519 private key"
      ),
      (
        ["keys", "check"], ["RELEASE_SIGNING_KEY": "no pem here"],
        "RELEASE_SIGNING_KEY: not an Ed25519 private key (no PEM block"
      ),
    ]
    for (arguments, environment, expected) in cases {
      let result = run(arguments, environment: environment)
      XCTAssertEqual(result.code, 2, "\(arguments)")
      XCTAssertEqual(result.standardError.count, 1, result.allOutput)
      XCTAssertTrue(result.allOutput.contains(expected), "\(arguments): \(result.allOutput)")
      XCTAssertFalse(result.allOutput.contains("TUlTU0lORy1TRUNSRVQtQllURVM="), result.allOutput)
    }
  }

  func testUntrustedWhenNoKeyIsTrusted() throws {
    XCTAssertEqual(run(["keys", "generate", "keys"]).code, 0)
    let result = run(["keys", "check", "--signing-key", "keys/signing.pem"])
    XCTAssertEqual(result.code, 2)
    XCTAssertTrue(result.allOutput.contains("release.config.json trusts no key"), result.allOutput)
  }
}
