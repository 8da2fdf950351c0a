// swift-tools-version:6.0
import PackageDescription

// ContextSDK built for one customer: its features (below), its registry and its models.
//
// This file is the same for every customer with the same features, byte for byte: SwiftPM
// then reuses its evaluation of the manifest across customers in a warm build directory. So
// the manifest `name:` stays "ContextSDK" (SwiftPM identifies a dependency by its URL, not by
// this name), and the SwiftPM-generated test modules keep their names. The core module is
// identical for all customers and depends on nothing else, and what differs between customers
// with the same features is data (`customer.json` and the models): a build directory warmed by
// one customer compiles nothing for the next: it only copies that customer's resources.

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
    // `.copy` keeps the model files byte for byte (their SHA-256 is in `customer.json`); apps
    // compile them with Core ML at run time. `customer.json` is this customer's configuration:
    // data, not code, so the Swift of every customer with the same features is the same.
    .target(
      name: "ContextSDK", dependencies: ["ContextSDKCore"] + features.map { .target(name: $0) },
      resources: [.copy("Resources/Models"), .copy("Resources/customer.json")]),
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
