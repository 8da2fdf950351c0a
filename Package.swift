// swift-tools-version:6.0
import PackageDescription

// No package dependencies: only the toolchain, libarchive (zip), libcurl (network) and,
// on Linux, libcrypto (SHA-256, SHA-512, Ed25519; CryptoKit on Apple platforms).
let package = Package(
  name: "release",
  platforms: [.macOS(.v13)],
  products: [
    .executable(name: "release", targets: ["release"])
  ],
  targets: [
    // C system libraries, each behind its own module map.
    .systemLibrary(
      name: "CArchive", pkgConfig: "libarchive",
      providers: [.apt(["libarchive-dev"]), .brew(["libarchive"])]),
    .systemLibrary(
      name: "CCurl", pkgConfig: "libcurl",
      providers: [.apt(["libcurl4-openssl-dev"]), .brew(["curl"])]),
    .systemLibrary(
      name: "CCrypto", pkgConfig: "libcrypto",
      providers: [.apt(["libssl-dev"])]),
    // curl_easy_setopt is variadic; Swift cannot call it, so typed wrappers live here.
    .target(name: "CCurlShim", dependencies: ["CCurl"]),
    // What glibc declares only under _GNU_SOURCE (posix_spawn's chdir and closefrom actions,
    // renameat2), so Swift can call it.
    .target(name: "CSystemShim"),

    // Layers, bottom up: system services (hashing, processes, files), archive (libarchive),
    // network (libcurl) -> manifest + model store -> generation -> pipeline, steps and CLI.
    .target(
      name: "ReleaseSystem",
      dependencies: ["CSystemShim", .target(name: "CCrypto", condition: .when(platforms: [.linux]))]),
    .target(name: "ReleaseArchive", dependencies: ["CArchive", "ReleaseSystem"]),
    .target(name: "ReleaseNetwork", dependencies: ["CCurlShim", "ReleaseSystem"]),
    .target(name: "ReleaseManifest", dependencies: ["ReleaseSystem"]),
    // Ed25519 keys, DSSE envelopes and OpenSSH file signatures (CryptoKit on Apple, libcrypto
    // elsewhere).
    .target(
      name: "ReleaseSigning",
      dependencies: ["ReleaseSystem", .target(name: "CCrypto", condition: .when(platforms: [.linux]))]),
    .target(name: "ReleaseGeneration", dependencies: ["ReleaseManifest", "ReleaseSystem"]),
    // Judging a challenger from its outcomes: CSV reader, always-valid statistics, reports.
    // Judging rollouts from outcome counts: statistics, CSV, chart.
    .target(name: "ReleaseEvaluation", dependencies: ["ReleaseSystem"]),
    .target(
      name: "ReleaseKit",
      dependencies: [
        "ReleaseArchive", "ReleaseEvaluation", "ReleaseGeneration", "ReleaseManifest", "ReleaseNetwork",
        "ReleaseSigning",
        "ReleaseSystem",
      ]),
    .executableTarget(name: "release", dependencies: ["ReleaseKit"]),

    .testTarget(name: "ReleaseSystemTests", dependencies: ["ReleaseSystem"]),
    .testTarget(name: "ReleaseArchiveTests", dependencies: ["ReleaseArchive"]),
    .testTarget(name: "ReleaseNetworkTests", dependencies: ["ReleaseNetwork"]),
    .testTarget(name: "ReleaseManifestTests", dependencies: ["ReleaseManifest"]),
    .testTarget(name: "ReleaseSigningTests", dependencies: ["ReleaseSigning", "ReleaseSystem"]),
    .testTarget(name: "ReleaseEvaluationTests", dependencies: ["ReleaseEvaluation"]),
    .testTarget(
      name: "ReleaseGenerationTests", dependencies: ["ReleaseGeneration", "ReleaseManifest", "ReleaseSystem"]),
    .testTarget(
      name: "ReleaseKitTests",
      dependencies: [
        "ReleaseKit", "ReleaseArchive", "ReleaseEvaluation", "ReleaseGeneration", "ReleaseManifest",
        "ReleaseNetwork", "ReleaseSigning",
        "ReleaseSystem",
      ]),
  ]
)
