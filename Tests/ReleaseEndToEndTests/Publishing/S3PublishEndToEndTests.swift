import Foundation
import ReleaseCLITestSupport
import ReleaseSystem
import ReleaseTestSupport
import XCTest

@testable import ReleaseCore
@testable import ReleasePipeline

/// `release … --publish s3://…` against moto_server on 127.0.0.1 with signature checking on,
/// read back with the aws CLI. moto_server and aws are installed by `Scripts/setup --test`;
/// without them these tests fail (never skip).
final class S3PublishEndToEndTests: XCTestCase {
  private static let server = SharedMoto.shared

  /// The test process's moto_server, started by the first test that needs it.
  static func moto() throws -> Moto {
    try server.moto()
  }

  func publish(
    _ workspace: Workspace, bucket: String, endpoint: String, environment: [String: String],
    _ extra: [String] = []
  ) -> Workspace.Run {
    workspace.run(
      ["all", "--skip-tests", "--allow-dirty", "--publish", "s3://\(bucket)/sdk", "--s3-endpoint", endpoint]
        + extra,
      environment: environment)
  }

  /// A release destination on S3 is private: no over-the-air files (devices could not read
  /// them; they go to publish.otaDestination).
  func expectedKeys(_ releases: [ExpectedRelease]) -> Set<String> {
    var keys: Set<String> = ["sdk/index.json"]
    for release in releases {
      keys.formUnion(release.artifactKeys.map { "sdk/\($0)" })
      keys.insert("sdk/customers/\(release.record.customer.id)/index.json")
    }
    return keys
  }

  /// key → SHA-256 only (ETag and modification time dropped), for comparing two buckets.
  func contents(_ snapshot: [String: String]) -> [String: String] {
    snapshot.mapValues { String($0.prefix(64)) }
  }

  // MARK: (b) end to end

  func testReleaseAllBuildsPublishesAndTheAWSCLIReadsBackEveryObject() throws {
    let moto = try Self.moto()
    let bucket = try moto.makeBucket()
    let workspace = try Workspace(manifest: PublishFixtures.manifest)
    try GitFixture.commitAll(workspace.root)

    // As the README has it: a build run records the new versions in release-state.json, the
    // release commit holds them, and the publishing run from that commit publishes and tags.
    // The build is a stand-in's (`StandInSwift`): what is checked is what is published.
    let swift = try StandInSwift()
    let build = workspace.run(["all", "--skip-tests"] + swift.cacheArguments, environment: swift.environment)
    XCTAssertEqual(build.exitCode, 0, build.allOutput)
    try GitFixture.commitAll(workspace.root, message: "Release")
    let run = workspace.run(
      ["all", "--skip-tests", "--json", "--publish", "s3://\(bucket)/sdk", "--s3-endpoint", moto.endpoint]
        + swift.cacheArguments, environment: moto.credentials.merging(swift.environment) { $1 })
    XCTAssertEqual(run.exitCode, 0, run.allOutput)
    let summary = try XCTUnwrap(run.events.last { $0["event"] as? String == "summary" }, run.allOutput)
    XCTAssertEqual(
      (summary["customers"] as? [[String: Any]])?.map { $0["status"] as? String },
      ["up to date", "up to date"])
    let tags = try SystemProcessRunner().run(ProcessInvocation("git", ["tag", "--list"], in: workspace.root))
    let state = try ReleaseState.load(
      from: workspace.file("release-state.json"), displayPath: "release-state.json")
    XCTAssertEqual(
      Set(tags.standardOutput.split(separator: "\n").map(String.init)),
      Set(
        PublishFixtures.customers.map { "\($0)/v\(state.customers[$0]!.version)" } + ["v\(state.sdkVersion)"])
    )

    let releases = try PublishFixtures.customers.map { try ExpectedRelease(dist: workspace.dist, id: $0) }
    let listed = try moto.snapshot(bucket)
    XCTAssertEqual(Set(listed.keys), expectedKeys(releases))

    // Every object's bytes (one `aws s3 sync`); the headers, which the tool sets by the kind of
    // object, of every kind, read from the first customer's.
    let objects = try moto.objects(bucket)
    for (position, release) in releases.enumerated() {
      for (index, key) in release.artifactKeys.enumerated() {
        let data = try Data(contentsOf: release.localFile(forKey: key))
        XCTAssertEqual(objects["sdk/\(key)"], data, key)
        guard position == 0 else { continue }
        let metadata = try moto.getObject(bucket, "sdk/\(key)").metadata
        XCTAssertEqual(
          metadata["ContentType"] as? String, index == 0 ? "application/zip" : "text/plain; charset=utf-8",
          key)
        XCTAssertEqual(metadata["CacheControl"] as? String, "private, max-age=31536000, immutable", key)
        XCTAssertEqual(metadata["ContentLength"] as? Int, data.count, key)
      }
      XCTAssertEqual(
        String(listed["sdk/\(release.artifactKeys[0])"]!.prefix(64)), release.record.artifact.sha256)

      let key = "sdk/customers/\(release.record.customer.id)/index.json"
      let data = try XCTUnwrap(objects[key], key)
      if position == 0 {
        let metadata = try moto.getObject(bucket, key).metadata
        XCTAssertEqual(metadata["ContentType"] as? String, "application/json", key)
        XCTAssertEqual(metadata["CacheControl"] as? String, "private, no-cache", key)
      }
      // Without --public-url, URLs point at the endpoint, path-style.
      assertJSONEqual(
        try jsonObject(data, key),
        DirectoryPublishEndToEndTests.expectedCustomerIndex(
          [release], publicBase: "\(moto.endpoint)/\(bucket)/sdk"),
        key)
    }
    let (top, topMetadata) = try moto.getObject(bucket, "sdk/index.json")
    XCTAssertEqual(topMetadata["CacheControl"] as? String, "private, no-cache")
    assertJSONEqual(
      try jsonObject(top, "index.json"),
      [
        "customers": releases.map {
          [
            "id": $0.record.customer.id, "latest": $0.record.version,
            "index": "customers/\($0.record.customer.id)/index.json",
          ]
        }
      ], "index.json")

    // A second publish of the same release uploads nothing and changes no object (same
    // bytes, same ETag, same modification time).
    let again = publish(workspace, bucket: bucket, endpoint: moto.endpoint, environment: moto.credentials)
    XCTAssertEqual(again.exitCode, 0, again.allOutput)
    XCTAssertTrue(again.allOutput.contains("0 new objects, 4 already in place"), again.allOutput)
    let relisted = try moto.snapshot(bucket)
    XCTAssertEqual(
      relisted.filter { $0.key.contains("/artifacts/") }, listed.filter { $0.key.contains("/artifacts/") })
    XCTAssertEqual(contents(relisted), contents(listed))
  }

