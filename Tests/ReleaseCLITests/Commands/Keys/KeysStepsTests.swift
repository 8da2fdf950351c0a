import Foundation
import ReleaseCore
import ReleasePipeline
import ReleaseSigning
import ReleaseSystem
import ReleaseTestSupport
import XCTest

@testable import ReleaseCLI
@testable import ReleaseSettings

/// The `keys` commands' steps built directly: where a private key may be written, the pair
/// written and reported, the allowed_signers lines of the trusted keys, and each signing key
/// matched to its trusted file. Expected lines are derived from the keys themselves.
final class KeysStepsTests: XCTestCase {
  private var directory: TemporaryDirectory!
  private var root: URL { directory.url }
  private var output: CapturedOutput!
  private var git: ScriptedProcessRunner!

  override func setUpWithError() throws {
    directory = try TemporaryDirectory()
    output = CapturedOutput()
    git = ScriptedProcessRunner()
  }

  override func tearDown() {
    directory = nil
  }

  private func pipeline() -> Pipeline {
    let services = Services(
      processRunner: git, clock: ManualClock(), root: root, environment: [:], output: output,
      http: TestHTTP.Unreachable())
    return Pipeline(
      ReleaseContext(services: services, settings: RunSettings(), reporter: RecordingReporter()))
  }

  private func text(_ path: String) throws -> String {
    try String(contentsOf: root.appendingPathComponent(path), encoding: .utf8)
  }

  /// Git answering that the root is a work tree, and `check-ignore` with `ignoredExitCode`
  /// (0 ignored, 1 not).
  private func answerGitWorkTree(ignoredExitCode: Int32) {
    git.on("git", "rev-parse") { _ in ProcessResult(exitCode: 0, standardOutput: "true\n") }
    git.on("git", "check-ignore") { _ in ProcessResult(exitCode: ignoredExitCode) }
  }

  /// The public halves of `keys`, each as trusted by its file.
  private func trusted(_ keys: [(SigningKey, String)]) -> TrustedKeys {
    TrustedKeys(entries: keys.map { TrustedKeys.Entry(key: $0.0.publicKey, file: $0.1) })
  }

  // MARK: generate

  func testAPrivateKeyGitWouldCommitIsRefusedAndNothingIsWritten() throws {
    answerGitWorkTree(ignoredExitCode: 1)
    let options = KeysGenerateOptions(directory: "keys", name: "ota")

    XCTAssertThrowsError(try KeysCommand.pipeline(options, pipeline())) { error in
      let error = error as? ReleaseError
      XCTAssertEqual(error?.isInvalidInput, true, "\(String(describing: error))")
      XCTAssertTrue(
        error?.description.hasPrefix("keys/ota.pem: inside a git work tree and not ignored by git") == true,
        "\(String(describing: error))")
    }
    let asked = git.invocations.first { $0.arguments.first == "check-ignore" }
    XCTAssertEqual(asked?.arguments.last, root.appendingPathComponent("keys/ota.pem").path)
    XCTAssertFalse(FileManager.default.fileExists(atPath: root.appendingPathComponent("keys").path))
    XCTAssertEqual(output.standardOutput, [])
  }

  func testAnIgnoredPrivateKeyMayBeWritten() throws {
    answerGitWorkTree(ignoredExitCode: 0)
    XCTAssertNoThrow(
      try pipeline().run(CheckKeyPlacementStep(), KeysGenerateOptions(directory: "keys", name: "ota")))
    XCTAssertEqual(git.invocations.map { $0.arguments.first }, ["rev-parse", "check-ignore"])
  }

  func testThePairWrittenHoldsTheKeyReturnedAndIsNeverOverwritten() throws {
    // A directory typed with its slash is named with one slash before each file.
    let options = KeysGenerateOptions(directory: "keys/", name: "ota")
    let pair = try pipeline().run(WriteKeyPairStep(), options)

    XCTAssertEqual(pair.privateFile, "keys/ota.pem")
    XCTAssertEqual(pair.publicFile, "keys/ota.pub")
    XCTAssertEqual(try SigningKey(pem: try text("keys/ota.pem")).publicKey, pair.key.publicKey)
    XCTAssertEqual(try PublicKey(pem: try text("keys/ota.pub")), pair.key.publicKey)

    XCTAssertThrowsError(try pipeline().run(WriteKeyPairStep(), options)) { error in
      XCTAssertEqual(
        (error as? ReleaseError)?.lines,
        [KeyPairFiles.WriteError.exists(pair.privateFile).description])
      XCTAssertEqual((error as? ReleaseError)?.exitCode, 2)
    }
    XCTAssertEqual(
      try SigningKey(pem: try text("keys/ota.pem")).publicKey, pair.key.publicKey, "the first key stays")
  }

