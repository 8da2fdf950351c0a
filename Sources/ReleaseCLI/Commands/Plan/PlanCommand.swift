import Foundation
import ReleaseCore
import ReleaseFlow
import ReleasePipeline
import ReleaseReporting

/// `release plan`: its steps (`PlanRun.pipeline`, in `ReleaseFlow`) with the release's options
/// of a dry run.
enum PlanCommand {
  static func run(_ request: PlanOptions, _ invocation: CommandInvocation) throws {
    var options = request.release
    // Planning reads dist/ (what is up to date) and writes nothing but the cache of the
    // store's digests.
    options.dryRun = true
    options.publish = []
    options.tag = false
    let context = ReleaseContext(
      services: invocation.services, options: options, reporter: DiscardingReporter())
    try PlanRun.pipeline(.init(shards: request.shards, json: options.json), Pipeline(context))
  }
}

/// `release plan`'s options: how many shards, and the release's options, which say which
/// customers are up to date (and so cost a shard nothing).
struct PlanOptions: Equatable {
  var shards: Int
  let release: ReleaseOptions

  init(_ parsed: Arguments, _ invocation: CommandInvocation) throws {
    try ReleaseOptions.refusingPositionals(parsed, command: "plan")
    guard let shards = try parsed.integer(Options.shards, in: 1...256) else {
      throw ReleaseError.usage("plan: --shards <n> is required (how many machines share the work)")
    }
    self.shards = shards
    release = try ReleaseOptions(parsed, services: invocation.services)
  }
}

/// Drops every event: for commands that run pipeline steps only to compute something (their
/// errors still reach the user through the command's own reporter, which reports what is thrown).
final class DiscardingReporter: Reporter {
  func report(_ event: ReleaseEvent) {}
}
