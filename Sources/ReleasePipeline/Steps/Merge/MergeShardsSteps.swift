import Foundation
import ReleaseCore
import ReleaseSystem

/// A shard's dist/ that `release merge` joins, and what it says about itself.
package struct MergeOrigin: Sendable {
  var dist: URL
  /// As given on the command line, for messages.
  var displayPath: String
  var record: ShardRecord
}

/// `release merge <dist>...`, first step: reads every shard's `shard.json` and refuses, before
/// anything is planned or written, shards that do not fit together: made from different plans
/// or toolchains, a shard missing or given twice, a customer in two shards. Returns the shard
/// that holds each customer.
package struct LoadShardsStep: RequiredStep {
  package let name = "load shards"

  /// The shards' dist/ directories, as given (`release merge <dist>...`).
  let sources: [String]

  package init(sources: [String]) { self.sources = sources }

  package func run(_: Void, _ context: ReleaseContext) throws -> [String: MergeOrigin] {
    let origins = try sources.map { path in
      let dist = context.services.resolve(path)
      return MergeOrigin(
        dist: dist, displayPath: path, record: try ShardRecord.load(from: dist, displayPath: path))
    }
    var problems: [String] = []
    let first = origins[0]
    for origin in origins.dropFirst() {
      if origin.record.planDigest != first.record.planDigest {
        problems.append(
          "\(origin.displayPath): made from plan \(origin.record.planDigest.prefix(12)), \(first.displayPath) from \(first.record.planDigest.prefix(12)); shards must come from one plan (same commit, tool and toolchain)"
        )
      } else if origin.record.toolchain != first.record.toolchain {
        problems.append("\(origin.displayPath): built with another toolchain than \(first.displayPath)")
      }
      if origin.record.shards != first.record.shards {
        problems.append(
          "\(origin.displayPath): shard of \(origin.record.shards), \(first.displayPath) of \(first.record.shards)"
        )
      }
    }
    let count = first.record.shards
    for index in 1...max(1, count) {
      let given = origins.filter { $0.record.shard == index }
      if given.isEmpty { problems.append("shard \(index)/\(count) is missing") }
      if given.count > 1 {
        problems.append(
          "shard \(index)/\(count) is given \(given.count) times (\(given.map(\.displayPath).joined(separator: ", ")))"
        )
      }
    }
    var owners: [String: MergeOrigin] = [:]
    for origin in origins {
      for id in origin.record.customers {
        if let owner = owners[id], owner.displayPath != origin.displayPath {
          problems.append(
            "\(id) is in two shards: \(owner.displayPath) (\(owner.record.shard)/\(count)) and \(origin.displayPath) (\(origin.record.shard)/\(count))"
          )
        }
        owners[id] = owners[id] ?? origin
      }
    }
    if !problems.isEmpty {
      throw ReleaseError.invalidInputs(problems.map { "merge: \($0)" })
    }
    return owners
  }
}