  func testTheReportNamesTheKeyAndBothFilesButNeverTheKeyItself() throws {
    let key = try SigningKey.generate()
    let pair = WrittenKeyPair(key: key, privateFile: "ci/keys/a.pem", publicFile: "ci/keys/a.pub")

    try pipeline().run(ReportKeyPairStep(), pair)

    let lines = output.standardOutput
    XCTAssertEqual(lines.count, 3, "\(lines)")
    XCTAssertEqual(lines.first, "key id \(key.keyID) (\(key.publicKey.sshFingerprint))")
    XCTAssertTrue(lines[1].hasPrefix("ci/keys/a.pub: the public half") && lines[1].contains("trustedKeys"))
    XCTAssertTrue(
      lines[2].hasPrefix("ci/keys/a.pem: the private half")
        && lines[2].contains(SigningKeys.environmentVariable) && lines[2].contains("never commit"))
    for secret in KeysTestSupport.secretLines(ofPEM: key.pemEncoded) {
      XCTAssertFalse(lines.joined().contains(secret), "the private key is printed")
    }
  }

  // MARK: allowed-signers

  func testAnAllowedSignersLinePerTrustedKeyInOrderAfterItsFingerprint() throws {
    let keys = [(try SigningKey.generate(), "keys/old.pub"), (try SigningKey.generate(), "keys/new.pub")]
    let options = AllowedSignersOptions(identity: "releases@example.com", trusted: trusted(keys))

    try KeysCommand.pipeline(options, pipeline())

    // The line OpenSSH's allowed_signers format gives each key (`ssh-keygen(1)`).
    let expected = keys.flatMap { key, file in
      let publicKey = key.publicKey
      return [
        "# \(publicKey.sshFingerprint) (key id \(publicKey.keyID), \(file))",
        "releases@example.com namespaces=\"\(ReleaseSignature.namespace)\" \(publicKey.openSSHPublicKey)",
      ]
    }
    XCTAssertEqual(output.standardOutput, expected)
    XCTAssertEqual(output.standardError, [])
  }

  func testAnIdentitySSHKeygenCannotReadIsRefusedAndNothingIsPrinted() throws {
    let options = AllowedSignersOptions(
      identity: "two words", trusted: trusted([(try SigningKey.generate(), "keys/a.pub")]))

    XCTAssertThrowsError(try KeysCommand.pipeline(options, pipeline())) { error in
      let error = error as? ReleaseError
      XCTAssertEqual(error?.exitCode, 2)
      XCTAssertTrue(
        error?.description.hasPrefix("--identity two words: not a signer identity") == true,
        "\(String(describing: error))")
    }
    XCTAssertEqual(output.standardOutput, [])
  }

  // MARK: check

  func testEachSigningKeyIsReportedInTheOrderGivenWithItsTrustedFile() throws {
    let (old, new) = (try SigningKey.generate(), try SigningKey.generate())
    let options = KeysCheckOptions(
      trusted: trusted([(old, "keys/old.pub"), (new, "keys/new.pub")]),
      signing: SigningKeys(entries: [
        SigningKeys.Entry(key: new, source: "RELEASE_SIGNING_KEY (key 1 of 2)"),
        SigningKeys.Entry(key: old, source: "RELEASE_SIGNING_KEY (key 2 of 2)"),
      ]))

    let matched = try pipeline().run(MatchSigningKeysStep(), options)
    XCTAssertEqual(matched.map(\.key.publicKey), [new.publicKey, old.publicKey])
    XCTAssertEqual(matched.map(\.trustedFile), ["keys/new.pub", "keys/old.pub"])

    try pipeline().run(ReportSigningKeysStep(), matched)
    XCTAssertEqual(
      output.standardOutput,
      [(new, "1", "keys/new.pub"), (old, "2", "keys/old.pub")].map { key, place, file in
        "RELEASE_SIGNING_KEY (key \(place) of 2): key \(key.keyID) (\(key.publicKey.sshFingerprint)) is trusted (\(file))"
      })
    for secret in KeysTestSupport.secretLines(ofPEM: old.pemEncoded + new.pemEncoded) {
      XCTAssertFalse(output.standardOutput.joined().contains(secret), "a private key is printed")
    }
  }
}
