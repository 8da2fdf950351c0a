import Foundation
import ReleaseCLITestSupport
import ReleaseCore
import ReleaseOTA
import ReleaseSigning
import ReleaseSystem
import ReleaseTestSupport
import XCTest

@testable import ReleaseCLI
@testable import ReleaseSettings

/// `release ota root init|rotate|show`, and the root's manifest keys as the trusted keys.
final class RootCommandTests: XCTestCase {
  private var directory: TemporaryDirectory!
  private var root: URL { directory.url }

  override func setUpWithError() throws {
    directory = try TemporaryDirectory()
    try FileManager.default.createDirectory(
      at: root.appendingPathComponent("keys"), withIntermediateDirectories: true)
    for name in ["root-1", "root-2", "root-3", "ci-1", "ci-2"] {
      let key = try SigningKey.generate()
      try key.pemEncoded.write(
        to: root.appendingPathComponent("keys/\(name).pem"), atomically: true, encoding: .utf8)
      try key.publicKey.pemEncoded.write(
        to: root.appendingPathComponent("keys/\(name).pub"), atomically: true, encoding: .utf8)
    }
    try #"{"signing": {"root": "ota-root"}}"#.write(
      to: root.appendingPathComponent("release.config.json"), atomically: true, encoding: .utf8)
  }

  override func tearDown() { directory = nil }

  private func run(_ arguments: [String]) -> InProcessCLI.Run {
    InProcessCLI.run(["ota", "root"] + arguments, root: root, environment: ["RELEASE_SIGNING_KEY": ""])
  }

  private func key(_ name: String) throws -> PublicKey {
    try PublicKey(pem: String(contentsOf: root.appendingPathComponent("keys/\(name).pub"), encoding: .utf8))
  }

  private func initRoot() throws {
    let result = run([
      "init", "--root-key", "keys/root-1.pub", "--root-key", "keys/root-2.pub", "--root-key",
      "keys/root-3.pub",
      "--threshold", "2", "--manifest-key", "keys/ci-1.pub", "--signing-key", "keys/root-1.pem",
      "--signing-key", "keys/root-2.pem",
    ])
    XCTAssertEqual(result.code, 0, result.allOutput)
  }

  private func trusted() throws -> TrustedKeys {
    let services = Services(
      processRunner: ScriptedProcessRunner(), clock: SystemClock(), root: root, environment: [:],
      output: CapturedOutput())
    return try TrustedKeys.load(
      try ReleaseConfiguration.load(explicitPath: nil, services: services), services: services)
  }

  func testInitAndRotateWriteAChainWhoseNewestManifestKeysAreTrusted() throws {
    try initRoot()
    XCTAssertEqual(try trusted().keys, [try key("ci-1")])
    let rotated = run([
      "rotate", "--manifest-key", "keys/ci-2.pub", "--signing-key", "keys/root-2.pem", "--signing-key",
      "keys/root-3.pem",
    ])
    XCTAssertEqual(rotated.code, 0, rotated.allOutput)
    let keys = try trusted()
    XCTAssertEqual(keys.keys, [try key("ci-2")])
    XCTAssertEqual(keys.chain?.current.root.threshold, 2, "an option left out keeps its value")
    XCTAssertEqual(keys.entries.first?.file, "ota-root/2.json")
    let shown = run(["show"])
    XCTAssertEqual(shown.code, 0, shown.allOutput)
    XCTAssertEqual(shown.standardOutput.filter { $0.hasPrefix("root ") }.count, 2, shown.allOutput)
  }

  func testARotationBelowTheThresholdOrByAManifestKeyIsRefusedAndWritesNothing() throws {
    try initRoot()
    let one = run(["rotate", "--manifest-key", "keys/ci-2.pub", "--signing-key", "keys/root-1.pem"])
    XCTAssertEqual(one.code, 2, one.allOutput)
    XCTAssertTrue(one.allOutput.contains("signed by 1 of the 3 root keys"), one.allOutput)
    let twice = run([
      "rotate", "--manifest-key", "keys/ci-2.pub", "--signing-key", "keys/root-1.pem", "--signing-key",
      "keys/root-1.pem",
    ])
    XCTAssertEqual(twice.code, 2, twice.allOutput)
    let byManifestKey = run(["rotate", "--manifest-key", "keys/ci-2.pub", "--signing-key", "keys/ci-1.pem"])
    XCTAssertEqual(byManifestKey.code, 2, byManifestKey.allOutput)
    XCTAssertFalse(
      FileManager.default.fileExists(atPath: root.appendingPathComponent("ota-root/2.json").path))
    XCTAssertEqual(try trusted().keys, [try key("ci-1")])
  }

  func testATamperedRootDocumentRefusesTheConfiguration() throws {
    try initRoot()
    let file = root.appendingPathComponent("ota-root/1.json")
    var text = try String(contentsOf: file, encoding: .utf8)
    text = text.replacingOccurrences(of: "\"sig\" : \"", with: "\"sig\" : \"AAAA")
    try text.write(to: file, atomically: true, encoding: .utf8)
    XCTAssertThrowsError(try trusted()) { XCTAssertTrue("\($0)".contains("signing.root"), "\($0)") }
  }
}
