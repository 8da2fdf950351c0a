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
@testable import ReleaseCore
@testable import ReleaseGeneration
@testable import ReleasePipeline

/// The package README's section on checking a signed release: what a run passes to it from
/// release.config.json, what it adds to the source digest (nothing without keys), and that
/// the command it prints accepts what publishing signs, with the line `release keys
/// allowed-signers` prints.
final class ReadmeSignatureTests: XCTestCase {
  private var directory: TemporaryDirectory!
  private var root: URL { directory.url }

  override func setUpWithError() throws {
    directory = try TemporaryDirectory()
  }

  override func tearDown() {
    directory = nil
  }

  private func writeConfiguration(_ text: String) throws {
    try text.write(to: root.appendingPathComponent("release.config.json"), atomically: true, encoding: .utf8)
  }

  private func text(_ path: String) throws -> String {
    try String(contentsOf: root.appendingPathComponent(path), encoding: .utf8)
  }

  /// `release all`'s options, read from the command line and release.config.json as a run reads them.
  private func releaseOptions(_ arguments: [String] = []) throws -> RunSettings {
    let services = Services(
      processRunner: ScriptedProcessRunner(), clock: SystemClock(), root: root,
      environment: ["RELEASE_SIGNING_KEY": ""], output: CapturedOutput())
    let invocation = CommandInvocation(arguments: [], services: services, reporter: DiscardingReporter())
    return try RunSettings.all(
      try Arguments(arguments, command: try XCTUnwrap(Command.named("all"))), invocation)
  }

  private func generateKeys(_ names: [String]) {
    for name in names {
      let result = InProcessCLI.run(
        ["keys", "generate", "keys", "--name", name], root: root, processRunner: .realGit())
      XCTAssertEqual(result.code, 0, result.allOutput)
    }
  }

