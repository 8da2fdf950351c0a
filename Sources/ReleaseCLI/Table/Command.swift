import ReleaseCore
import ReleaseJSON
import ReleaseManifest
import ReleasePipeline
import ReleaseReporting
import ReleaseSettings

/// The declarative shape of the command line (after swift-argument-parser's `@Option`,
/// `@Flag`, `@Argument` and `@OptionGroup`, written here because the package has no
/// dependencies). One `Command` value per command drives its parsing, its `--help`, the
/// overview, the did-you-mean hints, the release.config.json defaults and the README's
/// command table.

/// Options that several commands take together, declared once (swift-argument-parser's
/// `@OptionGroup`); help prints each under its title.
struct OptionGroup: Sendable {
  let title: String
  let options: [Option]
  /// A shared group's short name, by which the README's table lists it (nil: a command's own).
  var name: String? = nil
  /// Options of the shared group this command does not take.
  var excluded: [Option] = []

  init(_ title: String, _ options: [any DeclaredOption], name: String? = nil, excluded: [Option] = []) {
    self.title = title
    self.options = options.map(\.option)
    self.name = name
    self.excluded = excluded
  }
}

/// A positional argument, for help: `<id>...` (how many a command takes is its `Arity`).
struct Positional: Sendable {
  /// As the usage line shows it: `<id>...`, `[<customer>]`, `major|minor|patch`.
  let label: String
  let help: String
}

/// One command of the CLI. A new command is one entry in `Command.all` (Commands.swift);
/// a new option is one `Option` in `Options` (Options.swift) listed in the groups of the
/// commands that take it, read by the command's typed options.
struct Command: Sendable {
  /// What the user types after `release`: `customer`, or `status` under `ota`.
  let name: String
  /// The name with its arguments, for the overview and the README: `customer <id>...`.
  let synopsis: String
  /// One line for the overview.
  let summary: String
  /// The line `--help` starts with, after `release <path> — `.
  var title: String? = nil
  /// The usage lines of `--help` (after `release `); default: the synopsis with `[options]`.
  var usage: [String] = []
  /// What the command does, for `--help`.
  var discussion: String = ""
  var positionals: [Positional] = []
  /// How many positionals it takes; the parser refuses another count.
  var arity: Arity = .none(.arguments)
  var groups: [OptionGroup] = []
  /// Options a sibling command takes that this one refuses with a reason of its own
  /// (e.g. `--shard` under `customer`): "<option>: <reason>".
  var refusals: [String: String] = [:]
  /// Printed last in `--help` (exit status and the like).
  var footer: String = ""
  var subcommands: [Command] = []
  /// Set on subcommands: the words before the name, `ota`.
  var parent: String? = nil
  /// Other names it answers to on the command line: `--help`, `--version`.
  var aliases: [String] = []
  /// Where the command is listed: the overview, the README's table.
  var listing: Listing = .everywhere

  enum Listing: Sendable {
    case everywhere
    /// In `release --help` only (`help`).
    case overview
    /// Nowhere (`version`, which `--version` names).
    case hidden
  }

  /// Runs the command with its arguments parsed by this description (nil for a command
  /// that only groups subcommands).
  var run: (@Sendable (Arguments, CommandInvocation) throws -> Void)? = nil

  /// `ota publish`: how messages and help name the command.
  var path: String { parent.map { "\($0) \(name)" } ?? name }

  /// Every option the command accepts, in help order.
  var options: [Option] { groups.flatMap(\.options) }

  func option(named name: String) -> Option? { options.first { $0.name == name } }

  /// Whether `--help` and `-h` anywhere after the name ask for its help (else they are its
  /// arguments, as for `help` itself).
  var answersHelpFlag: Bool {
    if case .passthrough = arity { return false }
    return true
  }

  /// The subcommand `arguments` start with, if any.
  func subcommand(for arguments: [String]) -> Command? {
    guard let first = arguments.first else { return nil }
    return subcommands.first { $0.name == first }
  }

  /// The help for `arguments` (what follows the command's name): the subcommand's when the
  /// first one names a subcommand, else the command's own.
  func help(for arguments: [String]) -> String {
    subcommand(for: arguments)?.help ?? help
  }

  /// The command `arguments` run: this one, or for a command of subcommands the one named
  /// first.
  func resolveSubcommand(_ arguments: [String]) throws -> Command {
    guard !subcommands.isEmpty else { return self }
    let names = subcommands.map(\.name)
    // "status, publish or evaluate".
    let choices =
      names.count > 1 ? names.dropLast().joined(separator: ", ") + " or " + names.last! : names.joined()
    guard let name = arguments.first else {
      throw ReleaseError.usage("\(path): expected a subcommand, \(choices); found nothing")
    }
    guard let subcommand = subcommand(for: arguments) else {
      let hint = Suggestion.closest(to: name, among: names).map { " (did you mean '\($0)'?)" }
      throw ReleaseError.usage("\(path): '\(name)' is not a subcommand\(hint ?? ""); expected \(choices)")
    }
    return subcommand
  }
}

/// One run of a command: its arguments (after the command's name), the machine, and the
/// reporter that reports its errors (a command that chooses its own output, such as
/// `--json`, replaces it).
final class CommandInvocation {
  /// After the command's name (and its subcommand's).
  var arguments: [String]
  let services: Services
  var reporter: Reporter

  init(arguments: [String], services: Services, reporter: Reporter) {
    self.arguments = arguments
    self.services = services
    self.reporter = reporter
  }
}

/// Drops every event: for commands whose steps print their own lines (their errors still reach
/// the user through the command's own reporter, which reports what is thrown).
final class DiscardingReporter: Reporter {
  func report(_ event: ReleaseEvent) {}
}

extension CommandInvocation {
  /// The pipeline of a command that prints its own lines (a table, a diff, verdicts): its
  /// steps' events are read by no reporter.
  func quietPipeline(_ settings: RunSettings = RunSettings()) -> Pipeline {
    Pipeline(ReleaseContext(services: services, settings: settings, reporter: DiscardingReporter()))
  }
}