  // MARK: (c) immutability

  func testSameVersionWithDifferentBytesFailsAndChangesNothingInTheBucket() throws {
    let moto = try Self.moto()
    let bucket = try moto.makeBucket()
    let workspace = try BuiltFixture.shared.get().copy()
    let first = publish(workspace, bucket: bucket, endpoint: moto.endpoint, environment: moto.credentials)
    XCTAssertEqual(first.exitCode, 0, first.allOutput)
    let published = try ExpectedRelease(dist: workspace.dist, id: "bluebird")

    // bluebird rebuilt from the same inputs with another archive timestamp: same version,
    // other bytes. The rebuilds here build with a stand-in `swift` (`StandInSwift`): the bytes
    // that differ are the archive's, which no compile changes.
    let swift = try StandInSwift()
    let rebuild = workspace.run(
      ["customer", "bluebird", "--force", "--skip-tests"] + swift.cacheArguments,
      environment: swift.environment.merging(["SOURCE_DATE_EPOCH": "1600000000"]) { $1 })
    XCTAssertEqual(rebuild.exitCode, 0, rebuild.allOutput)
    let rebuilt = try ExpectedRelease(dist: workspace.dist, id: "bluebird")
    XCTAssertEqual(rebuilt.record.version, published.record.version)
    XCTAssertNotEqual(rebuilt.record.artifact.sha256, published.record.artifact.sha256)

    // acme's checksum object goes missing: a publish that went ahead before checking
    // everything would upload it again before reaching bluebird.
    let acme = try ExpectedRelease(dist: workspace.dist, id: "acme")
    try moto.aws(["s3api", "delete-object", "--bucket", bucket, "--key", "sdk/\(acme.artifactKeys[1])"])
    let before = try moto.snapshot(bucket)
    try? FileManager.default.removeItem(at: workspace.dist.appendingPathComponent("report.xml"))

    // The same archive time as the rebuild: it is part of the build digest, so acme is
    // rebuilt with it too and now also differs from what was published (and comes first).
    let conflict = publish(
      workspace, bucket: bucket, endpoint: moto.endpoint,
      environment: moto.credentials.merging(["SOURCE_DATE_EPOCH": "1600000000"]) { $1 }.merging(
        swift.environment
      ) { $1 }, ["--json"] + swift.cacheArguments)
    XCTAssertEqual(conflict.exitCode, 1, conflict.allOutput)
    let message = "s3://\(bucket)/sdk/\(acme.artifactKeys[0]): already published with different bytes"
    XCTAssertTrue(conflict.allOutput.contains(message), conflict.allOutput)
    XCTAssertEqual(try moto.snapshot(bucket), before, "the bucket is unchanged")
    XCTAssertFalse(conflict.allOutput.contains("tagged"), "nothing after publish ran")
    // The failure came after the customers were checked: the summary and report.xml still
    // say what this run had.
    let summary = conflict.events.first { $0["event"] as? String == "summary" }
    XCTAssertEqual(
      (summary?["customers"] as? [[String: Any]])?.compactMap { $0["id"] as? String },
      PublishFixtures.customers,
      conflict.allOutput)
    let report = try String(contentsOf: workspace.dist.appendingPathComponent("report.xml"), encoding: .utf8)
    for id in PublishFixtures.customers { XCTAssertTrue(report.contains("name=\"\(id) "), report) }
  }

