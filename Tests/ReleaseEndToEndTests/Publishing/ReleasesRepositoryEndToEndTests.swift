import Foundation
import ReleaseArchive
import ReleaseCLITestSupport
import ReleaseSystem
import ReleaseTestSupport
import XCTest

/// Publishing destination `git:`: a SwiftPM releases repository per customer, consumed the
/// way a customer's engineer does it — a package in a temporary directory that depends on it
/// by URL with `from:`, built with `swift build` and run. Expectations come from the manifest
/// and the model store, never from the tool's output. The releases build with a stand-in
/// `swift` (`StandInSwift`): the consumer's real build of what was published is the one that
/// proves the package compiles.
final class ReleasesRepositoryEndToEndTests: XCTestCase {
  /// The stand-in this test's releases build with, made by the first.
  private var standIn: StandInSwift?

  static func manifest(modelVersion: Int) -> String {
    """
    [{"id": "acme", "name": "Acme Fitness", "bundle_identifiers": ["com.acme.fitness"],
      "app_id": "3f2b8c1e-6d4a-4e9b-9a51-0c7d2e8f4a10",
      "customModels": [{"flowId": 8362, "flowName": "onboarding_upsell", "modelVersion": \(modelVersion)}]}]
    """
  }

  /// What the consumer must print for acme's only flow, from the manifest and the store.
  func expectedFlowLine(_ workspace: Workspace) throws -> (line: String, model: URL) {
    let data = try Data(contentsOf: workspace.file("customers.json"))
    let customers = try XCTUnwrap(try JSONSerialization.jsonObject(with: data) as? [[String: Any]])
    let flow = try XCTUnwrap((customers.first?["customModels"] as? [[String: Any]])?.first)
    let name = try XCTUnwrap(flow["flowName"] as? String)
    let id = try XCTUnwrap(flow["flowId"] as? Int)
    let version = try XCTUnwrap(flow["modelVersion"] as? Int)
    let model = workspace.file("models/\(name)/\(version).mlmodel")
    return ("flow \(name) \(id) v\(version) sha256 \(try SHA256Digest.hex(ofFileAt: model))", model)
  }

  func run(_ workspace: Workspace, _ arguments: [String]) throws -> Workspace.Run {
    let swift = try standIn ?? StandInSwift()
    standIn = swift
    return workspace.run(
      ["customer", "acme", "--skip-tests"] + arguments + swift.cacheArguments,
      environment: TestGit.environment.merging(swift.environment) { $1 })
  }

  /// The tree the releases repository's tag `version` points at is exactly the archive in
  /// dist/ (paths and bytes); returns the archive's files by path inside the package.
  @discardableResult
  func assertTagHoldsTheArchive(
    _ version: String, _ repository: URL, _ workspace: Workspace, line: UInt = #line
  ) throws -> [String: Data] {
    let zip = workspace.dist.appendingPathComponent("acme/\(version)/ContextSDK_Acme-\(version).zip")
    var archived: [String: Data] = [:]
    try ZipReader.forEachFile(in: zip) { entry, file in
      var data = Data()
      try file.forEachBlock { data.append(contentsOf: $0) }
      archived[String(entry.path.drop { $0 != "/" }.dropFirst())] = data
    }
    let tree = try TestGit.run(["ls-tree", "-r", "--name-only", "refs/tags/\(version)"], in: repository)
    XCTAssertEqual(Set(tree.split(separator: "\n").map(String.init)), Set(archived.keys), line: line)
    // Bytes: git's blob ids of the archive's files equal those in the tagged tree.
    let scratch = try TemporaryDirectory()
    let paths = archived.keys.sorted()
    var files: [String] = []
    for (index, path) in paths.enumerated() {
      let file = scratch.url.appendingPathComponent("\(index)")
      try archived[path]!.write(to: file)
      files.append(file.path)
    }
    let hashed = try TestGit.run(["hash-object", "--no-filters"] + files, in: repository).split(
      separator: "\n")
    let listed = try TestGit.run(["ls-tree", "-r", "refs/tags/\(version)"], in: repository).split(
      separator: "\n")
    var blobs: [String: String] = [:]
    for entry in listed {
      let parts = entry.split(separator: "\t", maxSplits: 1)
      if parts.count == 2, let object = parts[0].split(separator: " ").last {
        blobs[String(parts[1])] = String(object)
      }
    }
    XCTAssertEqual(hashed.map(String.init), paths.map { blobs[$0] ?? "missing" }, line: line)
    return archived
  }

