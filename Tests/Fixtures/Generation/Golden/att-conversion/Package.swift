// swift-tools-version:6.0
import PackageDescription

// ContextSDK built for one customer: the features it licenses (below), its configuration and
// the Core ML models of its app's flows. Add the `ContextSDK` library to your app's target.
//
// Each release replaces this file. The `ContextSDKCore` module is the SDK itself; each feature
// is a module of its own, with its tests, that the `ContextSDK` module re-exports. What is
// yours alone is data, in `Sources/ContextSDK/Resources`: `customer.json` (your app id,
// allowed apps and models), the models and the privacy manifest (`PrivacyInfo.xcprivacy`,
// which Xcode adds to your app's privacy report). The package's `name:` is "ContextSDK" for
// every customer: SwiftPM identifies a dependency by its URL or folder, not by this name.

/// The features this customer licenses: one module each, with its tests. The customer's
/// `ContextSDK` module re-exports them; a feature that is not listed is not in this package.
let features: [String] = [
  "ContextSDKATT",
  "ContextSDKConversion",
]

/// libcrypto, on Linux only.
let crypto: Target.Dependency = .target(name: "CContextSDKCrypto", condition: .when(platforms: [.linux]))

let package = Package(
  name: "ContextSDK",
  platforms: [.iOS(.v14), .macOS(.v11), .tvOS(.v14), .watchOS(.v7)],
  products: [
    .library(name: "ContextSDK", targets: ["ContextSDK"])
  ],
  targets: [
    // On Linux the system's libcrypto verifies manifest signatures and hashes models (CryptoKit
    // on Apple platforms): a system library, not a package dependency.
    .systemLibrary(name: "CContextSDKCrypto", pkgConfig: "libcrypto", providers: [.apt(["libssl-dev"])]),
    .target(name: "ContextSDKCore", dependencies: [crypto]),
    // `.copy` keeps the model files byte for byte (their SHA-256 is in `customer.json`); the
    // SDK compiles them with Core ML at run time, once. `customer.json` is this customer's
    // configuration, which the SDK reads at first use.
    .target(
      name: "ContextSDK", dependencies: ["ContextSDKCore"] + features.map { .target(name: $0) },
      resources: [
        .copy("Resources/Models"), .copy("Resources/customer.json"), .copy("Resources/PrivacyInfo.xcprivacy"),
      ]),
    // The tests sign manifests with a test key, through the same library on Linux.
    .testTarget(name: "ContextSDKCoreTests", dependencies: ["ContextSDKCore", crypto]),
    .testTarget(name: "ContextSDKTests", dependencies: ["ContextSDK"]),
  ]
    + features.flatMap { feature -> [Target] in
      [
        .target(name: feature, dependencies: ["ContextSDKCore"]),
        .testTarget(name: feature + "Tests", dependencies: [.target(name: feature)]),
      ]
    }
)
