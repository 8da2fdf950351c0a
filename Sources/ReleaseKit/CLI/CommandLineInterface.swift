import Foundation
import ReleaseManifest
import ReleaseSystem

/// Entry point: parses the command line, runs the command, maps errors to exit codes.
public enum CommandLineInterface {
  /// The run finished, but its standard output's reader went away before all of it was written.
  public static let outputLostExitCode: Int32 = 3

  public static func main(arguments: [String], services: Services = .live()) -> Int32 {
    let code = run(arguments: arguments, services: services)
    if let terminal = services.output as? StandardOutput, terminal.readerWentAway {
      services.output.write(
        line:
          "release: standard output was closed by its reader; the run went on to the end (exit \(code) otherwise), but not all of its output was delivered",
        to: .standardError)
      return code == 0 ? outputLostExitCode : code
    }
    return code
  }

  private static func run(arguments: [String], services: Services) -> Int32 {
    let invocation = CommandInvocation(
      arguments: Array(arguments.dropFirst()), services: services,
      reporter: PlainReporter(output: services.output, clock: services.clock))
    do {
      guard let name = arguments.first else {
        services.output.write(linesOf: HelpText.overview, to: .standardOutput)
        return 2
      }
      switch name {
      case "-h", "--help", "help":
        let text =
          invocation.arguments.first.flatMap {
            Command.named($0)?.help(for: Array(invocation.arguments.dropFirst()))
          } ?? HelpText.overview
        services.output.write(linesOf: text, to: .standardOutput)
        return 0
      case "--version", "version":
        services.output.write(line: "\(ReleaseTool.name) \(ReleaseTool.version)", to: .standardOutput)
        return 0
      default:
        break
      }
      guard let command = Command.named(name) else {
        let hint = Suggestion.closest(to: name, among: Command.all.map(\.name) + ["help"]).map {
          " (did you mean '\($0)'?)"
        }
        throw ReleaseError.usage("'\(name)': unknown command\(hint ?? ""); see 'release --help'")
      }
      if invocation.arguments.contains("--help") || invocation.arguments.contains("-h") {
        services.output.write(linesOf: command.help(for: invocation.arguments), to: .standardOutput)
        return 0
      }
      try command.run(invocation)
      invocation.reporter.finish()
      return 0
    } catch let error as ReleaseError {
      if case .validation(let failure) = error {
        // One line per problem, nothing else: the lines are the message.
        invocation.reporter.report(.diagnostics(failure.diagnostics))
      } else {
        invocation.reporter.report(.failure(error.lines))
      }
      invocation.reporter.finish()
      return error.exitCode
    } catch let failure as ValidationFailure {
      invocation.reporter.report(.diagnostics(failure.diagnostics))
      invocation.reporter.finish()
      return 2
    } catch {
      invocation.reporter.report(.failure(["\(error)"]))
      invocation.reporter.finish()
      return 1
    }
  }
}

/// `release all` and `release customer`: the release pipeline.
enum ReleaseCommand {
  /// Parses the options, then runs the pipeline with the reporters they ask for (which also
  /// report the command's errors from then on).
  static func run(command: String, _ invocation: CommandInvocation) throws {
    let options = try options(
      command: command, arguments: invocation.arguments, services: invocation.services)
    invocation.reporter = ReporterFactory.make(options: options, services: invocation.services)
    try run(options: options, services: invocation.services, reporter: invocation.reporter)
  }

  static let flags: Set<String> = [
    "--dry-run", "--force", "--fail-fast", "--json", "--skip-tests", "--tag", "--push", "--allow-dirty",
    "--no-publish", "--publish-passed",
  ]
  static let valueOptions: Set<String> = [
    "--manifest", "--models", "--templates", "--state", "--dist", "--cache", "--jobs", "--publish",
    "--s3-endpoint", "--s3-region", "--public-url", "--remote", "--config", "--shard", "--shards",
    "--rollouts",
    "--max-model-size", "--timeout",
  ]

