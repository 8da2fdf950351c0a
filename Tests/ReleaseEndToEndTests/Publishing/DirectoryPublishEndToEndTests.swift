import Foundation
import ReleaseCLITestSupport
import ReleaseSigning
import ReleaseSystem
import ReleaseTestSupport
import XCTest

@testable import ReleasePipeline

/// The SDK version a customer's first release takes (the repository's).
private let firstVersion = Workspace.sdkVersion()

/// Publishing to a directory (the default destination) and the committed config file that
/// chooses destinations. Expectations are computed from dist/'s release.json files.
final class DirectoryPublishEndToEndTests: XCTestCase {
  static let publicBase = "https://sdk.example.com/releases"

  /// The stand-in this test's releases build with (`StandInSwift`): a public URL is another
  /// package, so the fixture's customers are built again, and what is checked is what is
  /// published, which no compile changes.
  private lazy var standIn = Result { try StandInSwift() }

  /// A public URL needs a trusted key, and publishing the signed channel its private half; with
  /// it, every zip gets its `.sig` and every customer index is signed.
  func publish(_ workspace: Workspace, _ extra: [String] = []) throws -> Workspace.Run {
    let swift = try standIn.get()
    return workspace.run(
      ["all", "--skip-tests", "--allow-dirty", "--publish", "dir:published", "--public-url", Self.publicBase]
        + extra + swift.cacheArguments,
      environment: try workspace.trustSigningKey().merging(swift.environment) { $1 })
  }

  /// The customer index a set of releases of one customer must produce, newest last.
  static func expectedCustomerIndex(_ releases: [ExpectedRelease], publicBase: String) -> [String: Any] {
    let newest = releases.last!.record
    var index: [String: Any] = [
      "id": newest.customer.id, "packageName": newest.packageName, "latest": newest.version,
      "versions": releases.map { $0.indexEntry(publicBase: publicBase) },
    ]
    if let name = newest.customer.name { index["name"] = name }
    return index
  }

