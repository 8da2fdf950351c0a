import Foundation
import ReleaseBump
import ReleaseCore
import ReleaseManifest
import ReleasePipeline
import ReleaseSettings
import ReleaseSystem

/// `release bump major|minor|patch`'s options.
struct BumpOptions: Equatable {
  var part: SemanticVersion.Part
  var dryRun: Bool
  var statePath: String
  var templatesPath: String
  var since: String?

  init(_ parsed: Arguments) throws {
    // The command's arity (`.oneOf`) lets exactly one of major, minor and patch through, and
    // refuses anything else with its own message.
    guard let part = parsed.positionals.first.flatMap(SemanticVersion.Part.init(rawValue:)) else {
      throw ReleaseError.usage("bump: expected one of major, minor, patch")
    }
    let defaults = InputSettings()
    self.part = part
    dryRun = parsed[Options.dryRun]
    statePath = parsed[Options.state] ?? defaults.statePath
    templatesPath = parsed[Options.templates] ?? defaults.templatesPath
    since = parsed[Options.bumpSince]
  }
}

/// `release bump major|minor|patch` as a chain of steps (`BumpSteps.swift`): plan the change
/// of every file, show it as a diff, write it (not under `--dry-run`).
enum BumpCommand {
  static func run(_ options: BumpOptions, _ invocation: CommandInvocation) throws {
    try pipeline(options, invocation.quietPipeline())
  }

  static func pipeline(_ options: BumpOptions, _ pipeline: Pipeline) throws {
    let planned = try pipeline.run(PlanBumpStep(), options)
    try pipeline.run(ShowBumpDiffStep(), planned)
    try pipeline.run(WriteBumpStep(dryRun: options.dryRun), planned)
  }
}
