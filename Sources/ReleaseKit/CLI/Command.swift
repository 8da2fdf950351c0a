/// One command of the CLI, in the one table every part of the CLI reads: dispatch, the
/// overview in `release --help`, `release help <command>` and the did-you-mean hint (after
/// swift-argument-parser's `subcommands`). A new command is one entry in `all`.
struct Command: Sendable {
  /// What the user types: `release <name>`.
  let name: String
  /// The name with its arguments, for the overview: `customer <id>...`.
  let synopsis: String
  /// One line for the overview.
  let summary: String
  /// `release <name> --help`.
  let help: String
  let run: @Sendable (CommandInvocation) throws -> Void
  /// `release <name> <subcommand>`: each listed in the overview, with its own help
  /// (`release ota publish --help`); `run` dispatches to them.
  var subcommands: [Command] = []

  /// Every command, in the order the overview lists them.
  static let all: [Command] = [
    Command(
      name: "all", synopsis: "all", summary: "release every customer in the manifest", help: HelpText.all,
      run: { try ReleaseCommand.run(command: "all", $0) }),
    Command(
      name: "customer", synopsis: "customer <id>...", summary: "release the named customers (slug or app_id)",
      help: HelpText.customer, run: { try ReleaseCommand.run(command: "customer", $0) }),
    Command(
      name: "plan", synopsis: "plan --shards <n>", summary: "split the customers over n CI machines",
      help: HelpText.plan, run: PlanCommand.run),
    Command(
      name: "merge", synopsis: "merge <dist>...",
      summary: "join the shards' dist/s into one release (then publish, tag)", help: HelpText.merge,
      run: { try ReleaseCommand.run(command: "merge", $0) }),
    Command(
      name: "verify", synopsis: "verify <path>...", summary: "check generated packages before they go out",
      help: HelpText.verify, run: { try VerifyCommand.run(arguments: $0.arguments, services: $0.services) }),
    Command(
      name: "bump", synopsis: "bump <part>",
      summary: "bump the SDK version (major, minor or patch) everywhere it appears", help: HelpText.bump,
      run: { try BumpCommand.run(arguments: $0.arguments, services: $0.services) }),
    Command(
      name: "rollout", synopsis: "rollout <id> <flow> <version>",
      summary: "offer a model over the air to a share of a customer's devices", help: HelpText.rollout,
      run: RolloutCommand.rollout),
    Command(
      name: "pause", synopsis: "pause <id> <flow>", summary: "stop devices downloading new models of a flow",
      help: HelpText.pause, run: RolloutCommand.pause),
    Command(
      name: "rollback", synopsis: "rollback <id> <flow> <version>",
      summary: "retract a model: devices delete it and fall back", help: HelpText.rollback,
      run: RolloutCommand.rollback),
    Command(
      name: "ota", synopsis: "ota <subcommand>", summary: "over-the-air models: status, publish",
      help: HelpText.ota, run: OTACommand.run, subcommands: OTACommand.subcommands),
  ]

  static func named(_ name: String) -> Command? { all.first { $0.name == name } }

  /// The help for `arguments` (what follows the command's name): the subcommand's when the
  /// first one names a subcommand, else the command's own.
  func help(for arguments: [String]) -> String {
    guard let first = arguments.first, let subcommand = subcommands.first(where: { $0.name == first }) else {
      return help
    }
    return subcommand.help
  }
}

/// One run of a command: its arguments (after the command's name), the machine, and the
/// reporter that reports its errors (a command that chooses its own output, such as
/// `--json`, replaces it).
final class CommandInvocation {
  let arguments: [String]
  let services: Services
  var reporter: Reporter

  init(arguments: [String], services: Services, reporter: Reporter) {
    self.arguments = arguments
    self.services = services
    self.reporter = reporter
  }
}
