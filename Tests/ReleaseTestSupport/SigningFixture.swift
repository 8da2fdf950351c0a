import Foundation
import ReleaseCore
import ReleaseSigning
import XCTest

extension Workspace {
  /// Trusts a signing key (`keys/ota.pub` in release.config.json's `signing.trustedKeys`,
  /// beside the other keys of `configuration`) and returns the environment that signs with it
  /// (`RELEASE_SIGNING_KEY`). The key is made once per workspace (`keys/ota.pem`) and kept, so
  /// every run of the workspace pins the same key. A public URL needs a trusted key, and
  /// publishing the signed channel a private one.
  @discardableResult
  package func trustSigningKey(configuration: String = "{}", key given: SigningKey? = nil) throws -> [String:
    String]
  {
    let privateFile = file("keys/ota.pem")
    let key: SigningKey
    if let given {
      key = given
      try FileManager.default.createDirectory(at: file("keys"), withIntermediateDirectories: true)
      try key.pemEncoded.write(to: privateFile, atomically: true, encoding: .utf8)
    } else if let pem = try? String(contentsOf: privateFile, encoding: .utf8) {
      key = try SigningKey(pem: pem)
    } else {
      key = try SigningKey.generate()
      try FileManager.default.createDirectory(at: file("keys"), withIntermediateDirectories: true)
      try key.pemEncoded.write(to: privateFile, atomically: true, encoding: .utf8)
    }
    try key.publicKey.pemEncoded.write(to: file("keys/ota.pub"), atomically: true, encoding: .utf8)
    var object = try XCTUnwrap(
      try JSONSerialization.jsonObject(with: Data(configuration.utf8)) as? [String: Any], configuration)
    object["signing"] = ["trustedKeys": ["keys/ota.pub"]]
    try JSONSerialization.data(withJSONObject: object, options: [.sortedKeys]).write(
      to: file("release.config.json"))
    return ["RELEASE_SIGNING_KEY": key.pemEncoded]
  }

  /// The public half of the key `trustSigningKey` made for the workspace.
  package static func trustedKey(_ workspace: Workspace) throws -> PublicKey {
    try PublicKey(pem: try String(contentsOf: workspace.file("keys/ota.pub"), encoding: .utf8))
  }

  /// Gives customers their signed channel ids in release-state.json, as a run that made them
  /// would have recorded them.
  package func recordChannels(_ channels: [String: String]) throws {
    let url = file("release-state.json")
    var state = try ReleaseState.load(from: url, displayPath: "release-state.json")
    state.channels = channels
    try state.encoded().write(to: url)
  }

  /// The manifest an envelope of the signed channel holds, verified with `key`, without its
  /// expiry (which says when it was signed), as JSON with sorted keys.
  package static func signedPayloadWithoutExpiry(_ url: URL, key: PublicKey) throws -> Data {
    let verified = try DSSEEnvelope.verify(
      json: try Data(contentsOf: url), payloadType: "application/vnd.contextsdk.ota-manifest+json",
      trustedKeys: [key])
    var payload = try XCTUnwrap(try JSONSerialization.jsonObject(with: verified.payload) as? [String: Any])
    payload.removeValue(forKey: "expires")
    return try JSONSerialization.data(withJSONObject: payload, options: [.sortedKeys])
  }
}

/// The channel ids a workspace's release-state.json records.
package enum ReleaseStateFile {
  package static func channels(_ workspace: Workspace) throws -> [String: String] {
    try ReleaseState.load(from: workspace.file("release-state.json"), displayPath: "release-state.json")
      .channels
  }
}