  func testLayoutIndexesAndChecksumsMatchDistAndARepublishChangesNothing() throws {
    let workspace = try BuiltFixture.shared.get().copy()
    let first = try publish(workspace)
    XCTAssertEqual(first.exitCode, 0, first.allOutput)
    // Per customer its zip, checksum file and signature.
    XCTAssertTrue(first.allOutput.contains("6 new objects, 0 already in place"), first.allOutput)
    let key = try Workspace.trustedKey(workspace)

    let published = workspace.file("published")
    let releases = try PublishFixtures.customers.map { try ExpectedRelease(dist: workspace.dist, id: $0) }
    // The lock publishers into this directory share while they merge indexes.
    var expectedFiles: Set<String> = ["index.json", ".release-publish.lock"]
    // Each customer's signed channel, under the id the run recorded for it.
    let channels = try ReleaseStateFile.channels(workspace)
    for release in releases {
      expectedFiles.formUnion(release.artifactKeys + [release.artifactKeys[0] + ".sig"] + release.otaKeys)
      expectedFiles.insert("customers/\(release.record.customer.id)/index.json")
      let channel = try XCTUnwrap(channels[release.record.customer.id])
      expectedFiles.formUnion(["ota/\(channel)/manifest.json", "ota/\(channel)/manifest-1.json"])
    }
    let snapshot = Workspace.snapshot(published)
    XCTAssertEqual(Set(snapshot.keys), expectedFiles, "exactly the artifacts and indexes, no temporary files")

    for release in releases {
      // The archive and its checksum file, byte for byte as in dist/.
      for key in release.artifactKeys {
        XCTAssertEqual(
          try Data(contentsOf: published.appendingPathComponent(key)),
          try Data(contentsOf: release.localFile(forKey: key)), key)
      }
      XCTAssertEqual(snapshot[release.artifactKeys[0]], release.record.artifact.sha256)
      // Its over-the-air manifest: every flow with the bundled version, nothing offered yet (the
      // signed channel's payload: the package pins keys, so it has no legacy manifest).
      XCTAssertEqual(release.otaKeys, [], "no legacy manifest")
      let pointer = "ota/\(try XCTUnwrap(channels[release.record.customer.id]))/manifest.json"
      let envelope = try jsonObject(try Data(contentsOf: published.appendingPathComponent(pointer)), pointer)
      let ota = try jsonObject(
        try XCTUnwrap(Data(base64Encoded: try XCTUnwrap(envelope["payload"] as? String))), "payload")
      XCTAssertEqual(ota["revision"] as? Int, 1)
      XCTAssertEqual(ota["appID"] as? String, release.record.customer.appID)
      let flows = try XCTUnwrap(ota["flows"] as? [String: [String: Any]])
      XCTAssertEqual(Set(flows.keys), Set(release.record.models.map(\.flowName)))
      for model in release.record.models {
        XCTAssertEqual(flows[model.flowName]?["bundledVersion"] as? Int, model.modelVersion)
        XCTAssertEqual((flows[model.flowName]?["models"] as? [Any])?.count, 0)
      }
      let checksumLine = try String(
        contentsOf: published.appendingPathComponent(release.artifactKeys[1]), encoding: .utf8)
      XCTAssertEqual(checksumLine, "\(release.record.artifact.sha256)  \(release.record.artifact.file)\n")

      let index = "customers/\(release.record.customer.id)/index.json"
      assertJSONEqual(
        try signedIndex(try Data(contentsOf: published.appendingPathComponent(index)), index, key: key),
        Self.expectedCustomerIndex([release], publicBase: Self.publicBase), index)
    }
    assertJSONEqual(
      try jsonObject(try Data(contentsOf: published.appendingPathComponent("index.json")), "index.json"),
      [
        "customers": releases.map {
          [
            "id": $0.record.customer.id, "latest": $0.record.version,
            "index": "customers/\($0.record.customer.id)/index.json",
          ]
        }
      ], "index.json")

    // Republishing the same release: nothing is uploaded again, no byte changes, and the
    // immutable files are not even rewritten (same inode and modification time).
    func identity(_ key: String) throws -> [FileAttributeKey: AnyHashable] {
      let attributes = try FileManager.default.attributesOfItem(
        atPath: published.appendingPathComponent(key).path)
      return [
        .systemFileNumber: attributes[.systemFileNumber] as! AnyHashable,
        .modificationDate: attributes[.modificationDate] as! AnyHashable,
      ]
    }
    let identities = try releases.flatMap(\.artifactKeys).map(identity)
    let second = try publish(workspace)
    XCTAssertEqual(second.exitCode, 0, second.allOutput)
    XCTAssertTrue(second.allOutput.contains("0 new objects, 6 already in place"), second.allOutput)
    XCTAssertEqual(Workspace.snapshot(published), snapshot)
    XCTAssertEqual(try releases.flatMap(\.artifactKeys).map(identity), identities)
  }

  func testANewVersionJoinsTheCustomerIndexAndBecomesLatest() throws {
    let workspace = try BuiltFixture.shared.get().copy()
    let first = try publish(workspace)
    XCTAssertEqual(first.exitCode, 0, first.allOutput)
    let published = workspace.file("published")
    let acmeIndexBefore = try Data(contentsOf: published.appendingPathComponent("customers/acme/index.json"))
    let oldBluebird = try ExpectedRelease(dist: workspace.dist, id: "bluebird")

    // bluebird's model changes: a patch release, built and published beside the old one.
    try ModelFiles.touchModel(workspace.file("models/onboarding_upsell/72.mlmodel"))
    let second = try publish(workspace)
    XCTAssertEqual(second.exitCode, 0, second.allOutput)
    let newBluebird = try ExpectedRelease(dist: workspace.dist, id: "bluebird")
    XCTAssertNotEqual(newBluebird.record.version, oldBluebird.record.version)
    // bluebird's new zip, checksum and signature; acme's three are in place.
    XCTAssertTrue(second.allOutput.contains("3 new objects, 3 already in place"), second.allOutput)

    assertJSONEqual(
      try signedIndex(
        try Data(contentsOf: published.appendingPathComponent("customers/bluebird/index.json")), "bluebird",
        key: try Workspace.trustedKey(workspace)),
      Self.expectedCustomerIndex([oldBluebird, newBluebird], publicBase: Self.publicBase), "bluebird index")
    XCTAssertEqual(
      try Data(contentsOf: published.appendingPathComponent("customers/acme/index.json")), acmeIndexBefore,
      "acme did not change")
    let top = try jsonObject(
      try Data(contentsOf: published.appendingPathComponent("index.json")), "index.json")
    let latest =
      (top["customers"] as? [[String: Any]])?.first { $0["id"] as? String == "bluebird" }?["latest"]
      as? String
    XCTAssertEqual(latest, newBluebird.record.version)
    for key in oldBluebird.artifactKeys + newBluebird.artifactKeys {
      XCTAssertEqual(
        try SHA256Digest.hex(ofFileAt: published.appendingPathComponent(key)),
        try SHA256Digest.hex(
          ofFileAt: (key.contains(newBluebird.record.version) ? newBluebird : oldBluebird).localFile(
            forKey: key)),
        key)
    }
  }

