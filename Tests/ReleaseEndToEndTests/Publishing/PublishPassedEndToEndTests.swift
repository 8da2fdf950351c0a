import Foundation
import ReleaseCLITestSupport
import ReleaseSigning
import ReleaseSystem
import ReleaseTestSupport
import XCTest

@testable import ReleaseCore

/// `--publish-passed`: with one customer failing, the others are published, tagged and
/// recorded, the run still fails and says who shipped; once the failure is fixed, a rerun
/// builds only that customer and the published result is exactly an all-green run's.
final class PublishPassedEndToEndTests: XCTestCase {
  func testPassedCustomersShipAndARerunAfterTheFixConvergesOnAnAllGreenRun() throws {
    // The all-green reference, through the same two-run flow (record, commit, publish).
    // Published URLs come from the committed config, not from each workspace's path.
    // A public URL needs a trusted key: the same key and channels in both workspaces.
    let config = #"{"publish": {"publicURL": "https://sdk.example.com/releases"}}"#
    let key = try SigningKey.generate()
    let channels = [
      "acme": String(repeating: "a1", count: 16), "bluebird": String(repeating: "b2", count: 16),
    ]
    // What is compared is what the tool publishes of the generated trees, never a build's
    // output: `swift build` is a stand-in that compiles nothing, in caches of the test's own.
    func all(_ workspace: Workspace, _ options: [String], environment: [String: String] = [:]) throws
      -> Workspace.Run
    {
      try workspace.runWithoutCompiling(["all", "--skip-tests"] + options, environment: environment)
    }
    let green = try Workspace(manifest: PublishFixtures.manifest)
    let signer = try green.trustSigningKey(configuration: config, key: key)
    try green.recordChannels(channels)
    try GitFixture.commitAll(green.root)
    let greenBuild = try all(green, [])
    XCTAssertEqual(greenBuild.exitCode, 0, greenBuild.allOutput)
    try GitFixture.commitAll(green.root, message: "release")
    let greenPublish = try all(green, ["--publish", "dir:published"], environment: signer)
    XCTAssertEqual(greenPublish.exitCode, 0, greenPublish.allOutput)

    // bluebird cannot be staged: a file stands where its release directory goes.
    let workspace = try Workspace(manifest: PublishFixtures.manifest)
    try workspace.trustSigningKey(configuration: config, key: key)
    try workspace.recordChannels(channels)
    try FileManager.default.createDirectory(at: workspace.dist, withIntermediateDirectories: true)
    let blocker = workspace.dist.appendingPathComponent("bluebird")
    try "not a directory\n".write(to: blocker, atomically: true, encoding: .utf8)
    try GitFixture.commitAll(workspace.root)

    let build = try all(workspace, ["--publish-passed"])
    XCTAssertEqual(build.exitCode, 1, build.allOutput)
    let recorded = try ReleaseState.load(from: workspace.file("release-state.json"), displayPath: "state")
    XCTAssertEqual(Set(recorded.customers.keys), ["acme"], "only the customer that passed is recorded")
    try GitFixture.commitAll(workspace.root, message: "release acme")

    let partial = try all(
      workspace, ["--publish", "dir:published", "--publish-passed", "--json"], environment: signer)
    XCTAssertEqual(partial.exitCode, 1, partial.allOutput)
    let published = workspace.file("published")
    let index = try jsonObject(
      try Data(contentsOf: published.appendingPathComponent("index.json")), "index.json")
    XCTAssertEqual(
      (index["customers"] as? [[String: Any]])?.compactMap { $0["id"] as? String }, ["acme"], "acme shipped")
    XCTAssertFalse(
      FileManager.default.fileExists(atPath: published.appendingPathComponent("customers/bluebird").path))
    // The summary says who shipped and who did not, and why.
    let summary = try XCTUnwrap(partial.events.last { $0["event"] as? String == "summary" })
    let outcomes = try XCTUnwrap(summary["customers"] as? [[String: Any]])
    let acme = try XCTUnwrap(outcomes.first { $0["id"] as? String == "acme" })
    let bluebird = try XCTUnwrap(outcomes.first { $0["id"] as? String == "bluebird" })
    XCTAssertEqual(acme["shipped"] as? Bool, true, "\(acme)")
    XCTAssertEqual(bluebird["shipped"] as? Bool, false, "\(bluebird)")
    XCTAssertEqual(bluebird["status"] as? String, "failed", "\(bluebird)")
    // Not recorded by the run before (it failed there), so not released now.
    XCTAssertTrue(
      (bluebird["reason"] as? String)?.contains("does not record bluebird") == true, "\(bluebird)")
    let report = try String(contentsOf: workspace.file("dist/report.xml"), encoding: .utf8)
    XCTAssertTrue(report.contains(#"failures="1""#), report)
    XCTAssertEqual(
      report.components(separatedBy: #"<property name="shipped" value="true"/>"#).count, 2, report)
    XCTAssertEqual(
      report.components(separatedBy: #"<property name="shipped" value="false"/>"#).count, 2, report)
    // acme is tagged, bluebird is not.
    let tags = try Self.git(["tag", "--list"], in: workspace.root)
    XCTAssertTrue(tags.contains("acme/v"), tags)
    XCTAssertFalse(tags.contains("bluebird/"), tags)

    // The fix; the rerun builds bluebird only, then publishes it.
    try FileManager.default.removeItem(at: blocker)
    let fixed = try all(workspace, ["--json"])
    XCTAssertEqual(fixed.exitCode, 0, fixed.allOutput)
    let built = fixed.events.filter { $0["event"] as? String == "customer_started" }.compactMap {
      $0["id"] as? String
    }
    XCTAssertEqual(built, ["bluebird"], fixed.allOutput)
    try GitFixture.commitAll(workspace.root, message: "release bluebird")
    let rest = try all(workspace, ["--publish", "dir:published"], environment: signer)
    XCTAssertEqual(rest.exitCode, 0, rest.allOutput)

    // Converged: the same published files, byte for byte, and the same state, as all green.
    func publishedFiles(_ workspace: Workspace) -> [String: String] {
      Workspace.snapshot(workspace.file("published")).filter { !$0.key.hasSuffix(".lock") }
    }
    let ours = publishedFiles(workspace)
    let theirs = publishedFiles(green)
    XCTAssertEqual(Set(ours.keys), Set(theirs.keys))
    // A signed manifest says when it was signed (its expiry): the same manifest otherwise.
    for path in ours.keys where path.contains("/manifest") {
      XCTAssertEqual(
        try Workspace.signedPayloadWithoutExpiry(workspace.file("published/\(path)"), key: key.publicKey),
        try Workspace.signedPayloadWithoutExpiry(green.file("published/\(path)"), key: key.publicKey), path)
    }
    for (path, digest) in ours where theirs[path] != digest && !path.contains("/manifest") {
      XCTFail(
        "\(path) differs from the all-green run's:\n"
          + (try String(contentsOf: workspace.file("published/\(path)"), encoding: .utf8)) + "\nexpected:\n"
          + (try String(contentsOf: green.file("published/\(path)"), encoding: .utf8)))
    }
    XCTAssertEqual(
      try ReleaseState.load(from: workspace.file("release-state.json"), displayPath: "state"),
      try ReleaseState.load(from: green.file("release-state.json"), displayPath: "state"))
    let allTags = try Self.git(["tag", "--list"], in: workspace.root)
    XCTAssertEqual(allTags, try Self.git(["tag", "--list"], in: green.root))
  }

  static func git(_ arguments: [String], in directory: URL) throws -> String {
    let result = try SystemProcessRunner().run(ProcessInvocation("git", arguments, in: directory))
    guard result.exitCode == 0 else {
      throw PublishSetupError(description: "git \(arguments.joined(separator: " ")): \(result.standardError)")
    }
    return result.standardOutput
  }
}
