import Foundation
import ReleaseCLITestSupport
import ReleaseSystem
import ReleaseTestSupport
import XCTest

@testable import ReleasePipeline

/// `release all --shard k/N` on three "machines" and `release merge` of their dist/s, against
/// one `release all` from the same inputs: the merged dist/ holds exactly the same files, and
/// every archive, checksum, release.json and artifacts.json is byte-identical. Shards that do
/// not fit together are refused with nothing written.
final class MergeEndToEndTests: XCTestCase {
  /// Three customers, so each of three shards builds one: a merge is about which files each
  /// shard holds, and the bundled manifest's seven customers in three feature sets would only
  /// build more packages. The runs build with a stand-in `swift` (`StandInSwift`): what is
  /// compared is the files the tool writes, which no compile changes.
  static let manifest = """
    [
      {"id": "acme", "name": "Acme Fitness", "bundle_identifiers": ["com.acme.fitness"],
       "app_id": "3f2b8c1e-6d4a-4e9b-9a51-0c7d2e8f4a10",
       "customModels": [{"flowId": 8362, "flowName": "onboarding_upsell", "modelVersion": 73}]},
      {"id": "bluebird", "bundle_identifiers": ["com.bluebird.notes"], "app_id": "a91c44d2-0b7e-4c3f-8d26-5e1f9b0a7c33",
       "customModels": [{"flowId": 8362, "flowName": "onboarding_upsell", "modelVersion": 72}]},
      {"id": "driftwood", "name": "Driftwood Reader", "bundle_identifiers": ["com.driftwood.reader"],
       "app_id": "c7a3e9b0-1f5d-4a8e-b6c2-9d0f3e7a5b19",
       "customModels": [{"flowId": 8362, "flowName": "onboarding_upsell", "modelVersion": 74}]}
    ]
    """

  /// One workspace for the class: a single run into `single/` and three shards into
  /// `shard-1..3/`, each from its own copy of the same state file.
  struct Built {
    let workspace: Workspace
    let swift: StandInSwift

    /// `release <arguments>` building with the stand-in.
    func run(_ arguments: [String]) -> Workspace.Run {
      workspace.run(arguments + swift.cacheArguments, environment: swift.environment)
    }
  }
  private static let built = Locked<Result<Built, Error>?>(nil)

  private func built() throws -> Built {
    try Self.built.withLock { built in
      if built == nil {
        built = Result {
          let workspace = try Workspace(manifest: Self.manifest)
          let fixture = Built(workspace: workspace, swift: try StandInSwift())
          let state = try Data(contentsOf: workspace.file("release-state.json"))
          for name in ["state-single.json", "state-shards.json"] { try state.write(to: workspace.file(name)) }
          let single = fixture.run([
            "all", "--skip-tests", "--dist", "single", "--state", "state-single.json",
          ])
          guard single.exitCode == 0 else { throw SetupError(single.allOutput) }
          for shard in 1...3 {
            let run = fixture.run([
              "all", "--skip-tests", "--shard", "\(shard)/3", "--dist", "shard-\(shard)", "--state",
              "state-shards.json",
            ])
            guard run.exitCode == 0 else { throw SetupError(run.allOutput) }
          }
          return fixture
        }
      }
      return built!
    }.get()
  }

  struct SetupError: Error, CustomStringConvertible {
    let description: String
    init(_ description: String) { self.description = description }
  }

  /// Files below `directory` by relative path, without logs, the JUnit report (timings) and
  /// the lock file (a pid), which may differ between machines.
  private func releaseFiles(_ directory: URL) -> [String: String] {
    Workspace.snapshot(directory).filter { path, _ in
      !path.hasPrefix("logs/") && path != "report.xml" && path != ".release.lock"
    }
  }