  /// A run that publishes only to releases repositories puts the over-the-air manifests and
  /// models in `publish.otaDestination` of release.config.json; without one it is refused
  /// before anything is published.
  func testAGitOnlyReleasePublishesOverTheAirToTheConfiguredObjectStoreOrIsRefused() throws {
    let scratch = try TemporaryDirectory()
    let releases = scratch.url.appendingPathComponent("releases")
    let workspace = try Workspace(manifest: Self.manifest(modelVersion: 73))
    let root = workspace.root
    let config = workspace.file("release.config.json")
    let gitOnly = #"{"publish": {"destinations": ["git:\#(releases.path)/{id}.git"]"#
    try (gitOnly + "}}").write(to: config, atomically: true, encoding: .utf8)
    try TestGit.initialize(root)
    let rollout = workspace.run(["rollout", "acme", "onboarding_upsell", "74", "--percent", "10"])
    XCTAssertEqual(rollout.exitCode, 0, rollout.allOutput)
    let record = try run(workspace, ["--no-publish"])
    XCTAssertEqual(record.exitCode, 0, record.allOutput)
    try TestGit.commitAll(root, message: "Release acme, rollout of onboarding_upsell v74")

    let refused = try run(workspace, [])
    XCTAssertEqual(refused.exitCode, 2, refused.allOutput)
    XCTAssertEqual(
      refused.standardError,
      [
        "error: rollouts.json: models over the air need an object store (dir: or s3:), and this run publishes only to git: releases repositories; name one in release.config.json as publish.otaDestination"
      ])
    XCTAssertFalse(FileManager.default.fileExists(atPath: releases.path), "nothing published")

    try (gitOnly + #", "otaDestination": "dir:ota-published"}}"#).write(
      to: config, atomically: true, encoding: .utf8)
    try TestGit.commitAll(root, message: "Over-the-air manifests to ota-published")
    let published = try run(workspace, [])
    XCTAssertEqual(published.exitCode, 0, published.allOutput)
    XCTAssertTrue(FileManager.default.fileExists(atPath: releases.appendingPathComponent("acme.git").path))
    let manifest = try jsonObject(
      try Data(contentsOf: workspace.file("ota-published/ota/acme/models.json")), "models.json")
    let flows = try XCTUnwrap(manifest["flows"] as? [String: Any])
    let offer = try XCTUnwrap(
      ((flows["onboarding_upsell"] as? [String: Any])?["models"] as? [[String: Any]])?.first)
    XCTAssertEqual(offer["modelVersion"] as? Int, 74)
    XCTAssertEqual(offer["rolloutPercent"] as? Int, 10)
    let sha256 = try SHA256Digest.hex(ofFileAt: workspace.file("models/onboarding_upsell/74.mlmodel"))
    XCTAssertEqual(offer["sha256"] as? String, sha256)
    XCTAssertEqual(
      try SHA256Digest.hex(ofFileAt: workspace.file("ota-published/ota/models/\(sha256).mlmodel")), sha256)
  }

