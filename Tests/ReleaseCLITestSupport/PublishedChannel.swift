import Foundation
import ReleaseCLI
import ReleaseCore
import ReleaseOTA
import ReleaseSigning
import ReleaseSystem
import ReleaseTestSupport
import XCTest

/// A project directory with a signed channel published into `published/` the way the tool
/// lays it out: `ota/<channel>/manifest-1…3.json`, the pointer at revision 3, and the model it
/// offers at `ota/models/<sha256>.mlmodel`. release.config.json trusts `key`; `other` is a
/// key nobody trusts.
package final class PublishedChannel {
  package static let customer = "acme"
  package static let channel = "0123456789abcdef0123456789abcdef"
  package static let revisions = 3

  package let directory: TemporaryDirectory
  package var root: URL { directory.url }
  package let clock = ManualClock()
  package let key: SigningKey
  package let other: SigningKey
  /// The offered model's bytes.
  package let model = Data((0..<3000).map { UInt8(truncatingIfNeeded: $0 &* 13 &+ 5) })
  package var modelSHA256: String { SHA256Digest.hex(of: model) }
  /// What the pointer says: 7 days after the clock's now.
  package var expires: Date

  package init(expiresIn seconds: TimeInterval = 7 * 86400) throws {
    directory = try TemporaryDirectory()
    key = try SigningKey.generate()
    other = try SigningKey.generate()
    expires = clock.now().addingTimeInterval(seconds)
    try write("keys/ota.pub", Data(key.publicKey.pemEncoded.utf8))
    try write("release.config.json", Data(#"{"signing": {"trustedKeys": ["keys/ota.pub"]}}"#.utf8))
    try writeState(channels: [Self.customer: Self.channel])
    try write("published/" + OTAManifest.modelKey(sha256: modelSHA256), model)
    for revision in 1...Self.revisions {
      try write(revisionPath(revision), try envelope(revision: revision))
    }
    try write(pointerPath, try envelope(revision: Self.revisions))
  }

  package var pointerPath: String { "published/" + SignedOTAChannel.pointerKey(channel: Self.channel) }
  package func revisionPath(_ revision: Int) -> String {
    "published/" + SignedOTAChannel.revisionKey(channel: Self.channel, revision: revision)
  }
  package var modelPath: String { "published/" + OTAManifest.modelKey(sha256: modelSHA256) }

  /// `customer`'s manifest at `revision`, offering the model to `percent` of devices.
  package func manifest(revision: Int, percent: Int = 10, customer: String = customer) throws -> OTAManifest {
    let json = """
      {"schemaVersion": 2, "customer": "\(customer)", "appID": "5F2C6C4E-8F4A-4E0B-9C59-1B1E2A3D4C5B",
       "revision": \(revision),
       "flows": {"onboarding_upsell": {"flowId": 8362, "bundledVersion": 73, "paused": false,
         "models": [{"modelVersion": 74, "url": "https://cdn.example.com/sdk/ota/models/\(modelSHA256).mlmodel",
                     "sha256": "\(modelSHA256)", "size": \(model.count), "minimumSDKVersion": "1.0.0",
                     "inputs": ["session_count"], "specificationVersion": 4, "rolloutPercent": \(percent),
                     "salt": "9f86d081884c7d65", "status": "active"}]}}}
      """
    return try JSONDecoder().decode(OTAManifest.self, from: Data(json.utf8))
  }

  /// The envelope of revision `revision` signed by `signer` (default: the trusted key).
  package func envelope(
    revision: Int, signer: SigningKey? = nil, expires: Date? = nil, customer: String = customer
  )
    throws -> Data
  {
    let signer = signer ?? key
    return try SignedOTAChannel.envelope(
      try manifest(revision: revision, customer: customer), expires: expires ?? self.expires,
      signers: [signer],
      trusted: [signer.publicKey])
  }

  /// release-state.json with these channels.
  package func writeState(channels: [String: String]) throws {
    let state: [String: Any] = ["sdkVersion": "1.0.0", "customers": [String: Any](), "channels": channels]
    try write("release-state.json", try JSONSerialization.data(withJSONObject: state))
  }

  package func write(_ path: String, _ data: Data) throws {
    let url = root.appendingPathComponent(path)
    try FileManager.default.createDirectory(
      at: url.deletingLastPathComponent(), withIntermediateDirectories: true)
    try data.write(to: url)
  }

  package func read(_ path: String) throws -> Data { try Data(contentsOf: root.appendingPathComponent(path)) }

  package func remove(_ path: String) throws {
    try FileManager.default.removeItem(at: root.appendingPathComponent(path))
  }

  /// Runs the CLI in this process on the project, with the fixed clock.
  package func run(_ arguments: [String], environment: [String: String] = [:]) -> InProcessCLI.Run {
    let output = CapturedOutput()
    let services = Services(
      processRunner: ScriptedProcessRunner(), clock: clock, root: root,
      environment: ["CI": "true"].merging(environment) { $1 }, output: output)
    let code = CommandLineInterface.main(arguments: arguments, services: services)
    return InProcessCLI.Run(
      code: code, standardOutput: output.standardOutput, standardError: output.standardError)
  }
}
