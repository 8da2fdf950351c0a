import Foundation
import ReleaseGeneration
import ReleaseManifest
import ReleaseSystem

/// What the over-the-air commands read: the manifest, the model store, the SDK version being
/// released (the newest a device can run), the template's signal catalog and `rollouts.json`,
/// checked against each other (a rollout of a customer or flow the manifest no longer has is
/// an error, reported with every other).
struct OTAInputs {
  let manifest: Manifest
  let store: ModelStore
  let sdkVersion: SemanticVersion
  let catalog: SignalCatalog
  /// The template's features: a model may read only the signals of its flow's feature.
  let features: FeatureCatalog
  let rollouts: RolloutState
  let rolloutsPath: String
  let rolloutsURL: URL

  static let flags: Set<String> = ["--dry-run"]
  static let valueOptions: Set<String> = [
    "--manifest", "--models", "--templates", "--state", "--rollouts", "--cache", "--s3-endpoint",
    "--s3-region",
  ]

  static func load(_ parsed: Arguments, services: Services) throws -> OTAInputs {
    var options = ReleaseOptions()
    options.manifestPath = parsed.value("--manifest") ?? options.manifestPath
    options.modelsPath = parsed.value("--models") ?? options.modelsPath
    options.templatesPath = parsed.value("--templates") ?? options.templatesPath
    options.statePath = parsed.value("--state") ?? options.statePath
    options.cachePath = parsed.value("--cache") ?? options.cachePath
    options.s3Endpoint = parsed.value("--s3-endpoint")
    options.s3Region = parsed.value("--s3-region")
    let rolloutsPath = parsed.value("--rollouts") ?? RolloutState.defaultPath

    let state = try ReleaseState.load(
      from: services.resolve(options.statePath), displayPath: options.statePath)
    let store = try ModelStoreLocation.open(options, services: services)
    let template = try PackageTemplate.load(
      services.resolve(options.templatesPath), displayPath: options.templatesPath)
    let manifest = try ManifestLoader.load(
      contentsOf: services.resolve(options.manifestPath), displayPath: options.manifestPath, store: store,
      features: template.features)
    let catalog = try SignalCatalog.load(from: template, templatesPath: options.templatesPath)
    let rolloutsURL = services.resolve(rolloutsPath)
    let rollouts = try RolloutState.load(from: rolloutsURL, displayPath: rolloutsPath)
    try check(rollouts, against: manifest, displayPath: rolloutsPath)
    return OTAInputs(
      manifest: manifest, store: store, sdkVersion: state.sdkVersion, catalog: catalog,
      features: template.features, rollouts: rollouts,
      rolloutsPath: rolloutsPath, rolloutsURL: rolloutsURL)
  }

  /// Every customer and flow of the rollouts must still be in the manifest: models trained on
  /// a customer's data go only to that customer's flows.
  static func check(_ rollouts: RolloutState, against manifest: Manifest, displayPath: String) throws {
    var problems: [Diagnostic] = []
    for (id, flows) in rollouts.customers.sorted(by: { $0.key < $1.key }) {
      guard let customer = manifest.customers.first(where: { $0.id == id }) else {
        problems.append(
          Diagnostic(
            file: displayPath, path: "customers.\(id)",
            message: "not a customer in \(manifest.path); remove its rollouts"))
        continue
      }
      for flowName in flows.keys.sorted()
      where !customer.customModels.contains(where: { $0.flowName == flowName }) {
        problems.append(
          Diagnostic(
            file: displayPath, path: "customers.\(id).\(flowName)",
            message:
              "\(id) has no \(flowName) model in \(manifest.path); a customer only gets models of its own flows"
          ))
      }
    }
    if !problems.isEmpty { throw ValidationFailure(problems) }
  }

  /// A customer by slug or app id, as `release customer` names them.
  func customer(_ key: String, command: String) throws -> Customer {
    if let customer = manifest.customer(matching: key) { return customer }
    let ids = manifest.customers.map(\.id)
    let hint = Suggestion.closest(to: key, among: ids).map { " (did you mean \"\($0)\"?)" } ?? ""
    throw ReleaseError.usage(
      "\(command): customer \"\(key)\" is not in \(manifest.path)\(hint); expected one of: \(ids.joined(separator: ", "))"
    )
  }

