// swift-tools-version:6.0
import PackageDescription

// ContextSDK, built for one customer: README.md says for whom, and
// Sources/ContextSDK/CustomerRegistry.swift holds that customer's configuration and models.
//
// Every customer's manifest is this file, byte for byte: the manifest `name:` stays
// "ContextSDK" (SwiftPM identifies a dependency by its URL, not by this name), so the
// SwiftPM-generated test modules keep their names across customers, and SwiftPM's cached
// evaluation of the manifest serves every customer (a manifest differing by one comment is
// compiled and run again, about 0.2 CPU seconds per package). The core module is identical for
// all of them and does not depend on the customer module, so a build directory warmed by one
// customer only recompiles `ContextSDK` (registry and models) for the next.
let package = Package(
  name: "ContextSDK",
  platforms: [.iOS(.v14), .macOS(.v11), .tvOS(.v14), .watchOS(.v7)],
  products: [
    .library(name: "ContextSDK", targets: ["ContextSDK"])
  ],
  targets: [
    .target(name: "ContextSDKCore"),
    // `.copy` keeps the model files byte for byte (their SHA-256 is in the registry); apps
    // compile them with Core ML at run time.
    .target(
      name: "ContextSDK", dependencies: ["ContextSDKCore"],
      resources: [.copy("Resources/Models")]),
    .testTarget(name: "ContextSDKCoreTests", dependencies: ["ContextSDKCore"]),
    .testTarget(name: "ContextSDKTests", dependencies: ["ContextSDK"]),
  ]
)