  func testTheReleasesRepositoryServesTheCustomerPackageToAConsumerAndANewVersionResolves() throws {
    let scratch = try TemporaryDirectory()
    let releases = scratch.url.appendingPathComponent("releases")
    let repository = releases.appendingPathComponent("acme.git")
    let url = "file://\(repository.path)"

    // A project checkout whose release.config.json publishes to the releases repositories, so
    // every run (also --no-publish) generates packages whose README names that URL.
    let workspace = try Workspace(manifest: Self.manifest(modelVersion: 73))
    let root = workspace.root
    let sdk = try workspace.sdkVersion()
    try #"{"publish": {"destinations": ["git:\#(releases.path)/{id}.git"]}}"#
      .write(to: workspace.file("release.config.json"), atomically: true, encoding: .utf8)
    try TestGit.initialize(root)

    // Record the release (no publishing, no tags), commit it, then publish and tag that commit.
    let record = try run(workspace, ["--no-publish"])
    XCTAssertEqual(record.exitCode, 0, record.allOutput)
    XCTAssertFalse(FileManager.default.fileExists(atPath: repository.path), "--no-publish publishes nothing")
    try TestGit.commitAll(root, message: "Release acme \(sdk)")
    let first = try run(workspace, [])
    XCTAssertEqual(first.exitCode, 0, first.allOutput)
    XCTAssertTrue(first.allOutput.contains("published as tag \(sdk) in \(url)"), first.allOutput)

    // The bare repository: branch main and tag <version>, annotated, whose tree is the
    // package exactly as in the archive.
    XCTAssertEqual(try TestGit.run(["rev-parse", "--is-bare-repository"], in: repository), "true")
    XCTAssertEqual(Set(try TestGit.refs(repository).keys), ["refs/heads/main", "refs/tags/\(sdk)"])
    XCTAssertEqual(try TestGit.run(["cat-file", "-t", "refs/tags/\(sdk)"], in: repository), "tag")
    let archived = try assertTagHoldsTheArchive(sdk.description, repository, workspace)
    let readme = try TestGit.run(["show", "refs/tags/\(sdk):README.md"], in: repository)
    XCTAssertEqual(
      archived["README.md"].map {
        String(decoding: $0, as: UTF8.self).trimmingCharacters(in: .whitespacesAndNewlines)
      },
      readme)
    // A file:// repository is no URL a customer fetches from: the README adds the zip by path.
    XCTAssertTrue(readme.contains(#".package(path: "ContextSDK_Acme")"#), readme)
    XCTAssertFalse(readme.contains(url), readme)
    // The project repository is tagged too, on the commit that records the release.
    XCTAssertEqual(try TestGit.taggedCommit("acme/v\(sdk)", in: root), try TestGit.head(root))

    // Publishing the same release again is done already, and changes nothing.
    let refsBefore = try TestGit.refs(repository)
    let again = try run(workspace, ["--publish", "git:\(releases.path)/{id}.git"])
    XCTAssertEqual(again.exitCode, 0, again.allOutput)
    XCTAssertTrue(again.allOutput.contains("already published: tag \(sdk) in \(url)"), again.allOutput)
    XCTAssertEqual(try TestGit.refs(repository), refsBefore)

    // A consumer package depends on the releases repository by URL and calls the SDK.
    let consumer = scratch.url.appendingPathComponent("Consumer")
    try Consumer.write(to: consumer, url: url, from: sdk.description, flow: "onboarding_upsell")
    try Consumer.swift(["build"], in: consumer)
    XCTAssertEqual(try Consumer.resolvedVersion(consumer, identity: "acme"), sdk.description)
    let output = try Consumer.swift(["run", "--skip-build", "Consumer"], in: consumer)
    let expected = try expectedFlowLine(workspace)
    try Consumer.check(output, expected: expected, sdk: sdk.description)

    // A customer-only change (a new model version for acme): the next patch version.
    try Self.manifest(modelVersion: 74).write(
      to: workspace.file("customers.json"), atomically: true, encoding: .utf8)
    try TestGit.commitAll(root, message: "acme: onboarding_upsell v74")
    let patch = "\(sdk.major).\(sdk.minor).\(sdk.patch + 1)"
    let recordPatch = try run(workspace, ["--no-publish"])
    XCTAssertEqual(recordPatch.exitCode, 0, recordPatch.allOutput)
    try TestGit.commitAll(root, message: "Release acme \(patch)")
    let second = try run(workspace, [])
    XCTAssertEqual(second.exitCode, 0, second.allOutput)
    XCTAssertTrue(second.allOutput.contains("published as tag \(patch) in \(url)"), second.allOutput)
    XCTAssertEqual(
      Set(try TestGit.refs(repository).keys), ["refs/heads/main", "refs/tags/\(sdk)", "refs/tags/\(patch)"])
    XCTAssertEqual(
      try TestGit.run(["rev-parse", "refs/tags/\(patch)^{commit}^"], in: repository),
      try TestGit.run(["rev-parse", "refs/tags/\(sdk)^{commit}"], in: repository), "one linear history")
    XCTAssertEqual(try TestGit.taggedCommit("acme/v\(patch)", in: root), try TestGit.head(root))
    let patchFiles = try assertTagHoldsTheArchive(patch, repository, workspace)
    XCTAssertEqual(
      patchFiles.keys.filter { $0.hasSuffix(".mlmodel") },
      ["Sources/ContextSDK/Resources/Models/onboarding_upsell_v74.mlmodel"],
      "the previous version's model is gone from the new commit")

    // The consumer, still asking for `from: <sdk>`, gets the patch after an update: SwiftPM
    // checks out exactly the patch's files. (The first build proved that such a package builds
    // and serves the consumer; building the patch again would prove the same code compiles.)
    try Consumer.swift(["package", "update"], in: consumer)
    XCTAssertEqual(try Consumer.resolvedVersion(consumer, identity: "acme"), patch)
    let checkout = consumer.appendingPathComponent(".build/checkouts/acme")
    for (path, data) in patchFiles {
      XCTAssertEqual(
        try? Data(contentsOf: checkout.appendingPathComponent(path)), data,
        "\(path) in the consumer's checkout")
    }
    let model = try expectedFlowLine(workspace).model
    XCTAssertEqual(
      try Data(
        contentsOf: checkout.appendingPathComponent(
          "Sources/ContextSDK/Resources/Models/onboarding_upsell_v74.mlmodel")),
      try Data(contentsOf: model), "the consumer gets the new model version from the store")
  }
}

/// The customer's app, as small as it gets.
enum Consumer {
  static func write(to directory: URL, url: String, from version: String, flow: String) throws {
    let sources = directory.appendingPathComponent("Sources/Consumer")
    try FileManager.default.createDirectory(at: sources, withIntermediateDirectories: true)
    try """
    // swift-tools-version:5.9
    import PackageDescription

    let package = Package(
      name: "Consumer",
      dependencies: [.package(url: "\(url)", from: "\(version)")],
      targets: [
        .executableTarget(name: "Consumer", dependencies: [.product(name: "ContextSDK", package: "acme")])
      ]
    )

    """.write(to: directory.appendingPathComponent("Package.swift"), atomically: true, encoding: .utf8)
    try """
    import ContextSDK
    import Foundation

    let flow = "\(flow)"
    guard let model = ContextSDK.configuration.model(forFlow: flow) else {
      FileHandle.standardError.write(Data("no model for \\(flow)\\n".utf8))
      exit(1)
    }
    guard let url = ContextSDK.bundledModelURL(forFlow: flow) else {
      FileHandle.standardError.write(Data("no bundled model for \\(flow)\\n".utf8))
      exit(1)
    }
    print("flow \\(model.flowName) \\(model.flowId) v\\(model.modelVersion) sha256 \\(model.sha256)")
    print("bundled \\(url.path)")
    print("sdk \\(contextSDKVersion) \\(ContextSDK.configuration.sdkVersion)")

    """.write(to: sources.appendingPathComponent("main.swift"), atomically: true, encoding: .utf8)
  }

  /// Runs `swift <arguments>` in the consumer; its standard output, or a failure with the log.
  @discardableResult
  static func swift(_ arguments: [String], in directory: URL) throws -> String {
    try TestGit.runProgram("swift", SharedModuleCache.swiftArguments(arguments), in: directory)
  }

  /// The version Package.resolved pins for `identity`.
  static func resolvedVersion(_ directory: URL, identity: String) throws -> String? {
    let data = try Data(contentsOf: directory.appendingPathComponent("Package.resolved"))
    let pins = (try JSONSerialization.jsonObject(with: data) as? [String: Any])?["pins"] as? [[String: Any]]
    let pin = pins?.first { $0["identity"] as? String == identity }
    return (pin?["state"] as? [String: Any])?["version"] as? String
  }

  static func check(
    _ output: String, expected: (line: String, model: URL), sdk: String, file: StaticString = #filePath,
    line: UInt = #line
  ) throws {
    let lines = output.split(separator: "\n").map(String.init).filter {
      $0.hasPrefix("flow ") || $0.hasPrefix("bundled ") || $0.hasPrefix("sdk ")
    }
    XCTAssertEqual(lines.count, 3, output, file: file, line: line)
    guard lines.count == 3 else { return }
    XCTAssertEqual(lines[0], expected.line, output, file: file, line: line)
    let bundled = URL(fileURLWithPath: String(lines[1].dropFirst("bundled ".count)))
    XCTAssertEqual(
      try Data(contentsOf: bundled), try Data(contentsOf: expected.model), "the bundled model is the store's",
      file: file, line: line)
    XCTAssertEqual(lines[2], "sdk \(sdk) \(sdk)", output, file: file, line: line)
  }
}
