import Foundation
import ReleaseSigning
import ReleaseSystem
import ReleaseTestSupport
import XCTest

@testable import ReleaseCore
@testable import ReleaseSettings

/// `TrustedKeys` and `SigningKeys` in process: typed errors, no key material in any of them.
final class SigningKeysTests: XCTestCase {
  private func services(_ root: URL, environment: [String: String] = [:]) -> Services {
    Services(
      processRunner: ScriptedProcessRunner(), clock: ManualClock(), root: root, environment: environment,
      output: CapturedOutput())
  }

  func testOptionalSigningWithoutAKeyIsNoKeyAndRequiredSigningIsRefused() throws {
    let directory = try TemporaryDirectory()
    let none = TrustedKeys(entries: [])
    let optional = try SigningKeys.resolve(
      files: [], trusted: none, configuration: "release.config.json", required: false,
      services: services(directory.url))
    XCTAssertTrue(optional.keys.isEmpty)
    XCTAssertThrowsError(
      try SigningKeys.resolve(
        files: [], trusted: none, configuration: "release.config.json", required: true,
        services: services(directory.url, environment: ["RELEASE_SIGNING_KEY": ""]))
    ) { XCTAssertEqual($0 as? SigningKeys.ResolveError, .noKey) }
  }

  func testKeysAreMatchedToTheirTrustedFiles() throws {
    let directory = try TemporaryDirectory()
    let (first, second) = (try SigningKey.generate(), try SigningKey.generate())
    try FileManager.default.createDirectory(
      at: directory.url.appendingPathComponent("keys"), withIntermediateDirectories: true)
    for (key, name) in [(first, "a"), (second, "b")] {
      try key.publicKey.pemEncoded.write(
        to: directory.url.appendingPathComponent("keys/\(name).pub"), atomically: true, encoding: .utf8)
    }
    var configuration = ReleaseConfiguration()
    // Listed twice: counts once.
    configuration.trustedKeys = ["keys/a.pub", "keys/b.pub", "./keys/a.pub"]
    let trusted = try TrustedKeys.load(configuration, services: services(directory.url))
    XCTAssertEqual(trusted.keys, [first.publicKey, second.publicKey])
    XCTAssertEqual(trusted.entry(for: second.publicKey)?.file, "keys/b.pub")

    let resolved = try SigningKeys.resolve(
      files: [], trusted: trusted, configuration: "release.config.json", required: true,
      services: services(directory.url, environment: ["RELEASE_SIGNING_KEY": second.pemEncoded]))
    XCTAssertEqual(resolved.keys.map(\.keyID), [second.keyID])
    XCTAssertEqual(resolved.entries.map(\.source), ["RELEASE_SIGNING_KEY"])

    let stranger = try SigningKey.generate()
    XCTAssertThrowsError(
      try SigningKeys.resolve(
        files: [], trusted: trusted, configuration: "release.config.json", required: true,
        services: services(directory.url, environment: ["RELEASE_SIGNING_KEY": stranger.pemEncoded]))
    ) { error in
      XCTAssertEqual(
        error as? SigningKeys.ResolveError,
        .untrusted(source: "RELEASE_SIGNING_KEY", keyID: stranger.keyID, configuration: "release.config.json")
      )
      // Neither the error's text nor its dump shows the key.
      var dumped = ""
      dump(error, to: &dumped)
      for line in KeysTestSupport.secretLines(ofPEM: stranger.pemEncoded) {
        XCTAssertFalse("\(error)".contains(line) || dumped.contains(line))
      }
    }
  }

  func testTrustedKeyErrorsAreTyped() throws {
    let directory = try TemporaryDirectory()
    var configuration = ReleaseConfiguration()
    configuration.path = "ci/release.json"
    configuration.trustedKeys = ["missing.pub"]
    XCTAssertThrowsError(try TrustedKeys.load(configuration, services: services(directory.url))) {
      XCTAssertEqual(
        $0 as? TrustedKeys.LoadError,
        .missingFile(configuration: "ci/release.json", index: 0, file: "missing.pub"))
      XCTAssertTrue(
        "\($0)".hasPrefix("ci/release.json: signing.trustedKeys[0]: missing.pub: no such file"), "\($0)")
    }
  }
}
