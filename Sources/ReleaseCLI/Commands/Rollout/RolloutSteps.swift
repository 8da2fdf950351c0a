import Foundation
import ReleaseCore
import ReleaseEvaluation
import ReleaseManifest
import ReleaseModels
import ReleaseOTA
import ReleasePipeline
import ReleasePublishing
import ReleaseSettings
import ReleaseSystem

// `release rollout`, `pause` and `rollback` as a chain of steps (`RolloutCommand.pipeline`).

/// `rollouts.json` with the manifest, the features and the model store it is checked against.
struct LoadOTAInputsStep: RequiredStep {
  let name = "load inputs"

  func run(_ settings: InputSettings, _ context: ReleaseContext) throws -> OTAInputs {
    try OTAInputs.load(settings, services: context.services)
  }
}

/// The change the command asks for, refused when the customer, its flow or the model do not
/// allow it: a customer or flow not in customers.json, a version not above the bundled one, a
/// model the SDK cannot run or whose metadata disagrees.
struct PlanRolloutChangeStep: RequiredStep {
  let name = "plan change"
  let options: RolloutOptions

  func run(_ inputs: OTAInputs, _ context: ReleaseContext) throws -> RolloutsChange {
    let flowName = options.flowName
    let customer = try inputs.customer(options.customer, command: options.verb.rawValue)
    let today = OutcomeDate(utcDayOf: context.services.clock.now())
    let dryRun = context.settings.dryRun
    switch options.kind {
    case .rollout(let version, let percent):
      let command = "rollout \(customer.id) \(flowName) \(version)"
      _ = try RolloutsChange.refusingBadInput {
        try RolloutChange.bundledModel(of: customer, flowName: flowName, command: command)
      }
      let model = try inputs.offeredModel(ModelReference(flowName: flowName, version: version))
      let feature = inputs.features.feature(servingFlow: flowName)
      return RolloutsChange(
        inputs: inputs, dryRun: dryRun,
        summary: "\(customer.id): \(flowName) v\(version) offered to \(percent)% of devices"
      ) { state in
        try RolloutChange.rollout(
          state, customer: customer, model: model, percent: percent, catalog: inputs.catalog,
          feature: feature, sdkVersion: inputs.sdkVersion, command: command, today: today,
          newSalt: RolloutState.newSalt)
      }
    case .pause:
      return RolloutsChange(
        inputs: inputs, dryRun: dryRun,
        summary: "\(customer.id): \(flowName) paused; devices download nothing new and keep what they run"
      ) { state in
        try RolloutChange.pause(
          state, customer: customer, flowName: flowName, command: "pause \(customer.id) \(flowName)")
      }
    case .rollback(let version):
      return RolloutsChange(
        inputs: inputs, dryRun: dryRun,
        summary: "\(customer.id): \(flowName) v\(version) retracted; devices that downloaded it delete it"
      ) { state in
        try RolloutChange.rollback(
          state, customer: customer, flowName: flowName, version: version,
          command: "rollback \(customer.id) \(flowName) \(version)", today: today)
      }
    }
  }
}

/// The change made under the lock, shown as a diff and written (previewed under `--dry-run`,
/// which it shows itself: its preview is the diff).
struct ApplyRolloutChangeStep: RequiredStep {
  let name = "apply change"

  func run(_ change: RolloutsChange, _ context: ReleaseContext) throws {
    try change.apply(context.services)
  }
}

/// A change to `rollouts.json`: made on the state as read (a refused change writes nothing,
/// not even a lock file), then again on the state as it is under the lock, shown as a diff
/// and written. `release ota evaluate --apply` carries its decisions out through it too.
struct RolloutsChange: Sendable {
  var inputs: OTAInputs
  var dryRun: Bool
  /// Where the diff goes: stderr when stdout carries JSON lines.
  var diffStream: ReleaseSystem.OutputStream = .standardOutput
  /// What is said of the change, on stderr.
  var summary: String
  var change: @Sendable (RolloutState) throws -> RolloutState

  func apply(_ services: Services) throws {
    // Refused on the state as read, before the lock: a refused command leaves no lock file.
    _ = try Self.refusingBadInput { try change(inputs.rollouts) }
    // A dry run writes nothing, not even a lock file; it previews against the state it read.
    let lock = dryRun ? nil : try RolloutState.lock(inputs.rolloutsURL)
    defer { withExtendedLifetime(lock) {} }
    let current =
      dryRun
      ? inputs.rollouts : try RolloutState.load(from: inputs.rolloutsURL, displayPath: inputs.rolloutsPath)
    if !dryRun { try OTAInputs.check(current, against: inputs.manifest, displayPath: inputs.rolloutsPath) }
    let changed = try Self.refusingBadInput { try change(current) }
    let output = services.output
    guard changed != current else {
      output.write(line: "\(summary) (already so; \(inputs.rolloutsPath) unchanged)", to: .standardError)
      return
    }
    let old = FileManager.default.fileExists(atPath: inputs.rolloutsURL.path) ? try current.encoded() : nil
    let new = try changed.encoded()
    let diff = try UnifiedDiff(services: services).diff([
      .init(
        path: inputs.rolloutsPath, old: old.map { String(decoding: $0, as: UTF8.self) },
        new: String(decoding: new, as: UTF8.self))
    ])
    output.write(linesOf: diff, to: diffStream)
    if dryRun {
      output.write(line: "dry run: \(summary); \(inputs.rolloutsPath) not written", to: .standardError)
      return
    }
    try AtomicFile.write(new, to: inputs.rolloutsURL)
    output.write(
      line: "\(summary); review and commit \(inputs.rolloutsPath), then 'release ota publish'",
      to: .standardError)
  }

  /// A refused change is bad input: exit 2 with its one line.
  static func refusingBadInput<T>(_ body: () throws -> T) throws -> T {
    do { return try body() } catch let refusal as RolloutChange.Refusal {
      throw ReleaseError.invalidInput(refusal.description)
    }
  }
}