  /// Reads an offered model from the store: its bytes' digest and its Core ML description.
  func offeredModel(_ reference: ModelReference) throws -> RolloutChange.OfferedModel {
    do { return try Self.read(reference, from: store) } catch let error as ReleaseError {
      throw error
    } catch {
      throw ReleaseError.invalidInput("\(error)")
    }
  }

  static func read(_ reference: ModelReference, from store: ModelStore) throws -> RolloutChange.OfferedModel {
    let file = try store.localFile(for: reference)
    let info = try CoreMLModelInfo.load(contentsOf: file)
    let (sha256, size) = try SHA256Digest.hexAndSize(ofFileAt: file)
    return .init(reference: reference, info: info, sha256: sha256, size: size)
  }
}

/// `release rollout`, `release pause` and `release rollback`: change `rollouts.json` (under a
/// lock, re-read under it, so two commands never lose each other's change), print the change
/// as a diff, and leave publishing to `release ota publish`.
enum RolloutCommand {
  static func rollout(_ invocation: CommandInvocation) throws {
    let parsed = try Arguments(
      invocation.arguments,
      spec: .init(flags: OTAInputs.flags, options: OTAInputs.valueOptions.union(["--percent"])),
      command: "rollout")
    let (customerKey, flowName, version) = try positionals(parsed, command: "rollout", withVersion: true)
    guard parsed.value("--percent") != nil else {
      throw ReleaseError.usage(
        "rollout: --percent <0-100> is required (the share of devices offered the model)")
    }
    let percent = try parsed.integer("--percent", in: 0...100)!
    let inputs = try OTAInputs.load(parsed, services: invocation.services)
    let customer = try inputs.customer(customerKey, command: "rollout")
    let command = "rollout \(customer.id) \(flowName) \(version!)"
    _ = try refusingBadInput {
      try RolloutChange.bundledModel(of: customer, flowName: flowName, command: command)
    }
    let model = try inputs.offeredModel(ModelReference(flowName: flowName, version: version!))
    try apply(parsed, inputs, invocation.services) { state in
      try RolloutChange.rollout(
        state, customer: customer, model: model, percent: percent, catalog: inputs.catalog,
        feature: inputs.features.feature(servingFlow: flowName),
        sdkVersion: inputs.sdkVersion, command: command, newSalt: RolloutState.newSalt)
    } summary: {
      "\(customer.id): \(flowName) v\(version!) offered to \(percent)% of devices"
    }
  }

  static func pause(_ invocation: CommandInvocation) throws {
    let parsed = try Arguments(
      invocation.arguments, spec: .init(flags: OTAInputs.flags, options: OTAInputs.valueOptions),
      command: "pause")
    let (customerKey, flowName, _) = try positionals(parsed, command: "pause", withVersion: false)
    let inputs = try OTAInputs.load(parsed, services: invocation.services)
    let customer = try inputs.customer(customerKey, command: "pause")
    try apply(parsed, inputs, invocation.services) { state in
      try RolloutChange.pause(
        state, customer: customer, flowName: flowName, command: "pause \(customer.id) \(flowName)")
    } summary: {
      "\(customer.id): \(flowName) paused; devices download nothing new and keep what they run"
    }
  }

  static func rollback(_ invocation: CommandInvocation) throws {
    let parsed = try Arguments(
      invocation.arguments, spec: .init(flags: OTAInputs.flags, options: OTAInputs.valueOptions),
      command: "rollback")
    let (customerKey, flowName, version) = try positionals(parsed, command: "rollback", withVersion: true)
    let inputs = try OTAInputs.load(parsed, services: invocation.services)
    let customer = try inputs.customer(customerKey, command: "rollback")
    try apply(parsed, inputs, invocation.services) { state in
      try RolloutChange.rollback(
        state, customer: customer, flowName: flowName, version: version!,
        command: "rollback \(customer.id) \(flowName) \(version!)")
    } summary: {
      "\(customer.id): \(flowName) v\(version!) retracted; devices that downloaded it delete it"
    }
  }

  /// `<customer> <flow>` and, `withVersion`, `<modelVersion>`.
  private static func positionals(_ parsed: Arguments, command: String, withVersion: Bool) throws
    -> (customer: String, flowName: String, version: Int?)
  {
    let expected = withVersion ? 3 : 2
    guard parsed.positionals.count == expected else {
      let found = parsed.positionals.isEmpty ? "nothing" : "\"\(parsed.positionals.joined(separator: " "))\""
      let shape = withVersion ? "<customer> <flow> <modelVersion>" : "<customer> <flow>"
      throw ReleaseError.usage("\(command): expected \(shape), found \(found)")
    }
    guard withVersion else { return (parsed.positionals[0], parsed.positionals[1], nil) }
    let text = parsed.positionals[2]
    guard let version = Int(text), version > 0, String(version) == text else {
      throw ReleaseError.usage("\(command): modelVersion \"\(text)\" is not a positive whole number")
    }
    return (parsed.positionals[0], parsed.positionals[1], version)
  }

