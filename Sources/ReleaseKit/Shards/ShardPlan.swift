import Foundation
import ReleaseManifest
import ReleaseSystem

/// Which customers each of N CI machines builds (`release plan --shards N`,
/// `release all --shard k/N`), after GoReleaser's split/merge.
///
/// Deterministic for the same plan: customers that build, in feature-set and id order, are cut
/// into runs so every shard gets the same number (±1), then up-to-date customers, which cost
/// nothing, are dealt out in turn; every customer is in exactly one shard. The plan digest
/// names the inputs the plan was made from, so a merge can refuse shards made from different
/// inputs.
struct ShardPlan: Codable, Equatable, Sendable {
  struct Shard: Codable, Equatable, Sendable {
    /// 1-based.
    var shard: Int
    var customers: [String]
    /// How many of `customers` build (the rest are up to date).
    var building: Int
  }

  var planDigest: String
  var shards: [Shard]

  /// `jobs`: every customer of the plan, whether it builds, and its feature set. The building
  /// customers, ordered by feature set and id, are cut into runs of equal length (one more in
  /// the first shards when they do not divide evenly): a shard then meets few feature sets, and
  /// each costs its machine a build slot's first build or a switch (about 2.5 s). The
  /// up-to-date ones cost nothing and fill the shards in turn.
  static func make(_ jobs: [(id: String, builds: Bool, features: String)], count: Int, planDigest: String)
    -> ShardPlan
  {
    var shards = (1...max(1, count)).map { Shard(shard: $0, customers: [], building: 0) }
    let building = jobs.filter(\.builds).sorted { ($0.features, $0.id) < ($1.features, $1.id) }
    var start = 0
    for index in shards.indices {
      let length = building.count / shards.count + (index < building.count % shards.count ? 1 : 0)
      shards[index].customers = building[start..<start + length].map(\.id)
      shards[index].building = length
      start += length
    }
    for (position, job) in jobs.filter({ !$0.builds }).sorted(by: { $0.id < $1.id }).enumerated() {
      shards[position % shards.count].customers.append(job.id)
    }
    for index in shards.indices { shards[index].customers.sort() }
    return ShardPlan(planDigest: planDigest, shards: shards)
  }

  /// The plan of a run's jobs after the plan step, over `count` shards.
  static func make(for context: ReleaseContext, count: Int) throws -> ShardPlan {
    make(
      context.jobs.map { ($0.id, $0.status == .pending, $0.slotAffinity) }, count: count,
      planDigest: try PlanDigest.compute(context))
  }

  func shard(of id: String) -> Int? { shards.first { $0.customers.contains(id) }?.shard }
}

/// What a sharded run leaves in its `dist/` beside the releases: which plan and shard it was,
/// for `release merge` to prove the shards fit together.
struct ShardRecord: Codable, Equatable, Sendable {
  static let fileName = "shard.json"

  var planDigest: String
  var shard: Int
  var shards: Int
  /// `swift --version`: shards built with different toolchains give different bytes.
  var toolchain: String
  /// Every customer of the shard, built or up to date.
  var customers: [String]
  /// Those of `customers` that failed, with why.
  var failed: [String: String]

  static func load(from dist: URL, displayPath: String) throws -> ShardRecord {
    let file = dist.appendingPathComponent(fileName)
    let data: Data
    do { data = try Data(contentsOf: file) } catch {
      throw ReleaseError.invalidInput(
        "\(displayPath)/\(fileName): cannot read it (\(SystemError.reason(error))); expected the dist/ of 'release all --shard k/N'"
      )
    }
    do { return try JSONDecoder().decode(ShardRecord.self, from: data) } catch {
      throw ReleaseError.invalidInput(
        "\(displayPath)/\(fileName): not a shard record written by release (\(error))")
    }
  }

  func encoded() throws -> Data {
    let encoder = JSONEncoder()
    encoder.outputFormatting = [.prettyPrinted, .sortedKeys, .withoutEscapingSlashes]
    return try encoder.encode(self) + Data("\n".utf8)
  }
}

/// The digest of everything a plan is made from: each customer's build digest (entry, models,
/// template, SDK version, repository URL, tool, toolchain, archive time), the whole model store
/// (the content checks scan it), the manifest and the state file. Two machines with the same
/// digest make the same plan and the same bytes.
enum PlanDigest {
  static func compute(_ context: ReleaseContext) throws -> String {
    guard let inputs = context.inputs else { preconditionFailure("the plan digest is taken after planning") }
    struct Parts: Encodable {
      var customers: [String: String]
      var storeModels: [String: String]
      var manifest: String
      var state: String
      var tool: String
      var toolchain: String
    }
    let storeModels = try context.storeModels()
    let parts = Parts(
      customers: Dictionary(uniqueKeysWithValues: context.jobs.map { ($0.id, $0.digest.build) }),
      storeModels: Dictionary(
        uniqueKeysWithValues: storeModels.hashes.map { ($0.key.description, $0.value) }),
      manifest: try SHA256Digest.hex(ofFileAt: context.services.resolve(context.options.manifestPath)),
      state: try SHA256Digest.hex(ofFileAt: context.services.resolve(context.options.statePath)),
      tool: "\(ReleaseTool.name) \(ReleaseTool.version)", toolchain: inputs.toolchain)
    return SHA256Digest.hex(of: InputDigest.canonicalJSON(parts))
  }
}