  func testConfigFileChoosesDestinationsAndFlagsOverrideIt() throws {
    let workspace = try BuiltFixture.shared.get().copy()
    let swift = try standIn.get()
    func run(_ arguments: [String], environment: [String: String] = [:]) -> Workspace.Run {
      workspace.run(
        arguments + swift.cacheArguments, environment: environment.merging(swift.environment) { $1 })
    }
    let signer = try workspace.trustSigningKey(
      configuration:
        #"{"publish": {"destinations": ["dir:from-config"], "publicURL": "https://cdn.example.com/sdk"}}"#
    )

    // No flag: the configured destination and public URL.
    let configured = run(["all", "--skip-tests", "--allow-dirty"], environment: signer)
    XCTAssertEqual(configured.exitCode, 0, configured.allOutput)
    let acme = try ExpectedRelease(dist: workspace.dist, id: "acme")
    let key = try Workspace.trustedKey(workspace)
    let index = try signedIndex(
      try Data(contentsOf: workspace.file("from-config/customers/acme/index.json")), "from-config acme index",
      key: key)
    assertJSONEqual(
      index, Self.expectedCustomerIndex([acme], publicBase: "https://cdn.example.com/sdk"), "configured")
    let fromConfig = Workspace.snapshot(workspace.file("from-config"))

    // --publish and --public-url replace the configured values. Another public URL is another
    // over-the-air manifest URL inside the package: a new release of acme.
    let flagged = run(
      [
        "all", "--skip-tests", "--allow-dirty", "--publish", "dir:from-flag", "--public-url",
        "https://other.example.com",
      ], environment: signer)
    XCTAssertEqual(flagged.exitCode, 0, flagged.allOutput)
    let rebuilt = try ExpectedRelease(dist: workspace.dist, id: "acme")
    XCTAssertNotEqual(rebuilt.record.version, acme.record.version)
    assertJSONEqual(
      try signedIndex(
        try Data(contentsOf: workspace.file("from-flag/customers/acme/index.json")), "from-flag acme index",
        key: key),
      Self.expectedCustomerIndex([rebuilt], publicBase: "https://other.example.com"), "flagged")
    XCTAssertEqual(
      Workspace.snapshot(workspace.file("from-config")), fromConfig, "the configured destination was not used"
    )

    // --no-publish: nothing published anywhere.
    let quiet = run(["all", "--skip-tests", "--no-publish"])
    XCTAssertEqual(quiet.exitCode, 0, quiet.allOutput)
    XCTAssertTrue(quiet.allOutput.contains("skip publish"), quiet.allOutput)
    XCTAssertEqual(Workspace.snapshot(workspace.file("from-config")), fromConfig)

    // --config names another file.
    try #"{"publish": {"destinations": ["dir:from-other-config"]}}"#
      .write(to: workspace.file("other.config.json"), atomically: true, encoding: .utf8)
    let other = run(["all", "--skip-tests", "--allow-dirty", "--config", "other.config.json"])
    XCTAssertEqual(other.exitCode, 0, other.allOutput)
    XCTAssertTrue(FileManager.default.fileExists(atPath: workspace.file("from-other-config/index.json").path))
  }