  /// Applies `change` to the state as it is on disk under the lock, prints the diff, and writes
  /// it (not under `--dry-run`). A refused change writes nothing.
  private static func apply(
    _ parsed: Arguments, _ inputs: OTAInputs, _ services: Services,
    change: (RolloutState) throws -> RolloutState, summary: () -> String
  ) throws {
    let dryRun = parsed.flag("--dry-run")
    // Refused on the state as read, before the lock: a refused command leaves no lock file.
    // Under the lock the change is made again on the state as it is then.
    _ = try refusingBadInput { try change(inputs.rollouts) }
    // A dry run writes nothing, not even a lock file; it previews against the state it read.
    let lock =
      dryRun
      ? nil
      : try FileLock(
        inputs.rolloutsURL.deletingLastPathComponent().appendingPathComponent(
          ".\(inputs.rolloutsURL.lastPathComponent).lock"), timeout: 10)
    defer { withExtendedLifetime(lock) {} }
    let current =
      dryRun
      ? inputs.rollouts : try RolloutState.load(from: inputs.rolloutsURL, displayPath: inputs.rolloutsPath)
    if !dryRun { try OTAInputs.check(current, against: inputs.manifest, displayPath: inputs.rolloutsPath) }
    let changed = try refusingBadInput { try change(current) }
    let output = services.output
    guard changed != current else {
      output.write(line: "\(summary()) (already so; \(inputs.rolloutsPath) unchanged)", to: .standardError)
      return
    }
    let old = FileManager.default.fileExists(atPath: inputs.rolloutsURL.path) ? try current.encoded() : nil
    let new = try changed.encoded()
    let diff = try UnifiedDiff(services: services).diff([
      .init(
        path: inputs.rolloutsPath, old: old.map { String(decoding: $0, as: UTF8.self) },
        new: String(decoding: new, as: UTF8.self))
    ])
    output.write(linesOf: diff, to: .standardOutput)
    if dryRun {
      output.write(line: "dry run: \(summary()); \(inputs.rolloutsPath) not written", to: .standardError)
      return
    }
    try AtomicFile.write(new, to: inputs.rolloutsURL)
    output.write(
      line: "\(summary()); review and commit \(inputs.rolloutsPath), then 'release ota publish'",
      to: .standardError)
  }

  /// A refused change is bad input: exit 2 with its one line.
  private static func refusingBadInput<T>(_ body: () throws -> T) throws -> T {
    do { return try body() } catch let refusal as RolloutChange.Refusal {
      throw ReleaseError.invalidInput(refusal.description)
    }
  }
}

/// `release ota status [<customer>]` and `release ota publish`.
enum OTACommand {
  static let subcommands = [
    Command(
      name: "status", synopsis: "ota status [<id>]",
      summary: "what each flow offers over the air, to how many, from which SDK", help: HelpText.otaStatus,
      run: status),
    Command(
      name: "publish", synopsis: "ota publish",
      summary: "publish the over-the-air manifests and their models only", help: HelpText.otaPublish,
      run: publish),
  ]

  static func run(_ invocation: CommandInvocation) throws {
    let names = subcommands.map(\.name)
    guard let name = invocation.arguments.first else {
      throw ReleaseError.usage(
        "ota: expected a subcommand, \(names.joined(separator: " or ")); found nothing")
    }
    guard let subcommand = subcommands.first(where: { $0.name == name }) else {
      let hint = Suggestion.closest(to: name, among: names).map { " (did you mean '\($0)'?)" }
      throw ReleaseError.usage(
        "ota: '\(name)' is not a subcommand\(hint ?? ""); expected \(names.joined(separator: " or "))")
    }
    let rest = CommandInvocation(
      arguments: Array(invocation.arguments.dropFirst()), services: invocation.services,
      reporter: invocation.reporter)
    defer { invocation.reporter = rest.reporter }
    try subcommand.run(rest)
  }

