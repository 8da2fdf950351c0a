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
        services.output.write(linesOf: Command.overview, to: .standardOutput)
        return 2
      }
      switch name {
      case "-h", "--help", "help":
        if invocation.arguments == ["--markdown"] {
          services.output.write(linesOf: Command.markdownTable, to: .standardOutput)
          return 0
        }
        let text =
          invocation.arguments.first.flatMap {
            Command.named($0)?.help(for: Array(invocation.arguments.dropFirst()))
          } ?? Command.overview
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
      // Every usage error is thrown here, before the command writes anything.
      let target = try command.resolveSubcommand(invocation.arguments)
      if target.parent != nil { invocation.arguments.removeFirst() }
      let parsed = try Arguments(invocation.arguments, command: target)
      try target.run?(parsed, invocation)
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

/// `release all`, `customer` and `merge`: the release pipeline.
enum ReleaseCommand {
  /// Runs the pipeline with the reporters the options ask for (which also report the
  /// command's errors from then on).
  static func run(_ options: ReleaseOptions, _ invocation: CommandInvocation) throws {
    invocation.reporter = ReporterFactory.make(options: options, services: invocation.services)
    try run(options: options, services: invocation.services, reporter: invocation.reporter)
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
