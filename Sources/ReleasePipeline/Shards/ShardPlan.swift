import Foundation
import ReleaseCore
import ReleaseManifest
import ReleaseSystem

/// Which customers each of N CI machines builds (`release plan --shards N`,
/// `release all --shard k/N`), after GoReleaser's split/merge.
///
/// Deterministic for the same plan: customers that build, in feature-set and id order, are cut
/// into runs of about the same cost (see `make`), then up-to-date customers, which cost
/// nothing, are dealt out in turn; every customer is in exactly one shard. The plan digest
/// names the inputs the plan was made from, so a merge can refuse shards made from different
/// inputs.
package struct ShardPlan: Codable, Equatable, Sendable {
  package struct Shard: Codable, Equatable, Sendable {
    /// 1-based.
    package var shard: Int
    package var customers: [String]
    /// How many of `customers` build (the rest are up to date).
    package var building: Int
  }

  package var planDigest: String
  package var shards: [Shard]

  typealias Job = (id: String, builds: Bool, features: String)

  /// What each feature set after the first costs a shard's machine, in customers: a build
  /// slot's first build of it and its first customer's `swift test`, while a further customer
  /// of a compile key only runs its tests on the key's binary (`Scripts/bench` measures both:
  /// docs/performance.md#scaling). A shard then meets one feature set whenever the sets can be
  /// cut so.
  static let featureSetCost = 90

  /// `jobs`: every customer of the plan, whether it builds, and its feature set. The building
  /// customers, ordered by feature set and id, are cut into runs whose largest cost (a
  /// customer each, and `featureSetCost` for each further feature set in the run) is as small
  /// as it can be, the costs as even as that allows, the first runs taking the larger share:
  /// customers of one feature set are spread evenly (±1). The up-to-date ones cost nothing and
  /// fill the shards in turn.
  static func make(_ jobs: [Job], count: Int, planDigest: String) -> ShardPlan {
    var shards = (1...max(1, count)).map { Shard(shard: $0, customers: [], building: 0) }
    let building = jobs.filter(\.builds).sorted { ($0.features, $0.id) < ($1.features, $1.id) }
    for (index, run) in cut(building, into: shards.count).enumerated() {
      shards[index].customers = building[run].map(\.id)
      shards[index].building = run.count
    }
    for (position, job) in jobs.filter({ !$0.builds }).sorted(by: { $0.id < $1.id }).enumerated() {
      shards[position % shards.count].customers.append(job.id)
    }
    for index in shards.indices { shards[index].customers.sort() }
    return ShardPlan(planDigest: planDigest, shards: shards)
  }

  /// The cost of `building[run]` (see `make`); `building` is in feature-set order.
  static func cost(_ building: [Job], _ run: Range<Int>) -> Int {
    run.reduce(0) { $0 + addedCost(building, $1, runStart: run.lowerBound) }
  }

  /// What `building[index]` adds to a run that starts at `start`: itself, and a feature set
  /// when it opens one.
  private static func addedCost(_ building: [Job], _ index: Int, runStart start: Int) -> Int {
    1 + (index > start && building[index].features != building[index - 1].features ? featureSetCost : 0)
  }

  /// `count` consecutive runs covering `building`.
  private static func cut(_ building: [Job], into count: Int) -> [Range<Int>] {
    // The longest run from `start` that costs at most `limit`.
    func runEnd(from start: Int, limit: Int) -> Int {
      var end = start
      var total = 0
      while end < building.count {
        let added = addedCost(building, end, runStart: start)
        guard total + added <= limit else { break }
        total += added
        end += 1
      }
      return end
    }
    // Whether `building[start...]` fits in `shards` runs of at most `limit` each.
    func fits(from start: Int, shards: Int, limit: Int) -> Bool {
      var start = start
      for _ in 0..<shards where start < building.count { start = runEnd(from: start, limit: limit) }
      return start == building.count
    }
    guard !building.isEmpty else { return Array(repeating: 0..<0, count: count) }
    // The smallest largest cost: a single customer always fits a limit of 1 or more.
    var low = max(1, (building.count + count - 1) / count)
    var high = cost(building, building.indices)
    while low < high {
      let middle = (low + high) / 2
      if fits(from: 0, shards: count, limit: middle) { high = middle } else { low = middle + 1 }
    }
    var runs: [Range<Int>] = []
    var start = 0
    for index in 0..<count {
      let left = count - index
      let share = (cost(building, start..<building.count) + left - 1) / left
      var end = runEnd(from: start, limit: min(low, share))
      while !fits(from: end, shards: left - 1, limit: low) { end += 1 }
      runs.append(start..<end)
      start = end
    }
    return runs
  }

  /// The plan of a run's jobs after the plan step, over `count` shards.
  package static func make(for plan: ReleasePlan, count: Int, _ context: ReleaseContext) throws -> ShardPlan {
    make(
      plan.customers.map { ($0.id, $0.status == .pending, $0.job.slotAffinity) }, count: count,
      planDigest: try PlanDigest.compute(plan, context))
  }

  func shard(of id: String) -> Int? { shards.first { $0.customers.contains(id) }?.shard }
}

/// What a sharded run leaves in its `dist/` beside the releases: which plan and shard it was,
/// for `release merge` to prove the shards fit together.
package struct ShardRecord: Codable, Equatable, Sendable {
  package static let fileName = "shard.json"

  var planDigest: String
  var shard: Int
  var shards: Int
  /// `swift --version`: shards built with different toolchains give different bytes.
  package var toolchain: String
  /// Every customer of the shard, built or up to date.
  package var customers: [String]
  /// Those of `customers` that failed, with why.
  package var failed: [String: String]

  package init(
    planDigest: String, shard: Int, shards: Int, toolchain: String, customers: [String],
    failed: [String: String]
  ) {
    self.planDigest = planDigest
    self.shard = shard
    self.shards = shards
    self.toolchain = toolchain
    self.customers = customers
    self.failed = failed
  }

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

  package func encoded() throws -> Data {
    try StableJSON.encode(self)
  }
}

/// The digest of everything a plan is made from: each customer's build digest (entry, models,
/// template, SDK version, repository URL, tool, toolchain, archive time), the whole model store
/// (the content checks scan it), the manifest and the state file. Two machines with the same
/// digest make the same plan and the same bytes.
enum PlanDigest {
  static func compute(_ plan: ReleasePlan, _ context: ReleaseContext) throws -> String {
    struct Parts: Encodable {
      var customers: [String: String]
      var storeModels: [String: String]
      var manifest: String
      var state: String
      var tool: String
      var toolchain: String
    }
    let storeModels = try plan.inputs.storeModels.models()
    let parts = Parts(
      customers: Dictionary(uniqueKeysWithValues: plan.jobs.map { ($0.id, $0.digest.build) }),
      storeModels: Dictionary(
        uniqueKeysWithValues: storeModels.hashes.map { ($0.key.description, $0.value) }),
      manifest: try SHA256Digest.hex(
        ofFileAt: context.services.resolve(context.settings.inputs.manifestPath)),
      state: try SHA256Digest.hex(ofFileAt: context.services.resolve(context.settings.inputs.statePath)),
      tool: "\(ReleaseTool.name) \(ReleaseTool.version)", toolchain: plan.toolchain)
    return SHA256Digest.hex(of: StableJSON.canonical(parts))
  }
}