/// `release merge`, after the plan: the shards must have been made from exactly this plan
/// (this checkout's inputs, tool and toolchain give the same digest), together hold every
/// customer of it, and every release they hold must pass the content checks and be exactly
/// the package the inputs make — checked where it lies, before anything is copied. Returns
/// the plan with each customer its shard failed failed.
package struct CheckShardsStep: RequiredStep {
  package let name = "check shards"

  /// The content checks of releases where they lie, one list of problems per release, in the
  /// order given (`ArtifactChecks`, whose module builds this step with them).
  package typealias ContentChecks =
    @Sendable (_ releases: [(job: CustomerJob, directory: URL)], _ inputs: ReleaseInputs) throws -> [[String]]
  let contentChecks: ContentChecks

  package init(contentChecks: @escaping ContentChecks) { self.contentChecks = contentChecks }

  package struct Input: Sendable {
    var plan: ReleasePlan
    var origins: [String: MergeOrigin]

    package init(plan: ReleasePlan, origins: [String: MergeOrigin]) {
      self.plan = plan
      self.origins = origins
    }
  }

  package func run(_ input: Input, _ context: ReleaseContext) throws -> ReleasePlan {
    let origins = input.origins
    var plan = input.plan
    guard let any = origins.values.first else { return plan }
    var problems = try Self.coverageProblems(of: plan, origins, planDigest: any.record.planDigest, context)
    if problems.isEmpty { problems = try contentProblems(of: plan, origins) }
    // A customer its shard failed fails the merge (or is left out under --publish-passed);
    // one its shard claims to hold but does not hold verified is bad input.
    if problems.isEmpty {
      for index in plan.customers.indices where plan.customers[index].status == .pending {
        let job = plan.customers[index].job
        guard let origin = origins[job.id] else { continue }
        let shard = "shard \(origin.record.shard)/\(origin.record.shards)"
        if let reason = origin.record.failed[job.id] {
          plan.customers[index].status = .failed(
            step: "merge", reason: "\(shard) (\(origin.displayPath)) failed it: \(reason)")
        } else {
          problems.append(
            "\(origin.displayPath): \(job.id): \(shard) holds no verified release of it (\(job.reason))")
        }
      }
    }
    if !problems.isEmpty {
      throw ReleaseError.invalidInputs(problems.map { "merge: \($0)" })
    }
    for result in plan.customers where result.status != .pending {
      context.reporter.report(.customerFinished(result.outcome(relativeTo: context.services.root)))
    }
    return plan
  }

  /// The shards were made from this checkout's plan, and hold every customer of it and no other.
  private static func coverageProblems(
    of plan: ReleasePlan, _ origins: [String: MergeOrigin], planDigest: String, _ context: ReleaseContext
  ) throws -> [String] {
    var problems: [String] = []
    let digest = try PlanDigest.compute(plan, context)
    if planDigest != digest {
      problems.append(
        "the shards were made from plan \(planDigest.prefix(12)), this checkout gives \(digest.prefix(12)): inputs, tool or toolchain differ"
      )
    }
    let planned = Set(plan.customers.map(\.id))
    let missing = planned.subtracting(origins.keys).sorted()
    if !missing.isEmpty { problems.append("in no shard: \(missing.joined(separator: ", "))") }
    let unknown = Set(origins.keys).subtracting(planned).sorted()
    if !unknown.isEmpty { problems.append("not customers of this plan: \(unknown.joined(separator: ", "))") }
    return problems
  }

  /// The content checks of every release a shard holds up to date, against this plan's inputs.
  private func contentProblems(of plan: ReleasePlan, _ origins: [String: MergeOrigin]) throws -> [String] {
    let shipped = plan.customers.filter { $0.status == .upToDate }.compactMap { result in
      origins[result.id].map { (job: result.job, origin: $0) }
    }
    let found = try contentChecks(
      shipped.map { ($0.job, $0.job.releaseDirectory(in: $0.origin.dist)) }, plan.inputs)
    return zip(shipped, found).flatMap { shipped, found in
      found.map { "\(shipped.origin.displayPath): \(shipped.job.id): \($0)" }
    }
  }
}

/// `release merge`, in place of building: copies each customer's release, and its log, from
/// the shard that built it into this run's dist/ (each release directory renamed into place
/// whole; files hard-linked where the shard is on the same file system). The content checks
/// that follow run on the copies, as after any build. Returns every customer with its
/// release where it now is. It writes into dist/, so it takes the run's lock, as a build does.
package struct CopyShardReleasesStep: Step {
  package let name = "copy shard releases"

  package init() {}
  package let changesState = true

  package struct Input: Sendable {
    var plan: ReleasePlan
    var origins: [String: MergeOrigin]
    var lock: RunLock

    package init(plan: ReleasePlan, origins: [String: MergeOrigin], lock: RunLock) {
      self.plan = plan
      self.origins = origins
      self.lock = lock
    }
  }

  package func dryRunDescription(_ input: Input, _ context: ReleaseContext) -> [String] {
    input.plan.customers.filter { $0.status == .upToDate }.compactMap { result in
      input.origins[result.id].map {
        "would copy \(result.id) \(result.job.version) from \($0.displayPath) to \(context.settings.inputs.distPath)/"
      }
    }
  }

  package func run(_ input: Input, _ context: ReleaseContext) throws -> [CustomerResult] {
    let fileManager = FileManager.default
    var customers = input.plan.customers
    for index in customers.indices where customers[index].status == .upToDate {
      let job = customers[index].job
      guard let origin = input.origins[job.id] else { continue }
      let source = job.releaseDirectory(in: origin.dist)
      let final = job.releaseDirectory(in: context.distDirectory)
      if source.standardizedFileURL != final.standardizedFileURL {
        try AtomicFile.createDirectory(final.deletingLastPathComponent())
        let temporary = AtomicFile.temporarySibling(of: final)
        do {
          try FileTree.linkOrCopy(directory: source, to: temporary)
          try AtomicFile.replace(final, with: temporary)
        } catch {
          try? fileManager.removeItem(at: temporary)
          throw SystemError.cannotWrite(path: final.path, reason: SystemError.reason(error))
        }
        let log = origin.dist.appendingPathComponent("logs").appendingPathComponent("\(job.id).log")
        if fileManager.fileExists(atPath: log.path) {
          let copy = context.logsDirectory.appendingPathComponent("\(job.id).log")
          try AtomicFile.produce(copy) { temporary in try FileTree.linkOrCopy(file: log, to: temporary) }
          customers[index].logFile = copy
        }
      }
      if let archive = customers[index].archive {
        customers[index].archive = .init(
          path: final.appendingPathComponent(archive.path.lastPathComponent), sha256: archive.sha256,
          size: archive.size)
      }
    }
    return customers
  }
}