  func testThreeShardsMergeIntoExactlyTheFilesOfOneRun() throws {
    let fixture = try built()
    let workspace = fixture.workspace
    // Each shard holds a part: together every customer, once.
    var seen: [String] = []
    for shard in 1...3 {
      let record = try ShardRecord.load(from: workspace.file("shard-\(shard)"), displayPath: "shard-\(shard)")
      XCTAssertEqual(record.shard, shard)
      XCTAssertEqual(record.shards, 3)
      XCTAssertEqual(record.failed, [:])
      seen += record.customers
    }
    let customers = try XCTUnwrap(
      JSONSerialization.jsonObject(with: Data(contentsOf: workspace.file("customers.json")))
        as? [[String: Any]])
    XCTAssertEqual(seen.count, customers.count)
    XCTAssertEqual(Set(seen).count, customers.count)

    let merge = workspace.run(
      ["merge", "shard-1", "shard-2", "shard-3", "--dist", "merged", "--state", "state-shards.json"])
    XCTAssertEqual(merge.exitCode, 0, merge.allOutput)
    let single = releaseFiles(workspace.file("single"))
    let merged = releaseFiles(workspace.file("merged"))
    XCTAssertEqual(Set(merged.keys), Set(single.keys), "the same files")
    XCTAssertEqual(merged, single, "byte-identical")
    XCTAssertTrue(single.keys.contains("artifacts.json"))
    XCTAssertEqual(single.keys.filter { $0.hasSuffix(".zip") }.count, customers.count)
    XCTAssertFalse(merged.keys.contains(ShardRecord.fileName))
    // The merge recorded the same versions as the single run.
    XCTAssertEqual(
      try Data(contentsOf: workspace.file("state-shards.json")),
      try Data(contentsOf: workspace.file("state-single.json")))
  }

  /// The release-commit flow: shards built from a state that records the release, merged,
  /// published to a directory and tagged, exactly as after a single-machine run.
  func testTheMergedResultPublishesAndTags() throws {
    let fixture = try built()
    let workspace = fixture.workspace
    // The single run recorded every customer; shards of the release commit plan from that.
    try Data(contentsOf: workspace.file("state-single.json")).write(to: workspace.file("state-release.json"))
    for shard in 1...3 {
      let run = fixture.run([
        "all", "--skip-tests", "--shard", "\(shard)/3", "--dist", "release-shard-\(shard)", "--state",
        "state-release.json",
      ])
      XCTAssertEqual(run.exitCode, 0, run.allOutput)
    }
    try GitFixture.commitAll(workspace.root, message: "release")
    let publish = workspace.run([
      "merge", "release-shard-1", "release-shard-2", "release-shard-3", "--dist", "release-merged", "--state",
      "state-release.json", "--publish", "dir:published", "--allow-dirty",
    ])
    XCTAssertEqual(publish.exitCode, 0, publish.allOutput)

    let single = releaseFiles(workspace.file("single"))
    let archives = single.filter { $0.key.hasSuffix(".zip") }
    XCTAssertFalse(archives.isEmpty)
    let published = Workspace.snapshot(workspace.file("published"))
    for (path, digest) in archives {
      XCTAssertEqual(published["artifacts/" + path], digest, "\(path): published as the single run built it")
    }
    let index = try jsonObject(
      try Data(contentsOf: workspace.file("published/index.json")), "published/index.json")
    let ids = Set(archives.keys.map { String($0.prefix { $0 != "/" }) })
    XCTAssertEqual(
      Set((index["customers"] as? [[String: Any]])?.compactMap { $0["id"] as? String } ?? []), ids)
    let tags = try SystemProcessRunner().run(ProcessInvocation("git", ["tag", "--list"], in: workspace.root))
    for id in ids {
      XCTAssertTrue(tags.standardOutput.contains("\(id)/v"), "\(id) tagged: \(tags.standardOutput)")
    }
    XCTAssertEqual(
      try Data(contentsOf: workspace.file("state-release.json")),
      try Data(contentsOf: workspace.file("state-single.json")), "nothing new to record")
  }

