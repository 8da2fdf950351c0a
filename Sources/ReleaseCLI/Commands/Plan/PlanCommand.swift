import Foundation
import ReleaseCore
import ReleaseFlow
import ReleasePipeline
import ReleaseReporting
import ReleaseSettings
import ReleaseSystem

/// `release plan`: its steps (`PlanRun.pipeline`, in `ReleaseFlow`) with the release's options
/// of a dry run.
enum PlanCommand {
  static func run(_ request: PlanOptions, _ invocation: CommandInvocation) throws {
    var settings = request.release
    // Planning reads dist/ (what is up to date) and writes nothing but the cache of the
    // store's digests.
    settings.dryRun = true
    settings.publishing.destinations = []
    settings.publishing.tag = false
    try PlanRun.pipeline(
      .init(shards: request.shards, json: settings.json), invocation.quietPipeline(settings))
  }
}

/// `release plan`'s options: how many shards, and the release's options, which say which
/// customers are up to date (and so cost a shard nothing).
struct PlanOptions: Equatable {
  var shards: Int
  let release: RunSettings

  init(_ parsed: Arguments, _ invocation: CommandInvocation) throws {
    // The command's arity refuses positionals and the parser requires --shards.
    shards = parsed[Options.shards] ?? 1
    release = try SettingsResolution(parsed, invocation).run(.all)
  }
}