  // MARK: (d) interruption and retries

  func testInterruptedPublishLeavesNoDanglingIndexAndARerunConverges() throws {
    let moto = try Self.moto()
    let workspace = try BuiltFixture.shared.get().copy()
    let releases = try PublishFixtures.customers.map { try ExpectedRelease(dist: workspace.dist, id: $0) }
    // Unsigned, without a public URL: what is checked here is the order of uploads and the
    // convergence of a rerun (SignedPublishEndToEndTests publishes signed).
    let extra: [String] = []
    let credentials = moto.credentials
    // The reference: one clean publish.
    let clean = try moto.makeBucket()
    let reference = publish(
      workspace, bucket: clean, endpoint: moto.endpoint, environment: credentials, extra)
    XCTAssertEqual(reference.exitCode, 0, reference.allOutput)
    let expected = try contents(clean, moto.endpoint, moto)
    XCTAssertEqual(Set(expected.keys), expectedKeys(releases))

    let proxy = try FaultProxy(upstreamPort: moto.port)
    defer { proxy.shutDown() }
    // The server "stops" after the first artifact upload, then after the fifth PUT (every
    // artifact and the first customer index are in).
    for allowedPuts in [1, 5] {
      let bucket = try moto.makeBucket()
      try proxy.command("fail-after-puts \(allowedPuts)")
      let interrupted = publish(
        workspace, bucket: bucket, endpoint: proxy.endpoint, environment: credentials, extra)
      XCTAssertEqual(interrupted.exitCode, 1, interrupted.allOutput)
      XCTAssertTrue(
        interrupted.allOutput.contains("(after 4 attempts)"), "retried with backoff: \(interrupted.allOutput)"
      )

      let objects = try moto.objects(bucket)
      let partial = objects.mapValues { SHA256Digest.hex(of: $0) }
      XCTAssertEqual(partial.count, allowedPuts, "\(allowedPuts): \(partial.keys.sorted())")
      XCTAssertNil(partial["sdk/index.json"], "the top-level index comes last")
      try assertEveryIndexPointsAtPresentObjects(objects, base: "\(proxy.endpoint)/\(bucket)/sdk")
      if allowedPuts == 5 {
        XCTAssertEqual(
          partial.keys.filter { $0.contains("/artifacts/") }.count, 4, "every artifact before any index")
        XCTAssertEqual(partial.keys.filter { $0.contains("/customers/") }.count, 1)
      }

      try proxy.command("heal")
      let rerun = publish(
        workspace, bucket: bucket, endpoint: proxy.endpoint, environment: credentials, extra)
      XCTAssertEqual(rerun.exitCode, 0, rerun.allOutput)
      let artifactsPresent = partial.keys.filter { $0.contains("/artifacts/") }.count
      XCTAssertTrue(
        rerun.allOutput.contains("\(4 - artifactsPresent) new objects, \(artifactsPresent) already in place"),
        rerun.allOutput)
      XCTAssertEqual(
        try contents(bucket, proxy.endpoint, moto), expected,
        "converged to the clean publish (\(allowedPuts))")
    }

    // Transient connection failures are retried with backoff, and the publish goes through.
    let flaky = try moto.makeBucket()
    try proxy.command("drop 2")
    let retried = publish(
      workspace, bucket: flaky, endpoint: proxy.endpoint, environment: credentials, extra)
    XCTAssertEqual(retried.exitCode, 0, retried.allOutput)
    XCTAssertEqual(try contents(flaky, proxy.endpoint, moto), expected)
  }

  /// key → SHA-256 of every object, with the S3 URL of the prefix (`<endpoint>/<bucket>/sdk`,
  /// in the indexes' url fields) written as `<base>`: buckets published alike compare equal.
  func contents(_ bucket: String, _ endpoint: String, _ moto: Moto) throws -> [String: String] {
    try moto.objects(bucket).mapValues {
      SHA256Digest.hex(
        of: Data(
          String(decoding: $0, as: UTF8.self).replacingOccurrences(
            of: "\(endpoint)/\(bucket)/sdk", with: "<base>"
          )
          .utf8))
    }
  }

