import XCTest

@testable import ReleaseCLI
@testable import ReleaseCore

/// The parser on its own: what a command's description declares (arity, value kinds,
/// required options) is checked before the command runs, and values read back typed.
final class ArgumentParserTests: XCTestCase {
  /// A command made for these tests: one option of each kind.
  static let jobs = Declare.integer("--jobs", 1...64, help: "jobs")
  static let size = Declare.size("--size", help: "size", default: "1MB")
  static let timeout = Declare.duration("--timeout", help: "timeout", default: "30m")
  static let threshold = Declare.count("--threshold", help: "threshold", default: "1")
  static let name = Declare.text("--name", "name", help: "name", required: .init(reason: "who it is"))
  static let keys = Declare.repeated("--key", "file", kind: .path, help: "keys")
  static let verbose = Flag("--verbose", help: "verbose")

  func command(_ arity: Arity) -> Command {
    Command(
      name: "try", synopsis: "try", summary: "a command for the parser's tests", arity: arity,
      groups: [
        OptionGroup(
          "OPTIONS",
          [Self.jobs, Self.size, Self.timeout, Self.threshold, Self.name, Self.keys, Self.verbose])
      ])
  }

  func parse(_ arguments: [String], _ arity: Arity = .none(.arguments)) throws -> Arguments {
    try Arguments(arguments, command: command(arity))
  }

  func assertRefused(
    _ arguments: [String], _ expected: String, arity: Arity = .none(.arguments), line: UInt = #line
  ) {
    XCTAssertThrowsError(try parse(arguments, arity), line: line) { error in
      XCTAssertEqual((error as? ReleaseError)?.lines, [expected], line: line)
      XCTAssertEqual((error as? ReleaseError)?.exitCode, 2, line: line)
    }
  }

  func testValuesReadBackTypedByTheirOption() throws {
    let parsed = try parse([
      "--name", "n", "--jobs", "3", "--jobs=8", "--size", "2MB", "--timeout", "20m", "--threshold", "2",
      "--key", "a.pub", "--key=b.pub", "--verbose",
    ])
    let jobs: Int? = parsed[Self.jobs]
    XCTAssertEqual(jobs, 8, "the last value given counts")
    XCTAssertEqual(parsed[Self.size], 2 << 20)
    XCTAssertEqual(parsed[Self.timeout], 1200)
    XCTAssertEqual(parsed[Self.threshold], 2)
    XCTAssertEqual(parsed[Self.name], "n")
    XCTAssertEqual(parsed[Self.keys], ["a.pub", "b.pub"])
    XCTAssertTrue(parsed[Self.verbose])
    let bare = try parse(["--name", "n"])
    XCTAssertNil(bare[Self.jobs])
    XCTAssertEqual(bare[Self.keys], [])
    XCTAssertFalse(bare[Self.verbose])
    XCTAssertFalse(bare.given(Self.jobs))
    XCTAssertTrue(bare.given(Self.name))
  }