  func testShardsThatDoNotFitAreRefusedWritingNothing() throws {
    let fixture = try built()
    let workspace = fixture.workspace
    let fileManager = FileManager.default
    func copy(_ shard: Int, as name: String, edit: (inout ShardRecord) -> Void = { _ in }) throws {
      try? fileManager.removeItem(at: workspace.file(name))
      try fileManager.copyItem(at: workspace.file("shard-\(shard)"), to: workspace.file(name))
      var record = try ShardRecord.load(from: workspace.file(name), displayPath: name)
      edit(&record)
      try record.encoded().write(to: workspace.file(name).appendingPathComponent(ShardRecord.fileName))
    }
    let shard1 = try ShardRecord.load(from: workspace.file("shard-1"), displayPath: "shard-1")
    let stolen = try XCTUnwrap(shard1.customers.first)
    try copy(2, as: "other-plan") { $0.planDigest = String(repeating: "0", count: 64) }
    try copy(2, as: "greedy") { $0.customers.append(stolen) }
    // A shard whose acme-or-whoever archive lost a byte (release.json unchanged).
    try copy(3, as: "broken")
    let broken = try ShardRecord.load(from: workspace.file("broken"), displayPath: "broken")
    let victim = try XCTUnwrap(broken.customers.first)
    let release = try XCTUnwrap(
      fileManager.enumerator(atPath: workspace.file("broken/\(victim)").path)?.allObjects.compactMap {
        $0 as? String
      }
      .first { $0.hasSuffix(".zip") })
    let zip = workspace.file("broken/\(victim)/\(release)")
    var bytes = try Data(contentsOf: zip)
    bytes[bytes.count / 2] ^= 0xFF
    try bytes.write(to: zip)

    let cases: [([String], String)] = [
      (["shard-1", "shard-2"], "merge: shard 3/3 is missing"),
      (["shard-1", "shard-1", "shard-2", "shard-3"], "merge: shard 1/3 is given 2 times (shard-1, shard-1)"),
      (
        ["shard-1", "other-plan", "shard-3"],
        "merge: other-plan: made from plan 000000000000, shard-1 from \(shard1.planDigest.prefix(12)); shards must come from one plan (same commit, tool and toolchain)"
      ),
      (
        ["shard-1", "greedy", "shard-3"],
        "merge: \(stolen) is in two shards: shard-1 (1/3) and greedy (2/3)"
      ),
      (["shard-1", "shard-2", "broken"], "merge: broken: \(victim): "),
    ]
    for (sources, expected) in cases {
      let run = workspace.run(["merge"] + sources + ["--dist", "refused", "--state", "state-shards.json"])
      XCTAssertEqual(run.exitCode, 2, "\(sources): \(run.allOutput)")
      XCTAssertTrue(
        run.standardError.first?.hasPrefix("error: " + expected) == true, "\(sources): \(run.standardError)")
      XCTAssertFalse(
        fileManager.fileExists(atPath: workspace.file("refused").path), "\(sources): nothing written")
    }
    let nowhere = workspace.run(["merge", "nowhere", "--dist", "refused"])
    XCTAssertEqual(nowhere.exitCode, 2, nowhere.allOutput)
    XCTAssertEqual(
      nowhere.standardError.first,
      "error: nowhere/shard.json: cannot read it (No such file or directory); expected the dist/ of 'release all --shard k/N'"
    )
    // Shards made from another state than this checkout's: another plan.
    try Data(
      #"{"sdkVersion": "\#(Workspace.sdkVersion())", "customers": {"acme": {"version": "\#(Workspace.sdkVersion(plusPatches: 7))", "sourceDigest": "x"}}}"#
        .utf8
    )
    .write(to: workspace.file("state-other.json"))
    let other = workspace.run([
      "merge", "shard-1", "shard-2", "shard-3", "--dist", "refused", "--state", "state-other.json",
    ])
    XCTAssertEqual(other.exitCode, 2, other.allOutput)
    XCTAssertTrue(
      other.standardError.first?.contains("this checkout gives") == true,
      other.standardError.joined(separator: "\n"))
    XCTAssertFalse(fileManager.fileExists(atPath: workspace.file("refused").path))
  }
}