  /// `services` locates release.config.json (at its root, or `--config`); without it only the
  /// command line counts.
  static func options(command: String, arguments: [String], services: Services? = nil) throws
    -> ReleaseOptions
  {
    let parsed = try Arguments(arguments, spec: .init(flags: flags, options: valueOptions), command: command)
    var options = ReleaseOptions()
    switch command {
    case "customer":
      guard !parsed.positionals.isEmpty else {
        throw ReleaseError.usage("customer: expected at least one customer id or app_id, found none")
      }
      options.selection = .customers(parsed.positionals)
    case "merge":
      guard !parsed.positionals.isEmpty else {
        throw ReleaseError.usage("merge: expected the dist/ directories of the shards, found none")
      }
      options.mergeSources = parsed.positionals
    default:
      if let extra = parsed.positionals.first {
        throw ReleaseError.usage(
          "'\(extra)': 'release \(command)' takes no customer names; use 'release customer \(extra)'")
      }
    }
    if let text = parsed.value("--shard") {
      guard command == "all" else { throw ReleaseError.usage("--shard: only 'release all' builds a shard") }
      options.shard = try ShardSelection.parse(text)
    }
    if command == "plan" {
      guard parsed.value("--shards") != nil else {
        throw ReleaseError.usage("plan: --shards <n> is required (how many machines share the work)")
      }
      options.planShards = try parsed.integer("--shards", in: 1...256)
    } else if parsed.value("--shards") != nil {
      throw ReleaseError.usage("--shards: only for 'release plan'; to build one shard use --shard k/N")
    }
    if command == "merge" && parsed.flag("--force") {
      throw ReleaseError.usage("--force: a merge builds nothing; rebuild in the shards")
    }
    options.publishPassed = parsed.flag("--publish-passed")
    options.manifestPath = parsed.value("--manifest") ?? options.manifestPath
    // release.config.json gives defaults; each flag overrides its key.
    let configuration =
      try services.map { try ReleaseConfiguration.load(explicitPath: parsed.value("--config"), services: $0) }
      ?? ReleaseConfiguration()
    options.modelsPath = parsed.value("--models") ?? configuration.models ?? options.modelsPath
    // Each value from release.config.json is named by its key in messages, not by its flag.
    if parsed.value("--models") == nil && configuration.models != nil {
      options.origins.models = SettingOrigins.configuration(configuration.path, key: "models")
    }
    if parsed.value("--s3-endpoint") == nil && configuration.s3Endpoint != nil {
      options.origins.s3Endpoint = SettingOrigins.configuration(configuration.path, key: "publish.s3Endpoint")
    }
    if parsed.value("--s3-region") == nil && configuration.s3Region != nil {
      options.origins.s3Region = SettingOrigins.configuration(configuration.path, key: "publish.s3Region")
    }
    if ModelStoreLocation.isRemote(options.modelsPath), URLCredentials.carriesCredential(options.modelsPath) {
      throw ReleaseError.usage(
        "\(options.origins.models) \(URLCredentials.redacted(options.modelsPath)): a credential in a URL shows in the process list and in messages; a model store URL must not carry one (use s3:// with the AWS_* variables for a private store)"
      )
    }
    options.templatesPath = parsed.value("--templates") ?? options.templatesPath
    options.statePath = parsed.value("--state") ?? options.statePath
    options.rolloutsPath = parsed.value("--rollouts") ?? options.rolloutsPath
    options.distPath = parsed.value("--dist") ?? options.distPath
    options.cachePath = parsed.value("--cache") ?? options.cachePath
    options.jobs = try parsed.integer("--jobs", in: 1...64) ?? options.jobs
    options.maximumModelSize = try parsed.size("--max-model-size") ?? options.maximumModelSize
    options.timeout = try parsed.duration("--timeout") ?? options.timeout
    options.archiveModificationTime = try SourceDateEpoch.value(services?.environment ?? [:])
    options.dryRun = parsed.flag("--dry-run")
    options.force = parsed.flag("--force")
    options.failFast = parsed.flag("--fail-fast")
    options.json = parsed.flag("--json")
    options.skipTests = parsed.flag("--skip-tests")
    options.s3Endpoint = parsed.value("--s3-endpoint") ?? configuration.s3Endpoint
    options.s3Region = parsed.value("--s3-region") ?? configuration.s3Region
    let (publicURL, publicURLOrigin) = try checkedPublicURL(
      flag: parsed.value("--public-url"), configuration: configuration)
    options.publicURL = publicURL
    options.origins.publicURL = publicURLOrigin
    let given = parsed.values("--publish")
    if parsed.flag("--no-publish") && !given.isEmpty {
      throw ReleaseError.usage("--no-publish: cannot be combined with --publish")
    }
    func destination(_ text: String) throws -> PublishDestination {
      try PublishDestination.parse(
        text, s3Endpoint: options.s3Endpoint, region: options.s3Region, baseURL: publicURL,
        origins: options.origins)
    }
    if parsed.flag("--no-publish") {
      options.publish = []
    } else if !given.isEmpty {
      options.publish = try given.map(destination)
    } else {
      options.publish = try (configuration.destinations ?? []).enumerated().map { index, text in
        do { return try destination(text) } catch ReleaseError.usage(let message) {
          throw ReleaseError.usage("\(configuration.path): publish.destinations[\(index)]: \(message)")
        }
      }
    }
    // The releases repository's URL goes into generated READMEs (and so into source digests)
    // also under --no-publish, so that run makes the same packages as the publishing one.
    let releasesRepository = { (destinations: [PublishDestination]) -> String? in
      destinations.lazy.compactMap { destination -> String? in
        if case .releasesRepositories(let template) = destination { return template }
        return nil
      }.first
    }
    if parsed.flag("--no-publish") {
      options.releasesRepository = releasesRepository(
        (configuration.destinations ?? []).compactMap { try? destination($0) })
    } else {
      options.releasesRepository = releasesRepository(options.publish)
    }
    options.otaDestination = try configuration.otaDestination.map { text in
      do { return try destination(text) } catch ReleaseError.usage(let message) {
        throw ReleaseError.usage("\(configuration.path): publish.otaDestination: \(message)")
      }
    }
    if options.shard != nil {
      // A shard's dist/ is half a release: the merge job publishes, tags and records versions.
      for flag in ["--publish", "--tag", "--push", "--publish-passed"]
      where parsed.flag(flag) || !parsed.values(flag).isEmpty {
        throw ReleaseError.usage("\(flag): a shard does not publish; run it on 'release merge' of all shards")
      }
      options.publish = []
    }
    options.publishPassed = options.publishPassed || (configuration.publishPassed ?? false)
    options.tag = parsed.flag("--tag") || !options.publish.isEmpty
    options.push = parsed.flag("--push")
    options.allowDirty = parsed.flag("--allow-dirty")
    options.remote = parsed.value("--remote") ?? options.remote
    if let remote = options.remote, URLCredentials.carriesCredential(remote) {
      throw ReleaseError.usage(
        "--remote \(URLCredentials.redacted(remote)): a credential in a URL shows in the process list and in git's messages; remove it and let git find it (a credential helper, or an SSH key in ssh-agent)"
      )
    }
    if let remote = options.remote,
      remote.isEmpty || remote.hasPrefix("-")
        || remote.contains(where: { $0.isWhitespace || $0.asciiValue.map { $0 < 0x20 } == true })
    {
      throw ReleaseError.usage(
        "--remote \(remote.prefix(60)): not a git remote name or URL; expected e.g. origin")
    }
    if options.push && !options.tag {
      throw ReleaseError.usage("--push: pushes tags, so it needs --tag or --publish")
    }
    return options
  }