  /// Every customer index in the bucket lists only versions whose archive is there, with the
  /// listed size and SHA-256, at its S3 URL below `base` (the public URL is for devices); the
  /// top-level index, if any, names only indexes that are there.
  func assertEveryIndexPointsAtPresentObjects(_ objects: [String: Data], base: String) throws {
    for (key, data) in objects where key.hasPrefix("sdk/customers/") {
      let index = try jsonObject(data, key)
      for version in try XCTUnwrap(index["versions"] as? [[String: Any]]) {
        let url = try XCTUnwrap(version["url"] as? String)
        XCTAssertTrue(url.hasPrefix(base + "/"), url)
        let objectKey = "sdk/" + url.dropFirst(base.count + 1)
        let object = try XCTUnwrap(objects[objectKey], "\(key) points at \(objectKey), which is missing")
        XCTAssertEqual(SHA256Digest.hex(of: object), version["sha256"] as? String, objectKey)
        XCTAssertEqual(object.count, version["size"] as? Int, objectKey)
      }
    }
    if let data = objects["sdk/index.json"] {
      for entry in try XCTUnwrap(try jsonObject(data, "index.json")["customers"] as? [[String: Any]]) {
        XCTAssertNotNil(objects["sdk/\(entry["index"] as? String ?? "")"], "index.json names \(entry)")
      }
    }
  }

  // MARK: (e) secrets

  func testCredentialsNeverAppearInOutputEventsLogsDistOrTheBucket() throws {
    let fixture = try BuiltFixture.shared.get()
    let moto = try Self.moto()
    let bucket = try moto.makeBucket()
    let workspace = try fixture.copy()
    var runs: [(String, Workspace.Run)] = [("fixture build", fixture.run)]

    let good = publish(
      workspace, bucket: bucket, endpoint: moto.endpoint, environment: moto.credentials, ["--json"])
    XCTAssertEqual(good.exitCode, 0, good.allOutput)
    runs.append(("publish", good))

    // A wrong secret: moto refuses the signature (403, not retried) and says so; the
    // planted secret is not in what is printed.
    var wrong = moto.credentials
    wrong["AWS_SECRET_ACCESS_KEY"] = PublishFixtures.plantedSecret
    let refused = publish(workspace, bucket: bucket, endpoint: moto.endpoint, environment: wrong, ["--json"])
    XCTAssertEqual(refused.exitCode, 1, refused.allOutput)
    XCTAssertTrue(refused.allOutput.contains("HTTP 403"), refused.allOutput)
    XCTAssertFalse(refused.allOutput.contains("attempts)"), "a 4xx is not retried: \(refused.allOutput)")
    runs.append(("wrong secret", refused))

    // A session token is sent as a header; whatever the server makes of it, it is not printed.
    var withToken = moto.credentials
    withToken["AWS_SESSION_TOKEN"] = PublishFixtures.plantedToken
    runs.append(
      (
        "session token",
        publish(workspace, bucket: bucket, endpoint: moto.endpoint, environment: withToken, ["--json"])
      ))

    // A missing variable: exit 2, one line naming it, before anything is built or written.
    let distBefore = Workspace.snapshot(workspace.dist)
    var missing = moto.credentials
    missing["AWS_ACCESS_KEY_ID"] = ""
    let unset = publish(workspace, bucket: bucket, endpoint: moto.endpoint, environment: missing, ["--force"])
    XCTAssertEqual(unset.exitCode, 2, unset.allOutput)
    XCTAssertEqual(unset.standardError.count, 1, unset.allOutput)
    XCTAssertTrue(
      unset.standardError.first?.contains("AWS_ACCESS_KEY_ID is not set") == true, unset.allOutput)
    XCTAssertEqual(Workspace.snapshot(workspace.dist), distBefore, "--force rebuilt nothing")
    runs.append(("missing key id", unset))

    let secrets = [moto.secret, PublishFixtures.plantedSecret, PublishFixtures.plantedToken]
    for (name, run) in runs {
      for secret in secrets {
        XCTAssertFalse(run.allOutput.contains(secret), "\(name): output or --json events contain a secret")
      }
    }
    for directory in [fixture.workspace.dist, workspace.dist] {
      let files = Workspace.snapshot(directory).keys
      XCTAssertTrue(files.contains { $0.hasPrefix("logs/") }, "the build logs are checked too")
      for file in files {
        let text = String(
          decoding: try Data(contentsOf: directory.appendingPathComponent(file)), as: UTF8.self)
        for secret in secrets {
          XCTAssertFalse(text.contains(secret), "\(directory.path)/\(file) contains a secret")
        }
      }
    }
    let objects = try moto.objects(bucket)
    XCTAssertFalse(objects.isEmpty)
    for (key, data) in objects {
      let text = String(decoding: data, as: UTF8.self)
      for secret in secrets { XCTAssertFalse(text.contains(secret), "\(key) contains a secret") }
    }
  }
}