  func testEachKindRefusesAValueWithOneLineNamingTheOption() {
    let cases: [([String], String)] = [
      (["--jobs", "0"], #"--jobs: expected a whole number from 1 to 64, found "0""#),
      (["--jobs", "x"], #"--jobs: expected a whole number from 1 to 64, found "x""#),
      (
        ["--size", "12XB"],
        #"--size: expected a size in bytes, or with KB, MB or GB (e.g. 512MB), found "12XB""#
      ),
      (["--size", "0"], #"--size: expected a size in bytes, or with KB, MB or GB (e.g. 512MB), found "0""#),
      (
        ["--timeout", "25h"],
        #"--timeout: expected a duration such as 90s, 20m or 1h (at most 24h), found "25h""#
      ),
      (
        ["--timeout", "1.5h"],
        #"--timeout: expected a duration such as 90s, 20m or 1h (at most 24h), found "1.5h""#
      ),
      (["--threshold", "0"], "--threshold 0: expected a whole number, 1 or more"),
      (["--verbose=yes"], #"--verbose: takes no value (found "--verbose=yes")"#),
      (["--jobs"], "--jobs: expected a value after it, found the end of the command line"),
      (
        ["--job", "2"],
        "--job: unknown option for 'release try' (did you mean --jobs?); see 'release try --help'"
      ),
    ]
    for (arguments, expected) in cases {
      assertRefused(["--name", "n"] + arguments, expected)
    }
    // A required option missing; a value's refusal comes first.
    assertRefused([], "try: --name <name> is required (who it is)")
    assertRefused(["--jobs", "0"], #"--jobs: expected a whole number from 1 to 64, found "0""#)
  }

  func testEachArityRefusesAnotherCountWithItsLine() throws {
    let cases: [(Arity, [String], String)] = [
      (.none(.arguments), ["acme"], "'acme': 'release try' takes no arguments"),
      (
        .none(.customerNames), ["acme"],
        "'acme': 'release try' takes no customer names; use 'release customer acme'"
      ),
      (.none(.argumentsBecause("it does all")), ["x"], "'x': 'release try' takes no arguments; it does all"),
      (.exactly(2, expected: "<a> <b>"), [], "try: expected <a> <b>, found nothing"),
      (.exactly(2, expected: "<a> <b>"), ["a", "b", "c"], #"try: expected <a> <b>, found "a b c""#),
      (.oneOf(["up", "down"]), ["sideways"], #"try: expected one of up, down; found "sideways""#),
      (.oneOf(["up", "down"]), [], "try: expected one of up, down; found nothing"),
      (
        .atMost(1, expected: "one customer"), ["a", "b"], #"try: expected at most one customer, found "a b""#
      ),
      (.oneOrMore(missing: "expected a path, found none"), [], "try: expected a path, found none"),
    ]
    for (arity, positionals, expected) in cases {
      assertRefused(positionals + ["--name", "n"], expected, arity: arity)
    }
    // The count is checked before any value: the line names the first problem of the line.
    assertRefused(
      ["--jobs", "0"], "try: expected a path, found none",
      arity: .oneOrMore(missing: "expected a path, found none"))
    // What fits is kept in order; `--` ends the options.
    XCTAssertEqual(
      try parse(["a", "--name", "n", "--", "--b"], .exactly(2, expected: "")).positionals, ["a", "--b"])
    XCTAssertEqual(try parse(["down", "--name", "n"], .oneOf(["up", "down"])).positionals, ["down"])
    XCTAssertEqual(try parse(["--name", "n"], .atMost(1, expected: "")).positionals, [])
    // A long argument is cut in the line.
    let long = String(repeating: "x", count: 100)
    assertRefused([long, "--name", "n"], "'\(long.prefix(60))': 'release try' takes no arguments")
  }

  func testPassthroughKeepsEverythingUnparsed() throws {
    let parsed = try parse(["--markdown", "--jobs", "0", "x"], .passthrough)
    XCTAssertEqual(parsed.positionals, ["--markdown", "--jobs", "0", "x"])
    XCTAssertNil(parsed[Self.jobs])
  }

  /// `--publish` and `--json` are one option each: a command documenting them its own way
  /// reads the same value back.
  func testADocumentedVariantIsTheSameOption() throws {
    let publish = try XCTUnwrap(Command.named("ota")?.subcommands.first { $0.name == "publish" })
    let parsed = try Arguments(["--publish", "dir:a", "--publish", "dir:b", "--json"], command: publish)
    XCTAssertEqual(parsed[Options.publish], ["dir:a", "dir:b"])
    XCTAssertEqual(parsed[Options.otaPublish], ["dir:a", "dir:b"])
    XCTAssertTrue(parsed[Options.json])
    XCTAssertEqual(Options.otaPublish.name, Options.publish.name)
    XCTAssertNotEqual(Options.otaPublish.option.help, Options.publish.option.help)
    for variant in [Options.shareJSON, Options.verifyJSON, Options.evaluateJSON] {
      XCTAssertEqual(variant.name, Options.json.name)
      XCTAssertEqual(variant.option.kind, .flag)
    }
  }
}
