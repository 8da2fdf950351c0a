import Foundation
import ReleaseSettings
import ReleaseSigning
import ReleaseSystem
import ReleaseTestSupport
import XCTest

@testable import ReleaseCLI
@testable import ReleaseCore

/// The command descriptions: help, parsing, the README's table and the release.config.json
/// defaults all come from them and agree.
final class CommandTableTests: XCTestCase {
  /// Every command and subcommand the README lists.
  let commands = Command.runnable

  func services(root: URL = URL(fileURLWithPath: "/nonexistent-release-root")) -> Services {
    Services(
      processRunner: ScriptedProcessRunner(), clock: ManualClock(), root: root, environment: ["CI": "true"],
      output: CapturedOutput())
  }

  func testEveryCommandsHelpListsEveryOptionItAccepts() throws {
    XCTAssertEqual(commands.count, 18)
    for command in commands {
      let help = command.help
      XCTAssertFalse(command.options.isEmpty, command.path)
      // The positionals and required options it cannot run without, each a value its kind takes.
      let needed =
        Self.positionals(command.arity)
        + command.options.filter { $0.requirement != nil }.flatMap { [$0.name, Self.sample($0.kind)] }
      XCTAssertNoThrow(try Arguments(needed, command: command), command.path)
      for option in command.options {
        let lines = help.split(separator: "\n").map { $0.trimmingCharacters(in: .whitespaces) }
        XCTAssertTrue(
          lines.contains { $0 == option.label || $0.hasPrefix(option.label + " ") },
          "\(command.path): \(option.label) missing from its help")
        // What the help lists, the parser takes.
        let arguments = option.takesValue ? [option.name, Self.sample(option.kind)] : [option.name]
        XCTAssertNoThrow(
          try Arguments(needed + arguments, command: command), "\(command.path) \(option.name)")
      }
      // An option is declared once per command.
      XCTAssertEqual(Set(command.options.map(\.name)).count, command.options.count, command.path)
      // What the command refuses with a reason, it does not also accept.
      XCTAssertTrue(Set(command.refusals.keys).isDisjoint(with: command.options.map(\.name)), command.path)
    }
  }

  /// Positionals `arity` takes.
  static func positionals(_ arity: Arity) -> [String] {
    switch arity {
    case .none, .atMost, .passthrough: return []
    case .exactly(let count, _): return Array(repeating: "x", count: count)
    case .oneOf(let words): return [words[0]]
    case .oneOrMore: return ["x"]
    }
  }

  /// A value options of `kind` take.
  static func sample(_ kind: ValueKind) -> String {
    switch kind {
    case .flag, .text, .path: return "x"
    case .integer(let range): return "\(range.upperBound)"
    case .count: return "2"
    case .size: return "1MB"
    case .duration: return "1h"
    }
  }

  /// README.md's block between the markers is `release help --markdown`; regenerate it with
  /// `swift run release help --markdown` when a command or option changes.
  func testTheREADMEsCommandTableIsTheGeneratedOne() throws {
    let readme = try String(
      contentsOf: RepositoryRoot.url.appendingPathComponent("README.md"), encoding: .utf8)
    let start = try XCTUnwrap(readme.range(of: "\n<!-- commands -->\n"), "README.md has no <!-- commands -->")
    let end = try XCTUnwrap(
      readme.range(of: "\n<!-- /commands -->\n", range: start.upperBound..<readme.endIndex),
      "README.md has no <!-- /commands -->")
    XCTAssertEqual(
      String(readme[start.upperBound..<end.lowerBound]), Command.markdownTable,
      "README.md's command table is stale: replace it with the output of 'swift run release help --markdown'")

    let output = CapturedOutput()
    let code = CommandLineInterface.main(
      arguments: ["help", "--markdown"],
      services: Services(
        processRunner: ScriptedProcessRunner(), clock: ManualClock(), root: RepositoryRoot.url,
        environment: [:], output: output))
    XCTAssertEqual(code, 0)
    XCTAssertEqual(output.standardOutput.joined(separator: "\n"), Command.markdownTable)
  }

  func testOptionsOfOtherCommandsAreSuggestedOnlyFromTheCommandsOwn() {
    let rollout = Command.named("rollout")!
    XCTAssertThrowsError(try Arguments(["--percnt", "5"], command: rollout)) {
      XCTAssertEqual(
        "\($0)",
        "\(ReleaseError.usage("--percnt: unknown option for 'release rollout' (did you mean --percent?); see 'release rollout --help'"))"
      )
    }
    XCTAssertThrowsError(try Arguments(["--shard", "1/2"], command: Command.named("customer")!)) {
      XCTAssertEqual("\($0)", "\(ReleaseError.usage("--shard: only 'release all' builds a shard"))")
    }
  }

