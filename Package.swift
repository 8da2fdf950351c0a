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

    // Layers, bottom up; each module uses only those above it in this list.
    // Foundations: system services (hashing, processes, files), archive (libarchive), network
    // (libcurl), signing (Ed25519, DSSE, SSH signatures), JSON documents, evaluation (outcome
    // statistics), and the tool's core (errors, services, versions and release state).
    // Inputs: the model store, then the manifest checked against it, then the generated package.
    // The tool: events and reporters, signal alignment, publishing (object stores, destinations,
    // git), the over-the-air channel, the release pipeline and its steps, and the command line
    // that drives them.
    .target(
      name: "ReleaseSystem",
      dependencies: ["CSystemShim", .target(name: "CCrypto", condition: .when(platforms: [.linux]))]),
    .target(name: "ReleaseArchive", dependencies: ["CArchive", "ReleaseSystem"]),
    .target(name: "ReleaseNetwork", dependencies: ["CCurlShim", "ReleaseSystem"]),
    // Ed25519 keys, DSSE envelopes and OpenSSH file signatures (CryptoKit on Apple, libcrypto
    // elsewhere).
    .target(
      name: "ReleaseSigning",
      dependencies: ["ReleaseSystem", .target(name: "CCrypto", condition: .when(platforms: [.linux]))]),
    // JSON documents read with the position of every value, into typed values with every
    // problem reported by file, JSON path and line; did-you-mean hints for mistyped names.
    .target(name: "ReleaseJSON"),
    // Judging rollouts from outcome counts: CSV reader, always-valid statistics, reports, chart.
    .target(name: "ReleaseEvaluation", dependencies: ["ReleaseSystem"]),
    // What every part of the tool shares: errors, services, versions and release state.
    .target(name: "ReleaseCore", dependencies: ["ReleaseJSON", "ReleaseNetwork", "ReleaseSystem"]),
    // Where models come from: directory and remote stores, Core ML parsing, the digest cache.
    .target(name: "ReleaseModels", dependencies: ["ReleaseNetwork", "ReleaseSystem"]),
    // customers.json and features.json, read and checked against the model store.
    .target(name: "ReleaseManifest", dependencies: ["ReleaseJSON", "ReleaseModels", "ReleaseSystem"]),
    // One customer's Swift package from the template, and the release notes.
    .target(
      name: "ReleaseGeneration",
      dependencies: ["ReleaseCore", "ReleaseJSON", "ReleaseManifest", "ReleaseSystem"]),
    // A run's events and the reporters that render them: plain, live terminal, JSON lines,
    // GitHub Actions, JUnit.
    .target(
      name: "ReleaseReporting",
      dependencies: ["ReleaseCore", "ReleaseGeneration", "ReleaseJSON", "ReleaseSystem"]),
    // The SDK's signal catalog and which models an SDK version can run.
    .target(
      name: "ReleaseAlignment",
      dependencies: [
        "ReleaseCore", "ReleaseGeneration", "ReleaseJSON", "ReleaseManifest", "ReleaseModels",
        "ReleaseSystem",
      ]),
    // Where releases go: directory and S3 object stores, destinations, URL credentials, git.
    .target(
      name: "ReleasePublishing",
      dependencies: ["ReleaseCore", "ReleaseGeneration", "ReleaseNetwork", "ReleaseSystem"]),
    // The over-the-air channel: rollouts.json, rollout changes and the manifests devices fetch.
    .target(
      name: "ReleaseOTA",
      dependencies: [
        "ReleaseAlignment", "ReleaseCore", "ReleaseEvaluation", "ReleaseJSON", "ReleaseManifest",
        "ReleaseModels", "ReleaseSigning", "ReleaseSystem",
      ]),
    // The settings phase: release.config.json read once and merged with the command line and
    // the environment, keys read, URL and destination policy checked, into typed settings per
    // command.
    .target(
      name: "ReleaseSettings",
      dependencies: [
        "ReleaseCore", "ReleaseEvaluation", "ReleaseJSON", "ReleaseManifest", "ReleaseModels",
        "ReleaseNetwork", "ReleaseOTA", "ReleasePublishing", "ReleaseSigning", "ReleaseSystem",
      ]),
    // The engine of a run: its context, the phases, `Pipeline` and the steps other parts
    // reuse (load, align, plan, generate, archive, stage, merge, publish, the `ota publish` chain), release records, notes,
    // shard plans.
    .target(
      name: "ReleasePipeline",
      dependencies: [
        "ReleaseAlignment", "ReleaseArchive", "ReleaseCore", "ReleaseGeneration", "ReleaseJSON",
        "ReleaseManifest", "ReleaseModels", "ReleaseNetwork", "ReleaseOTA", "ReleasePublishing",
        "ReleaseReporting", "ReleaseSettings", "ReleaseSigning", "ReleaseSystem",
      ]),
    // Building and testing customers' packages: warm build slots, compile keys and their test
    // binaries, the build step and the step that runs every customer's steps in parallel.
    .target(
      name: "ReleaseBuild",
      dependencies: [
        "ReleaseAlignment", "ReleaseArchive", "ReleaseCore", "ReleaseGeneration", "ReleaseJSON",
        "ReleaseManifest", "ReleaseModels", "ReleaseNetwork", "ReleaseOTA", "ReleasePipeline",
        "ReleasePublishing", "ReleaseReporting", "ReleaseSettings", "ReleaseSigning", "ReleaseSystem",
      ]),
    // What proves a release is what its inputs make: the content checks (safe archive, digests,
    // exactly the customer's models and features, no other customer, the privacy manifest), the
    // package regenerated and compared, and `release verify`'s steps.
    .target(
      name: "ReleaseVerification",
      dependencies: [
        "ReleaseAlignment", "ReleaseArchive", "ReleaseBuild", "ReleaseCore", "ReleaseGeneration",
        "ReleaseJSON", "ReleaseManifest", "ReleaseModels", "ReleasePipeline", "ReleaseReporting",
        "ReleaseSettings", "ReleaseSigning", "ReleaseSystem",
      ]),
    // The release run: `ReleaseRun.pipeline` chains the steps; the run-level steps from
    // planning to tagging, the artifact list and the state write; the chains of `plan` and
    // `share`.
    .target(
      name: "ReleaseFlow",
      dependencies: [
        "ReleaseAlignment", "ReleaseArchive", "ReleaseBuild", "ReleaseCore", "ReleaseGeneration",
        "ReleaseJSON", "ReleaseManifest", "ReleaseModels", "ReleaseNetwork", "ReleaseOTA", "ReleasePipeline",
        "ReleasePublishing", "ReleaseReporting", "ReleaseSettings", "ReleaseSigning", "ReleaseSystem",
        "ReleaseVerification",
      ]),
    // `release bump`: the SDK version moved everywhere it appears, as one reviewable change.
    .target(
      name: "ReleaseBump",
      dependencies: [
        "ReleaseCore", "ReleaseGeneration", "ReleasePipeline", "ReleasePublishing", "ReleaseSettings",
        "ReleaseSystem",
      ]),
    // The command line: the command table, parsing, help, and each
    // command's run (release, bump, plan, verify, rollout and ota, keys, share).
    .target(
      name: "ReleaseCLI",
      dependencies: [
        "ReleaseAlignment", "ReleaseArchive", "ReleaseBuild", "ReleaseBump", "ReleaseCore",
        "ReleaseEvaluation", "ReleaseFlow", "ReleaseGeneration", "ReleaseJSON", "ReleaseManifest",
        "ReleaseModels", "ReleaseNetwork", "ReleaseOTA", "ReleasePipeline", "ReleasePublishing",
        "ReleaseReporting", "ReleaseSettings", "ReleaseSigning", "ReleaseSystem", "ReleaseVerification",
      ]),
    .executableTarget(name: "release", dependencies: ["ReleaseCLI", "ReleaseCore", "ReleaseSystem"]),

    .testTarget(name: "ReleaseSystemTests", dependencies: ["ReleaseSystem"]),
    .testTarget(name: "ReleaseJSONTests", dependencies: ["ReleaseJSON"]),
    .testTarget(name: "ReleaseArchiveTests", dependencies: ["ReleaseArchive"]),
    .testTarget(name: "ReleaseNetworkTests", dependencies: ["ReleaseNetwork"]),
    .testTarget(name: "ReleaseModelsTests", dependencies: ["ReleaseModels", "ReleaseSystem"]),
    .testTarget(
      name: "ReleaseManifestTests", dependencies: ["ReleaseJSON", "ReleaseManifest", "ReleaseModels"]),
    .testTarget(name: "ReleaseSigningTests", dependencies: ["ReleaseSigning", "ReleaseSystem"]),
    .testTarget(name: "ReleaseEvaluationTests", dependencies: ["ReleaseEvaluation"]),
    .testTarget(
      name: "ReleaseSettingsTests",
      dependencies: [
        "ReleaseCore", "ReleaseNetwork", "ReleaseOTA", "ReleasePublishing", "ReleaseSettings",
        "ReleaseSigning",
        "ReleaseSystem", "ReleaseTestSupport",
      ]),
    .testTarget(
      name: "ReleaseOTATests",
      dependencies: ["ReleaseOTA", "ReleaseSigning", "ReleaseTestSupport"]),
    .testTarget(
      name: "ReleaseGenerationTests",
      dependencies: [
        "ReleaseCore", "ReleaseGeneration", "ReleaseManifest", "ReleaseSystem", "ReleaseTestSupport",
      ]),
    // What several test targets share: workspaces, fakes, fixtures, moto_server and proxies.
    .target(
      name: "ReleaseTestSupport",
      dependencies: [
        "ReleaseArchive", "ReleaseCore", "ReleaseEvaluation", "ReleaseNetwork", "ReleasePipeline",
        "ReleaseReporting", "ReleaseSettings", "ReleaseSigning", "ReleaseSystem",
      ],
      path: "Tests/ReleaseTestSupport"),
    // Running the whole command line in the test process (`Workspace.run`, `InProcessCLI`):
    // only ReleaseCLITests and ReleaseEndToEndTests depend on it, and so link the tool.
    .target(
      name: "ReleaseCLITestSupport",
      dependencies: [
        "ReleaseCLI", "ReleaseCore", "ReleaseOTA", "ReleaseSigning", "ReleaseSystem", "ReleaseTestSupport",
      ],
      path: "Tests/ReleaseCLITestSupport"),
    .testTarget(
      name: "ReleaseReportingTests",
      dependencies: [
        "ReleaseGeneration", "ReleaseJSON", "ReleaseManifest", "ReleasePipeline",
        "ReleaseReporting", "ReleaseSystem", "ReleaseTestSupport",
      ]),
    .testTarget(
      name: "ReleaseAlignmentTests",
      dependencies: [
        "ReleaseAlignment", "ReleaseCore", "ReleaseJSON", "ReleaseManifest", "ReleaseModels",
        "ReleaseTestSupport",
      ]),
    .testTarget(
      name: "ReleaseCoreTests",
      dependencies: ["ReleaseCore", "ReleaseSystem", "ReleaseTestSupport"]),
    .testTarget(
      name: "ReleasePublishingTests",
      dependencies: [
        "ReleaseArchive", "ReleaseCore", "ReleaseNetwork", "ReleasePipeline",
        "ReleasePublishing", "ReleaseSigning", "ReleaseSystem", "ReleaseTestSupport", "ReleaseVerification",
      ]),
    .testTarget(
      name: "ReleaseBuildTests",
      dependencies: [
        "ReleaseArchive", "ReleaseBuild", "ReleaseCore",
        "ReleaseGeneration", "ReleaseManifest", "ReleaseModels", "ReleaseNetwork", "ReleaseOTA",
        "ReleasePipeline", "ReleaseReporting", "ReleaseSettings", "ReleaseSigning", "ReleaseSystem",
        "ReleaseTestSupport", "ReleaseVerification",
      ]),
    .testTarget(
      name: "ReleaseFlowTests",
      dependencies: [
        "ReleaseArchive", "ReleaseBuild", "ReleaseCore", "ReleaseFlow",
        "ReleaseGeneration", "ReleaseManifest", "ReleaseModels", "ReleaseNetwork", "ReleaseOTA",
        "ReleasePipeline", "ReleasePublishing", "ReleaseReporting", "ReleaseSettings", "ReleaseSigning",
        "ReleaseSystem", "ReleaseTestSupport",
      ]),
    .testTarget(
      name: "ReleasePipelineTests",
      dependencies: [
        "ReleaseArchive", "ReleaseCore", "ReleaseGeneration",
        "ReleaseManifest", "ReleaseModels", "ReleaseNetwork", "ReleaseOTA", "ReleasePipeline",
        "ReleaseReporting", "ReleaseSettings",
        "ReleaseSigning", "ReleaseSystem", "ReleaseTestSupport",
      ]),
    .testTarget(
      name: "ReleaseVerificationTests",
      dependencies: [
        "ReleaseCore", "ReleaseGeneration", "ReleaseManifest", "ReleaseModels", "ReleasePipeline",
        "ReleaseReporting", "ReleaseSettings", "ReleaseSigning", "ReleaseSystem", "ReleaseTestSupport",
        "ReleaseVerification",
      ]),
    .testTarget(
      name: "ReleaseBumpTests",
      dependencies: [
        "ReleaseBump", "ReleaseCore", "ReleaseGeneration",
        "ReleaseSystem", "ReleaseTestSupport",
      ]),
    // Whatever crosses processes: the `release` command line run in process or as the built
    // binary, against git, moto_server, local HTTP servers, real `swift build`s and consumers.
    .testTarget(
      name: "ReleaseEndToEndTests",
      dependencies: [
        "ReleaseArchive", "ReleaseBuild", "ReleaseBump", "ReleaseCLI", "ReleaseCLITestSupport", "ReleaseCore",
        "ReleaseFlow", "ReleaseGeneration", "ReleaseJSON", "ReleaseManifest", "ReleaseModels",
        "ReleaseNetwork",
        "ReleaseOTA", "ReleasePipeline", "ReleasePublishing", "ReleaseReporting", "ReleaseSettings",
        "ReleaseSigning", "ReleaseSystem", "ReleaseTestSupport", "ReleaseVerification",
      ]),
    .testTarget(
      name: "ReleaseCLITests",
      dependencies: [
        "ReleaseArchive", "ReleaseCLI", "ReleaseCLITestSupport", "ReleaseCore", "ReleaseEvaluation",
        "ReleaseFlow", "ReleaseGeneration", "ReleaseJSON", "ReleaseManifest", "ReleaseOTA", "ReleasePipeline",
        "ReleaseSettings", "ReleaseSigning", "ReleaseSystem", "ReleaseTestSupport", "ReleaseVerification",
      ]),
  ]
)