  /// Options of a release that `ota publish` accepts; the others (builds, tags, pushes,
  /// dist/) mean nothing to it and are refused rather than silently ignored.
  static let publishOptions: Set<String> = [
    "--dry-run", "--json", "--manifest", "--models", "--templates", "--state", "--rollouts", "--cache",
    "--publish", "--s3-endpoint", "--s3-region", "--public-url", "--config", "--max-model-size",
  ]

  /// Only the manifests and their models, from the work tree as it is: no build, no tags.
  static func publish(_ invocation: CommandInvocation) throws {
    let parsed = try Arguments(
      invocation.arguments,
      spec: .init(flags: ReleaseCommand.flags, options: ReleaseCommand.valueOptions), command: "ota publish")
    for name in ReleaseCommand.flags.union(ReleaseCommand.valueOptions).subtracting(publishOptions).sorted()
    where parsed.flag(name) || !parsed.values(name).isEmpty {
      throw ReleaseError.usage(
        "\(name): not an option of 'release ota publish', which publishes the over-the-air manifests and their models only (no build, no tags, no push); see 'release ota publish --help'"
      )
    }
    if let extra = parsed.positionals.first {
      throw ReleaseError.usage(
        "'\(extra)': 'release ota publish' takes no arguments; it publishes every customer's manifest")
    }
    let options = try ReleaseCommand.options(
      command: "ota publish", arguments: invocation.arguments, services: invocation.services)
    if options.publish.isEmpty {
      throw ReleaseError.usage(
        "ota publish: no destination; give --publish dir:<path> or s3://<bucket>[/<prefix>], or publish.destinations in release.config.json"
      )
    }
    invocation.reporter = ReporterFactory.make(options: options, services: invocation.services)
    let context = ReleaseContext(
      services: invocation.services, options: options, reporter: invocation.reporter)
    let pipeline = Pipeline(context)
    let inputs = try pipeline.run(AlignModelsStep(), try pipeline.run(LoadInputsStep(), ()))
    let ota = try pipeline.run(CheckOTAStep(), inputs)
    try pipeline.run(
      PublishOTAStep(), ota.map { .init(ota: $0, inputs: inputs, results: nil) },
      otherwise: PublishOTAStep.noDestination)
  }

  /// A table of what each flow offers over the air, to how many percent, from which SDK version.
  static func status(_ invocation: CommandInvocation) throws {
    let parsed = try Arguments(
      invocation.arguments, spec: .init(flags: [], options: OTAInputs.valueOptions), command: "ota status")
    guard parsed.positionals.count <= 1 else {
      throw ReleaseError.usage(
        "ota status: expected at most one customer, found \"\(parsed.positionals.joined(separator: " "))\"")
    }
    let inputs = try OTAInputs.load(parsed, services: invocation.services)
    let customers =
      try parsed.positionals.first.map { [try inputs.customer($0, command: "ota status")] }
      ?? inputs.manifest.customers
    var rows = [["CUSTOMER", "FLOW", "BUNDLED", "OFFERED", "PERCENT", "STATUS", "FROM SDK"]]
    for customer in customers {
      for model in customer.customModels {
        let flow = inputs.rollouts.flow(customer.id, model.flowName)
        let offers = flow?.models ?? []
        if offers.isEmpty {
          rows.append([customer.id, model.flowName, "v\(model.modelVersion)", "-", "-", "bundled only", "-"])
        }
        for offer in offers {
          let reference = ModelReference(flowName: model.flowName, version: offer.modelVersion)
          let minimum = (try? inputs.offeredModel(reference)).flatMap {
            ModelAlignment.minimumSDKVersion(inputs: $0.info.inputNames, catalog: inputs.catalog)
          }
          let status =
            offer.status.rawValue
            + (flow?.paused == true && offer.status != .retracted ? " (flow paused)" : "")
          rows.append([
            customer.id, model.flowName, "v\(model.modelVersion)", "v\(offer.modelVersion)",
            "\(offer.rolloutPercent)%",
            status, minimum?.description ?? "unknown",
          ])
        }
      }
    }
    let widths = (0..<rows[0].count).map { column in rows.map { $0[column].count }.max() ?? 0 }
    for row in rows {
      let line = zip(row, widths).map { $0.padding(toLength: $1, withPad: " ", startingAt: 0) }
        .joined(separator: "  ")
      invocation.services.output.write(
        line: line.trimmingCharacters(in: .whitespaces), to: .standardOutput)
    }
  }
}
