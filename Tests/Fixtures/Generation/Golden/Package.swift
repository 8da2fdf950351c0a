// swift-tools-version:6.0
import PackageDescription

// Package "ContextSDK_FixtureCo": ContextSDK built for one customer.
//
// Every customer's manifest is this file, byte for byte but for the line above: the manifest
// `name:` stays "ContextSDK" (SwiftPM identifies a dependency by its URL, not by this name), so
// the SwiftPM-generated test modules keep their names across customers. The core module is
// identical for all of them and does not depend on the customer module, so a build directory
// warmed by one customer only recompiles `ContextSDK` (registry and models) for the next.
// The line above costs SwiftPM a fresh evaluation of the manifest per customer (about 0.2 CPU
// seconds of a warm build, measured with release 0.4.0); a byte-identical manifest is the next
// thing to measure again now that warm slots drop their resource bundles (see BuildSlots).
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