  func testBadConfigFileIsExitTwoNamingEachProblemAndWritesNothing() throws {
    let workspace = try Workspace(manifest: PublishFixtures.manifest)
    let both = workspace.run(["all", "--no-publish", "--publish", "dir:x"])
    XCTAssertEqual(both.exitCode, 2)
    XCTAssertEqual(both.standardError, ["error: --no-publish: cannot be combined with --publish"])

    try #"""
    {"publish": {"destinatons": ["dir:x"], "s3Endpoint": 5},
     "extra": true}
    """#.write(to: workspace.file("release.config.json"), atomically: true, encoding: .utf8)
    let run = workspace.run(["all", "--skip-tests"])
    XCTAssertEqual(run.exitCode, 2, run.allOutput)
    XCTAssertEqual(
      run.standardError.sorted(),
      [
        "release.config.json: extra: unknown key; expected one of: publish, models, signing, rollouts",
        "release.config.json: publish.destinatons: unknown key (did you mean \"destinations\"?); expected one of: destinations, s3Endpoint, s3Region, publicURL, publishPassed, otaDestination, manifestExpiry, legacyManifests, packageURL",
        "release.config.json: publish.s3Endpoint: expected a non-empty string, found 5",
      ].map { "error: \($0)" }.sorted(), run.allOutput)
    XCTAssertFalse(FileManager.default.fileExists(atPath: workspace.dist.path), "nothing written")

    let missing = workspace.run(["all", "--config", "nope.json"])
    XCTAssertEqual(missing.exitCode, 2)
    XCTAssertEqual(missing.standardError.count, 1, missing.allOutput)
    XCTAssertTrue(missing.allOutput.contains("--config nope.json: no such file"), missing.allOutput)

    try #"{"publish": {"destinations": ["s3://X"]}}"#.write(
      to: workspace.file("release.config.json"), atomically: true, encoding: .utf8)
    let badDestination = workspace.run(["all"])
    XCTAssertEqual(badDestination.exitCode, 2)
    XCTAssertTrue(
      badDestination.allOutput.contains(
        "release.config.json: publish.destinations[0]: --publish s3://X: expected s3://"),
      badDestination.allOutput)
  }

  /// `release all` runs the content checks on every artifact before publishing: a release in
  /// dist/ whose archive still matches its checksum (so it counts as up to date) but whose
  /// release.json no longer accounts for every file stops the run before anything is
  /// published or tagged.
  func testAFailedContentCheckPublishesAndTagsNothing() throws {
    let workspace = try BuiltFixture.shared.get().copy()
    let recordURL = workspace.file("dist/acme/\(firstVersion)/release.json")
    var record = try ReleaseRecord.load(from: recordURL)
    let dropped = try XCTUnwrap(record.files.first { $0.path.hasSuffix("ContextSDK.swift") })
    record.files.removeAll { $0 == dropped }
    try record.encoded().write(to: recordURL)

    // No --public-url: the fixture was built without one, and a public URL is part of every
    // package (its over-the-air manifest URL), so it would rebuild acme instead of checking it.
    let run = workspace.run(["all", "--skip-tests", "--allow-dirty", "--publish", "dir:published", "--json"])
    XCTAssertEqual(run.exitCode, 1, run.allOutput)
    XCTAssertTrue(
      run.standardError.contains {
        $0.contains(
          "acme: ContextSDK_Acme-\(firstVersion).zip: \(dropped.path) is not listed in release.json")
      }, run.allOutput)
    let started = run.events.filter { $0["event"] as? String == "step_started" }.compactMap {
      $0["step"] as? String
    }
    XCTAssertFalse(started.contains("publish"), "publish ran: \(started)")
    XCTAssertFalse(started.contains("tag"), "tag ran: \(started)")
    XCTAssertFalse(FileManager.default.fileExists(atPath: workspace.file("published").path))
    let tags = try SystemProcessRunner().run(ProcessInvocation("git", ["tag", "--list"], in: workspace.root))
    XCTAssertEqual(tags.standardOutput, "")
  }
}