  /// `rollout`, `pause`, `rollback` and `ota status` take the model store and its S3 settings
  /// from release.config.json as a release does, named by their keys; a flag overrides each.
  func testTheOverTheAirCommandsDefaultFromTheConfiguration() throws {
    let root = FileManager.default.temporaryDirectory.appendingPathComponent("config-\(UUID().uuidString)")
    try FileManager.default.createDirectory(at: root, withIntermediateDirectories: true)
    defer { try? FileManager.default.removeItem(at: root) }
    try Data(
      #"{"models": "s3://models/store", "publish": {"s3Endpoint": "http://127.0.0.1:5000", "s3Region": "auto"}}"#
        .utf8
    ).write(to: root.appendingPathComponent("release.config.json"))
    let invocation = CommandInvocation(
      arguments: [], services: services(root: root), reporter: DiscardingReporter())
    let cases: [(RolloutVerb, [String])] = [
      (.rollout, ["acme", "flow", "3", "--percent", "5"]), (.pause, ["acme", "flow"]),
      (.rollback, ["acme", "flow", "3"]),
    ]
    for (verb, arguments) in cases {
      let name = verb.rawValue
      let parsed = try Arguments(arguments, command: Command.named(name)!)
      let inputs = try RolloutOptions(parsed, invocation, verb: verb).inputs
      XCTAssertEqual(inputs.modelsPath, "s3://models/store", name)
      XCTAssertEqual(inputs.s3Endpoint, "http://127.0.0.1:5000", name)
      XCTAssertEqual(inputs.s3Region, "auto", name)
      XCTAssertEqual(inputs.origins.models, "release.config.json: models:", name)
      XCTAssertEqual(inputs.origins.s3Endpoint, "release.config.json: publish.s3Endpoint:", name)
    }
    let status = try XCTUnwrap(Command.named("ota")?.subcommands.first { $0.name == "status" })
    let flagged = try OTAStatusOptions(
      Arguments(["acme", "--models", "models", "--s3-region", "eu-west-1"], command: status), invocation)
    XCTAssertEqual(flagged.customer, "acme")
    XCTAssertEqual(flagged.inputs.modelsPath, "models")
    XCTAssertEqual(flagged.inputs.origins.models, "--models")
    XCTAssertEqual(flagged.inputs.s3Region, "eu-west-1")
    XCTAssertEqual(flagged.inputs.s3Endpoint, "http://127.0.0.1:5000")
  }