  func testARunWithTrustedKeysPassesTheirFingerprintsIdentityAndURL() throws {
    XCTAssertNil(try releaseOptions().packages.signatureCheck, "no release.config.json: no section")

    generateKeys(["old", "new"])
    try writeConfiguration(#"{"signing": {"trustedKeys": ["keys/old.pub", "keys/new.pub"]}}"#)
    let withoutURL = try XCTUnwrap(try releaseOptions().packages.signatureCheck)
    let keys = try ["old", "new"].map { try PublicKey(pem: try text("keys/\($0).pub")) }
    XCTAssertEqual(
      withoutURL.fingerprints, keys.map(\.sshFingerprint), "each key, in the configuration's order")
    XCTAssertEqual(withoutURL.identity, KeysCommand.defaultIdentity)
    XCTAssertEqual(withoutURL.namespace, ReleaseSignature.namespace)
    XCTAssertNil(withoutURL.allowedSignersURL)

    try writeConfiguration(
      #"{"signing": {"trustedKeys": ["keys/new.pub"], "allowedSignersURL": "https://example.com/keys/allowed_signers"}}"#
    )
    let withURL = try XCTUnwrap(try releaseOptions().packages.signatureCheck)
    XCTAssertEqual(withURL.fingerprints, [keys[1].sshFingerprint])
    XCTAssertEqual(withURL.allowedSignersURL, "https://example.com/keys/allowed_signers")
  }

  func testAnAllowedSignersURLMustBeHTTPSWithoutACredential() throws {
    let cases: [(String, String)] = [
      (#""http://example.com/allowed_signers""#, "expected an https URL"),
      (#""example.com/allowed_signers""#, "expected an https URL"),
      (#""https://example.com/allowed signers""#, "expected an https URL"),
      (#""https://user:secret@example.com/allowed_signers""#, "a credential in a URL"),
      ("3", "expected an https URL, found 3"),
    ]
    for (value, expected) in cases {
      let configuration = #"{"signing": {"trustedKeys": ["keys/a.pub"], "allowedSignersURL": \#(value)}}"#
      do {
        _ = try ReleaseConfiguration.parse(Data(configuration.utf8), displayPath: "release.config.json")
        XCTFail("accepted \(value)")
      } catch let failure as ValidationFailure {
        let lines = failure.diagnostics.map(\.description)
        XCTAssertEqual(lines.count, 1, "\(lines)")
        XCTAssertTrue(lines[0].contains("signing.allowedSignersURL"), lines[0])
        XCTAssertTrue(lines[0].contains(expected), lines[0])
        XCTAssertFalse(lines[0].contains("secret"), lines[0])
      }
    }
  }

  func testTheKeylessSourceDigestLeavesTheSectionOutAndKeysChangeIt() throws {
    func digest(_ check: SignatureCheck?) -> InputDigest {
      InputDigest(
        customer: Customer(
          id: "acme", name: "Acme", appID: "00000000-0000-0000-0000-000000000001",
          bundleIdentifiers: ["com.acme.app"], customModels: [], index: 0, line: 1),
        features: ["conversion"], models: [:], templateDigest: "t", sdkVersion: SemanticVersion(2, 4, 0),
        toolchain: "swift", signatureCheck: check)
    }
    // The parts a keyless digest had before signing, encoded here: no new key among them.
    struct Parts: Encodable {
      var entry: String
      var models: [String: String]
      var template: String
      var sdkVersion: String
    }
    let keyless = digest(nil)
    let encoder = JSONEncoder()
    encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
    let parts = Parts(entry: keyless.entry, models: [:], template: "t", sdkVersion: "2.4.0")
    XCTAssertEqual(keyless.source, SHA256Digest.hex(of: try encoder.encode(parts)))

    let first = try SigningKey.generate().publicKey.sshFingerprint
    let second = try SigningKey.generate().publicKey.sshFingerprint
    func check(_ fingerprints: [String], url: String? = nil) -> SignatureCheck {
      SignatureCheck(
        fingerprints: fingerprints, identity: ReleaseSignature.defaultIdentity,
        namespace: ReleaseSignature.namespace, allowedSignersURL: url)
    }
    let signed = digest(check([first]))
    let rotated = digest(check([first, second]))
    let published = digest(check([first], url: "https://example.com/allowed_signers"))
    XCTAssertEqual(Set([keyless.source, signed.source, rotated.source, published.source]).count, 4)
    XCTAssertEqual(rotated.changes(since: signed), ["signature check (README)"])
    XCTAssertEqual(signed.changes(since: keyless), ["signature check (README)"])
    XCTAssertEqual(published.changes(since: signed), ["signature check (README)"])
  }

  func testTheReadmeCommandAcceptsAPublishedSignatureAndRefusesAChangedZip() throws {
    generateKeys(["release"])
    try writeConfiguration(#"{"signing": {"trustedKeys": ["keys/release.pub"]}}"#)
    let options = try releaseOptions(["--signing-key", "keys/release.pem"])
    XCTAssertTrue(options.signing.canSign)

    // The line the vendor publishes, as `release keys allowed-signers` prints it.
    let printed = InProcessCLI.run(
      ["keys", "allowed-signers"], root: root, environment: ["RELEASE_SIGNING_KEY": ""])
    XCTAssertEqual(printed.code, 0, printed.allOutput)
    try (printed.standardOutput.joined(separator: "\n") + "\n").write(
      to: root.appendingPathComponent("allowed_signers"), atomically: true, encoding: .utf8)

    // A zip signed as publishing signs it.
    let archiveName = PackageGenerator.archiveName(packageName: "ContextSDK_Acme", version: "2.4.1")
    let zip = root.appendingPathComponent(archiveName)
    try Data((0..<4096).map { UInt8(truncatingIfNeeded: $0 &* 13) }).write(to: zip)
    try ReleaseSignature.sign(zipAt: zip, options.signing).write(
      to: root.appendingPathComponent(archiveName + ReleaseSignature.suffix), atomically: true,
      encoding: .utf8)

    let section = try SignatureSection.render(
      try XCTUnwrap(options.packages.signatureCheck), archiveName: archiveName)
    let commands = section.split(separator: "\n").filter { $0.hasPrefix("ssh-keygen -Y verify ") }
    XCTAssertEqual(commands.count, 1, section)
    let command = String(try XCTUnwrap(commands.first))
    XCTAssertTrue(section.contains("Ask us for the `allowed_signers` line"), section)
    let fingerprint = try PublicKey(pem: try text("keys/release.pub")).sshFingerprint
    XCTAssertTrue(section.contains("- `\(fingerprint)`"), section)

    XCTAssertNotNil(
      SystemProcessRunner.find("ssh-keygen"), "ssh-keygen is needed to check the README's command")
    let good = try SystemProcessRunner().run(ProcessInvocation("sh", ["-c", command], in: root))
    XCTAssertEqual(good.exitCode, 0, command + "\n" + good.standardOutput + good.standardError)
    XCTAssertTrue(
      good.standardOutput.contains("Good \"contextsdk-release\" signature for release@contextsdk"),
      good.standardOutput)
    XCTAssertTrue(good.standardOutput.contains(fingerprint), good.standardOutput)

    var bytes = try Data(contentsOf: zip)
    bytes[1000] ^= 1
    try bytes.write(to: zip)
    let bad = try SystemProcessRunner().run(ProcessInvocation("sh", ["-c", command], in: root))
    XCTAssertNotEqual(bad.exitCode, 0, bad.standardOutput)
  }
}
