import Foundation
import ReleaseCore
import ReleaseManifest

@testable import ReleasePipeline

extension ReleaseRecord {
  /// A record of `example` 1.0.0 with no models, files or digests: for steps that read only
  /// its names.
  static func example(artifact file: String = "Example-1.0.0.zip") -> ReleaseRecord {
    let customer = Customer(
      id: "example", name: "Example", appID: "11111111-2222-4333-8444-555555555555",
      bundleIdentifiers: ["com.example.app"], customModels: [], index: 0, line: 1)
    let digest = InputDigest(
      customer: customer, features: [], models: [:], templateDigest: "", sdkVersion: SemanticVersion(1, 0, 0),
      toolchain: "")
    return ReleaseRecord(
      customer: .init(
        id: customer.id, name: customer.name, appID: customer.appID, bundleIdentifiers: ["com.example.app"]),
      version: "1.0.0", sdkVersion: "1.0.0", packageName: "Example", features: nil, models: [], files: [],
      artifact: .init(file: file, sha256: "", size: 0, topLevelDirectory: "Example"), toolchain: "", tool: "",
      sourceDigest: "", inputDigest: "", inputs: digest, testCount: nil, releaseNotes: nil)
  }
}
