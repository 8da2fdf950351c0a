import Foundation
import ReleaseCore
import ReleaseFlow
import ReleaseJSON
import ReleaseManifest
import ReleasePipeline
import ReleaseReporting
import ReleaseSettings
import ReleaseSystem

/// Entry point: parses the command line, runs the command, maps errors to exit codes.
package enum CommandLineInterface {
  /// The run finished, but its standard output's reader went away before all of it was written.
  static let outputLostExitCode: Int32 = 3

  package static func main(arguments: [String], services: Services = .live()) -> Int32 {
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
      guard let command = Command.invoked(as: name) else {
        let hint = Suggestion.closest(to: name, among: Command.all.map(\.name)).map {
          " (did you mean '\($0)'?)"
        }
        throw ReleaseError.usage("'\(name)': unknown command\(hint ?? ""); see 'release --help'")
      }
      if command.answersHelpFlag,
        invocation.arguments.contains("--help") || invocation.arguments.contains("-h")
      {
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
    } catch {
      return report(error, invocation.reporter)
    }
  }

  /// Reports a command's error through the reporter it runs with, and returns its exit code.
  private static func report(_ error: any Error, _ reporter: Reporter) -> Int32 {
    defer { reporter.finish() }
    switch error {
    case let error as ReleaseError:
      if case .validation(let failure) = error {
        // One line per problem, nothing else: the lines are the message.
        reporter.report(.diagnostics(failure.diagnostics))
      } else {
        reporter.report(.failure(error.lines))
      }
      return error.exitCode
    case let failure as ValidationFailure:
      reporter.report(.diagnostics(failure.diagnostics))
      return 2
    default:
      reporter.report(.failure(["\(error)"]))
      return 1
    }
  }
}

/// `release all`, `customer` and `merge`: the release pipeline.
enum ReleaseCommand {
  /// Runs the pipeline with the reporters the settings ask for (which also report the
  /// command's errors from then on).
  static func run(_ settings: RunSettings, _ invocation: CommandInvocation) throws {
    invocation.reporter = ReporterFactory.make(settings: settings, services: invocation.services)
    try ReleaseRun.run(settings: settings, services: invocation.services, reporter: invocation.reporter)
  }
}