  /// `--public-url` (or `publish.publicURL`), refused when it carries a credential.
  /// The public URL as every command takes it (the flag, else release.config.json's), refused
  /// if it carries a credential; and how messages name where it came from.
  static func checkedPublicURL(flag: String?, configuration: ReleaseConfiguration) throws -> (
    value: String?, origin: String
  ) {
    let origin =
      flag == nil && configuration.publicURL != nil
      ? SettingOrigins.configuration(configuration.path, key: "publish.publicURL")
      : SettingOrigins().publicURL
    let publicURL = flag ?? configuration.publicURL
    if let publicURL, URLCredentials.carriesCredential(publicURL) || publicURL.contains("@") {
      throw ReleaseError.usage(
        "\(origin) \(URLCredentials.redacted(publicURL)): a credential in a URL ends up in every package and index; serve the destination without one"
      )
    }
    return (publicURL, origin)
  }

  /// The steps of a release, each taking what the one before returned. A merge joins shards
  /// instead of building; a shard builds its part and records which part it was instead of
  /// publishing. `record` keeps what the summary reports: the customers' latest results, and
  /// the run's lock once taken.
  static func pipeline(_ pipeline: Pipeline, _ record: inout RunRecord) throws {
    let options = pipeline.context.options
    let inputs = try pipeline.run(AlignModelsStep(), try pipeline.run(LoadInputsStep(), ()))

    /// What a run does with its customers' releases once they are in dist/.
    func release(_ results: RunResults, ota: OTAPlan?, tags: TagPlan?) throws {
      try pipeline.run(CheckArtifactsStep(), results)
      try pipeline.run(WriteArtifactListStep(), results)
      try pipeline.run(PublishStep(), results)
      try pipeline.run(
        PublishOTAStep(), ota.map { .init(ota: $0, inputs: inputs, results: results) },
        otherwise: PublishOTAStep.noDestination)
      try pipeline.run(
        TagStep(), tags.map { .init(results: results, checked: $0) },
        otherwise: TagStep.skipReason(results, pipeline.context))
      try pipeline.run(WriteStateStep(), results)
    }

    if !options.mergeSources.isEmpty {
      let ota = try pipeline.run(CheckOTAStep(), inputs)
      let origins = try pipeline.run(LoadShardsStep(), ())
      var plan = try pipeline.run(PlanStep(), .init(inputs: inputs, origins: origins))
      plan = try pipeline.run(CheckShardsStep(), .init(plan: plan, origins: origins))
      let tags = try pipeline.run(TagCheckStep(), plan)
      if let tags { plan = tags.plan }
      record.customers = plan.customers
      record.lock = try pipeline.run(LockStep(), ())
      let customers =
        try pipeline.run(CopyShardReleasesStep(), .init(plan: plan, origins: origins)) ?? plan.customers
      record.customers = customers
      try release(
        RunResults(inputs: inputs, customers: customers, options: options), ota: ota, tags: tags?.tags)
      return
    }

    if let selection = options.shard {
      let plan = try pipeline.run(PlanStep(), .init(inputs: inputs))
      let shard = try pipeline.run(SelectShardStep(selection: selection), plan)
      record.customers = shard.plan.customers
      record.lock = try pipeline.run(LockStep(), ())
      let customers = try pipeline.run(BuildCustomersStep(), shard.plan) ?? shard.plan.customers
      record.customers = customers
      let results = RunResults(inputs: inputs, customers: customers, options: options)
      try pipeline.run(CheckArtifactsStep(), results)
      try pipeline.run(WriteArtifactListStep(), results)
      try pipeline.run(WriteShardRecordStep(), .init(record: shard.record, customers: customers))
      return
    }

    let ota = try pipeline.run(CheckOTAStep(), inputs)
    var plan = try pipeline.run(PlanStep(), .init(inputs: inputs))
    let tags = try pipeline.run(TagCheckStep(), plan)
    if let tags { plan = tags.plan }
    record.customers = plan.customers
    record.lock = try pipeline.run(LockStep(), ())
    let customers = try pipeline.run(BuildCustomersStep(), plan) ?? plan.customers
    record.customers = customers
    try release(
      RunResults(inputs: inputs, customers: customers, options: options), ota: ota, tags: tags?.tags)
  }

