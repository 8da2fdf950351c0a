import Foundation
import ReleaseCore
import ReleaseOTA
import ReleasePipeline
import ReleaseSettings

/// `release rollout`, `release pause` and `release rollback` as a chain of steps
/// (`RolloutSteps.swift`): read the inputs, plan the change to `rollouts.json`, apply it
/// under the lock with its diff. Publishing is left to `release ota publish`.
enum RolloutCommand {
  static func run(_ options: RolloutOptions, _ invocation: CommandInvocation) throws {
    var settings = RunSettings()
    settings.dryRun = options.dryRun
    try pipeline(options, invocation.quietPipeline(settings))
  }

  static func pipeline(_ options: RolloutOptions, _ pipeline: Pipeline) throws {
    let inputs = try pipeline.run(LoadOTAInputsStep(), options.inputs)
    let change = try pipeline.run(PlanRolloutChangeStep(options: options), inputs)
    try pipeline.run(ApplyRolloutChangeStep(), change)
  }
}

/// Which of `rollout`, `pause` and `rollback` runs: the kind of change, before its values are
/// read from the command line.
enum RolloutVerb: String {
  case rollout, pause, rollback
}

/// What `rollout`, `pause` and `rollback` change.
enum RolloutKind: Equatable {
  /// Offer `version` to `percent` % of devices.
  case rollout(version: Int, percent: Int)
  /// New downloads of the flow stop.
  case pause
  /// `version` is retracted.
  case rollback(version: Int)
}

/// `release rollout`, `pause` and `rollback`'s options.
struct RolloutOptions: Equatable {
  /// Slug or app id, as typed.
  var customer: String
  var flowName: String
  /// Which command: messages name it.
  var verb: RolloutVerb
  var kind: RolloutKind
  var dryRun: Bool
  /// The input paths and the model store.
  var inputs: InputSettings

  static func positionals(withVersion: Bool) -> [Positional] {
    [
      Positional(label: "<customer>", help: "slug or app_id"),
      Positional(label: "<flow>", help: "one of the customer's flows in customers.json"),
    ] + (withVersion ? [Positional(label: "<modelVersion>", help: "the model's version in the store")] : [])
  }

  /// `<customer> <flow>`, and `<modelVersion>` for rollout and rollback (the command's arity
  /// lets the parser through only with it).
  init(_ parsed: Arguments, _ invocation: CommandInvocation, verb: RolloutVerb) throws {
    customer = parsed.positionals[0]
    flowName = parsed.positionals[1]
    self.verb = verb
    kind = try Self.kind(parsed, verb: verb)
    dryRun = parsed[Options.dryRun]
    inputs = try SettingsResolution(parsed, invocation).inputs()
  }

  private static func kind(_ parsed: Arguments, verb: RolloutVerb) throws -> RolloutKind {
    if verb == .pause { return .pause }
    let text = parsed.positionals.count > 2 ? parsed.positionals[2] : ""
    guard let version = Int(text), version > 0, String(version) == text else {
      throw ReleaseError.usage("\(verb.rawValue): modelVersion \"\(text)\" is not a positive whole number")
    }
    guard verb == .rollout else { return .rollback(version: version) }
    guard let percent = parsed[Options.percent] else {
      throw ReleaseError.usage("rollout: found no --percent; expected the share of devices, 0-100")
    }
    return .rollout(version: version, percent: percent)
  }
}
