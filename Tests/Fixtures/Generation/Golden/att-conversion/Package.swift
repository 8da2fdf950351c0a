// swift-tools-version:6.0
import PackageDescription

// Package "ContextSDK_FixtureCo": ContextSDK built for one customer.
//
// The manifest `name:` stays "ContextSDK" (SwiftPM identifies a dependency by its URL, not by
// this name), so the SwiftPM-generated test modules keep their names across customers. The
// core module is identical for all of them and depends on nothing else, so a build directory
// warmed by one customer only recompiles `ContextSDK` (registry and models) for the next, and
// a feature module it already built.

/// The features this customer licenses: one module each, with its tests. The customer's
/// `ContextSDK` module re-exports them; a feature that is not listed is not in this package.
let features: [String] = [
  "ContextSDKATT",
  "ContextSDKConversion",
]

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
      name: "ContextSDK", dependencies: ["ContextSDKCore"] + features.map { .target(name: $0) },
      resources: [.copy("Resources/Models")]),
    .testTarget(name: "ContextSDKCoreTests", dependencies: ["ContextSDKCore"]),
    .testTarget(name: "ContextSDKTests", dependencies: ["ContextSDK"]),
  ]
    + features.flatMap { feature -> [Target] in
      [
        .target(name: feature, dependencies: ["ContextSDKCore"]),
        .testTarget(name: feature + "Tests", dependencies: [.target(name: feature)]),
      ]
    }
)