  static func run(options: ReleaseOptions, services: Services, reporter: Reporter) throws {
    let context = ReleaseContext(services: services, options: options, reporter: reporter)
    var record = RunRecord()
    // The reporters finish (dist/report.xml, the step summary) while the run still holds its
    // locks.
    defer { withExtendedLifetime(record.lock) { reporter.finish() } }
    let start = services.clock.monotonicSeconds()
    func summarize() {
      let shipping = Set(RunResults.shipping(record.customers, options).shipping.map(\.id))
      let outcomes = record.customers.map {
        $0.outcome(relativeTo: services.root, shipped: shipping.contains($0.id))
      }
      reporter.report(.summary(outcomes, seconds: services.clock.monotonicSeconds() - start))
    }
    do {
      try pipeline(Pipeline(context), &record)
    } catch {
      // Past the lock step the run did work (input checks are behind it): the summary and
      // report.xml still say what was built before the step that failed.
      if !options.dryRun && record.lock != nil { summarize() }
      throw error
    }
    // A dry run's plan lines already say everything; the summary is for runs that did work.
    if options.dryRun { return }
    summarize()
    let failed = record.customers.filter { $0.isFailed || $0.status == .cancelled }
    if !failed.isEmpty { throw ReleaseError.customersFailed(failed.map(\.id)) }
  }
}

/// `release bump major|minor|patch`.
enum BumpCommand {
  static func run(arguments: [String], services: Services) throws {
    let parsed = try Arguments(
      arguments, spec: .init(flags: ["--dry-run"], options: ["--state", "--templates"]), command: "bump")
    guard parsed.positionals.count == 1, let part = SemanticVersion.Part(rawValue: parsed.positionals[0])
    else {
      let found = parsed.positionals.isEmpty ? "nothing" : "\"\(parsed.positionals.joined(separator: " "))\""
      throw ReleaseError.usage("bump: expected one of major, minor, patch; found \(found)")
    }
    let defaults = ReleaseOptions()
    let bump = VersionBump(
      services: services, statePath: parsed.value("--state") ?? defaults.statePath,
      templatesPath: parsed.value("--templates") ?? defaults.templatesPath)
    let (old, new, files) = try bump.changes(part: part)
    let diff = try bump.diff(files)
    services.output.write(linesOf: diff, to: .standardOutput)
    if parsed.flag("--dry-run") {
      services.output.write(line: "dry run: SDK \(old) -> \(new) not written", to: .standardError)
      return
    }
    try bump.apply(files, from: old, to: new)
    services.output.write(
      line: "bumped SDK \(old) -> \(new) in \(files.map(\.path).joined(separator: ", ")); review and commit",
      to: .standardError)
  }
}