  func testOTAPublishReadsItsOptionsOnce() throws {
    let publish = try XCTUnwrap(Command.named("ota")?.subcommands.first { $0.name == "publish" })
    // A public URL needs a trusted key.
    let root = try TemporaryDirectory()
    try SigningKey.generate().publicKey.pemEncoded.write(
      to: root.url.appendingPathComponent("ota.pub"), atomically: true, encoding: .utf8)
    try #"{"signing": {"trustedKeys": ["ota.pub"]}, "publish": {"manifestExpiry": "36h"}}"#.write(
      to: root.url.appendingPathComponent("release.config.json"), atomically: true, encoding: .utf8)
    let invocation = CommandInvocation(
      arguments: [], services: services(root: root.url), reporter: DiscardingReporter())
    let options = try OTAPublishOptions(
      Arguments(
        ["--publish", "dir:out", "--public-url", "https://sdk.example.com", "--dry-run", "--refresh"],
        command: publish),
      invocation)
    XCTAssertEqual(options.release.publishing.destinations.count, 1)
    XCTAssertEqual(options.release.publishing.publicURL, "https://sdk.example.com")
    XCTAssertTrue(options.release.dryRun)
    XCTAssertTrue(options.release.channel.refresh)
    XCTAssertTrue(options.release.channel.legacyManifests)
    XCTAssertEqual(options.release.channel.manifestExpiry, 36 * 3600)
    let flagged = try OTAPublishOptions(
      Arguments(
        ["--publish", "dir:out", "--public-url", "https://sdk.example.com", "--expires", "2d"],
        command: publish),
      invocation)
    XCTAssertEqual(flagged.release.channel.manifestExpiry, 2 * 86_400)
    XCTAssertThrowsError(
      try OTAPublishOptions(
        Arguments(["--publish", "dir:out", "--expires", "30m"], command: publish), invocation)
    ) { error in
      XCTAssertEqual(
        (error as? ReleaseError)?.lines,
        [#"--expires "30m": expected a duration in days or hours such as 7d or 36h (at most 30d)"#])
    }
    XCTAssertThrowsError(try Arguments(["--tag"], command: publish))
  }

  /// What help lists under ARGUMENTS is what the parser lets through: none for a command that
  /// refuses every one, as many as the arity names for one that counts them.
  func testTheArgumentsHelpListsAgreeWithTheArity() {
    for command in commands {
      let listed = command.positionals.count
      switch command.arity {
      case .none: XCTAssertEqual(listed, 0, command.path)
      case .exactly(let count, _), .atMost(let count, _): XCTAssertEqual(listed, count, command.path)
      case .oneOf: XCTAssertEqual(listed, 1, command.path)
      case .oneOrMore: XCTAssertGreaterThan(listed, 0, command.path)
      case .passthrough: XCTFail("\(command.path): only help and version take their words unparsed")
      }
    }
  }

  /// `help` and `version` are entries of the table: found by their names and aliases, listed
  /// in the overview (help) or nowhere (version), never in the README's table.
  func testHelpAndVersionAreEntriesOfTheTable() throws {
    XCTAssertEqual(Command.invoked(as: "--help")?.name, "help")
    XCTAssertEqual(Command.invoked(as: "-h")?.name, "help")
    XCTAssertEqual(Command.invoked(as: "--version")?.name, "version")
    XCTAssertNil(Command.named("--help"), "an alias is not a name help looks up")
    XCTAssertFalse(Command.runnable.contains { ["help", "version"].contains($0.name) })
    let overview = Command.overview.split(separator: "\n").map(String.init)
    let commands = try XCTUnwrap(overview.lastIndex { $0.hasPrefix("  ") })
    XCTAssertTrue(overview[commands].hasPrefix("  help [command]  "), overview[commands])
    XCTAssertFalse(overview.contains { $0.hasPrefix("  version") })
    XCTAssertFalse(Command.markdownTable.contains("`release help"))
  }

  /// An option's name is one option: every command that takes it reads the same kind of value.
  /// `--expires` is the one name with two: `share`'s (any unit, at most 7 days, checked by the
  /// parser) and the signed channel's (days or hours, at most 30 days, checked with its
  /// release.config.json key).
  func testAnOptionNameIsOneOption() {
    var kinds: [String: Set<ValueKind>] = [:]
    for option in commands.flatMap(\.options) { kinds[option.name, default: []].insert(option.kind) }
    XCTAssertEqual(kinds.filter { $0.value.count > 1 }.keys.sorted(), ["--expires"])
    XCTAssertEqual(kinds["--publish"], [.text])
    XCTAssertEqual(kinds["--json"], [.flag])
  }

  /// Every release.config.json key an option names is one the reader takes, and the reader's
  /// keys are the schema's.
  func testTheConfigurationSchemaHoldsEveryKeyTheTableNames() throws {
    let named = Set(commands.flatMap(\.options).compactMap(\.configurationKey))
    XCTAssertTrue(named.isSubset(of: ConfigurationKey.allCases))
    XCTAssertEqual(ConfigurationKey.members(of: []), ["publish", "models", "signing", "rollouts"])
    XCTAssertEqual(
      ConfigurationKey.rolloutOverrides, ["margin", "revenueMargin", "minimumConversions", "schedule"])
    let cases: [(String, String)] = [
      (
        #"{"publish": {"destination": []}}"#,
        "unknown key (did you mean \"destinations\"?); expected one of: \(ConfigurationKey.members(of: ["publish"]).joined(separator: ", "))"
      ),
      (#"{"signing": {"trustedKey": []}}"#, "unknown key (did you mean \"trustedKeys\"?)"),
      (
        #"{"model": "m"}"#,
        "unknown key (did you mean \"models\"?); expected one of: publish, models, signing, rollouts"
      ),
      (#"{"rollouts": {"margn": 0.1}}"#, "unknown key (did you mean \"margin\"?)"),
      (#"{"rollouts": {"customers": {"acme": {"customers": {}}}}}"#, "unknown key"),
    ]
    for (text, expected) in cases {
      XCTAssertThrowsError(try ReleaseConfiguration.parse(Data(text.utf8), displayPath: "c.json"), text) {
        XCTAssertTrue("\($0)".contains(expected), "\(text): \($0)")
      }
    }
    XCTAssertNoThrow(
      try ReleaseConfiguration.parse(
        Data(
          #"{"publish": {"packageURL": "https://g.example.com/{id}.git", "legacyManifests": false}}"#.utf8),
        displayPath: "c.json"))
  }
}
