// swift-tools-version:5.9
import PackageDescription

// Every customer's package is this manifest with another `name:`. The core module is identical
// for all of them and does not depend on the customer module, so a build directory warmed by
// one customer only recompiles `ContextSDK` (registry and models) for the next.
let package = Package(
  name: "ContextSDK_Acme",
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
