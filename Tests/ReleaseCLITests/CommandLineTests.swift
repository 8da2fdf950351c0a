import Foundation
import ReleaseSystem
import ReleaseTestSupport
import XCTest

@testable import ReleaseCLI
@testable import ReleaseCore

/// Argument handling: help everywhere, exit 2 with a one-line error naming the argument for
/// anything wrong, and no process started or file written on the way.
final class CommandLineTests: XCTestCase {
  func run(_ arguments: [String]) -> (code: Int32, output: CapturedOutput) {
    let output = CapturedOutput()
    let services = Services(
      processRunner: ScriptedProcessRunner(), clock: ManualClock(),
      root: URL(fileURLWithPath: "/nonexistent-release-root"), environment: ["CI": "true"], output: output)
    return (CommandLineInterface.main(arguments: arguments, services: services), output)
  }

  func testHelpForEveryCommand() {
    // Each asks for its own text: the line naming it is the first of the help printed.
    let cases: [([String], String)] = [
      (["--help"], "release — "), (["help"], "release — "), (["all", "--help"], "release all — "),
      (["customer", "-h"], "release customer — "), (["verify", "--help"], "release verify — "),
      (["bump", "--help"], "release bump — "), (["rollout", "--help"], "release rollout — "),
      (["pause", "--help"], "release pause — "), (["rollback", "-h"], "release rollback — "),
      (["ota", "--help"], "release ota — "), (["ota", "status", "--help"], "release ota status — "),
      (["ota", "publish", "--help"], "release ota publish — "),
      (["ota", "publish", "--publish", "dir:x", "-h"], "release ota publish — "),
      (["help", "ota", "publish"], "release ota publish — "), (["help", "rollout"], "release rollout — "),
      (["keys", "--help"], "release keys — "), (["keys", "generate", "-h"], "release keys generate — "),
      (["help", "keys", "allowed-signers"], "release keys allowed-signers — "),
      (["keys", "check", "--help"], "release keys check — "), (["share", "--help"], "release share — "),
    ]
    for (arguments, title) in cases {
      let (code, output) = run(arguments)
      XCTAssertEqual(code, 0, "\(arguments)")
      let lines = output.standardOutput.joined(separator: "\n").split(separator: "\n").map(String.init)
      XCTAssertTrue(lines.first?.hasPrefix(title) == true, "\(arguments): \(lines.first ?? "")")
      XCTAssertTrue(lines.contains { $0.hasPrefix("USAGE: release") }, "\(arguments)")
      // An option line holds one option: two run together means a missing newline.
      for line in lines where line.trimmingCharacters(in: .whitespaces).hasPrefix("--") {
        let text = line.trimmingCharacters(in: .whitespaces).drop { !$0.isWhitespace }
        XCTAssertNil(text.firstMatch(of: /\s{2,}--[a-z]/), "\(arguments): \(line)")
      }
    }
    let (_, overview) = run(["--help"])
    let text = overview.standardOutput.joined(separator: "\n")
    for synopsis in [
      "all", "customer <id>...", "verify <path>...", "bump <part>", "rollout <id> <flow> <version>",
      "pause <id> <flow>", "rollback <id> <flow> <version>", "ota status [<id>]", "ota publish",
    ] {
      XCTAssertTrue(text.contains("\n  \(synopsis)  "), synopsis)
    }
    // What a command's help promises, the command takes.
    XCTAssertFalse(run(["ota", "status", "--help"]).output.standardOutput.joined().contains("--dry-run"))
    XCTAssertTrue(run(["all", "--help"]).output.standardOutput.joined().contains("--rollouts <file>"))
  }

  func testBadArgumentsExitTwoWithOneLineNamingTheArgument() {
    let cases: [([String], String)] = [
      (["nonsense"], "'nonsense': unknown command"),
      (["al"], "(did you mean 'all'?)"),
      (["all", "--jbos", "2"], "--jbos: unknown option for 'release all' (did you mean --jobs?)"),
      (["all", "--jobs", "0"], "--jobs: expected a whole number from 1 to 64, found \"0\""),
      (["all", "--jobs"], "--jobs: expected a value after it"),
      (["all", "acme"], "'acme': 'release all' takes no customer names"),
      (["customer"], "customer: expected at least one customer id or app_id, found none"),
      (["all", "--push"], "--push: pushes tags, so it needs --tag or --publish"),
      (["all", "--publish", "s3://B"], "--publish s3://B: expected s3://<bucket>[/<prefix>]"),
      (["all", "--publish", "git:/srv/releases.git"], "expected a location with {id}"),
      (["all", "--dry-run=yes"], "--dry-run: takes no value"),
      (["bump", "huge"], "bump: expected one of major, minor, patch; found \"huge\""),
      (["verify"], "verify: expected a zip, a release directory"),
      (["ota"], "ota: expected a subcommand, status, publish, evaluate, verify or root; found nothing"),
      (["ota", "status", "--dry-run"], "--dry-run: unknown option for 'release ota status'"),
      (["ota", "publish", "acme"], "'acme': 'release ota publish' takes no arguments"),
    ]
    // `ota publish` builds, tags and pushes nothing: a release's options for that are refused.
    let publishOnly =
      ", which publishes the over-the-air manifests and their models only (no build, no tags, no push); see 'release ota publish --help'"
    for option in [
      ["--tag"], ["--push"], ["--force"], ["--jobs", "2"], ["--dist", "out"], ["--skip-tests"],
    ] {
      let (code, output) = run(["ota", "publish", "--publish", "dir:published"] + option)
      XCTAssertEqual(code, 2, "\(option)")
      XCTAssertEqual(
        output.standardError, ["error: \(option[0]): not an option of 'release ota publish'\(publishOnly)"])
    }
    for (arguments, expected) in cases {
      let (code, output) = run(arguments)
      XCTAssertEqual(code, 2, "\(arguments)")
      XCTAssertEqual(output.standardError.count, 1, "\(arguments): \(output.standardError)")
      XCTAssertTrue(
        output.standardError.first?.contains(expected) == true, "\(arguments): \(output.standardError)")
    }
  }

  func testVersion() {
    for arguments in [["--version"], ["version"], ["version", "--help"]] {
      let (code, output) = run(arguments)
      XCTAssertEqual(code, 0, "\(arguments)")
      XCTAssertEqual(output.standardOutput, ["release \(ReleaseTool.version)"], "\(arguments)")
    }
  }

  /// `help` reads its words itself: a command's help, the overview for anything else, and
  /// nothing on the command line runs; no command at all prints the overview and exits 2.
  func testHelpTakesItsWordsAsTheyAre() {
    let overview = run(["--help"]).output.standardOutput
    for arguments in [
      ["help", "nonsense"], ["help", "-h"], ["-h", "--jobs", "0"], ["help", "--markdown", "x"],
    ] {
      let (code, output) = run(arguments)
      XCTAssertEqual(code, 0, "\(arguments)")
      XCTAssertEqual(output.standardOutput, overview, "\(arguments)")
    }
    XCTAssertEqual(
      run(["help", "all", "--help"]).output.standardOutput, run(["all", "--help"]).output.standardOutput)
    XCTAssertEqual(
      run(["help", "help"]).output.standardOutput.first, "release help — show help for a command")
    let (code, output) = run([])
    XCTAssertEqual(code, 2)
    XCTAssertEqual(output.standardOutput, overview)
  }

  /// Each command's count of arguments, checked by the parser from its declared arity, with
  /// the line each command has always printed.
  func testAWrongCountOfArgumentsExitsTwoWithTheCommandsLine() {
    let cases: [([String], String)] = [
      (["all", "acme"], "'acme': 'release all' takes no customer names; use 'release customer acme'"),
      (["plan", "acme"], "'acme': 'release plan' takes no customer names; use 'release customer acme'"),
      (["merge"], "merge: expected the dist/ directories of the shards, found none"),
      (
        ["verify"],
        "verify: expected a zip, a release directory, a dist directory or a release.json; found none"
      ),
      (["bump"], "bump: expected one of major, minor, patch; found nothing"),
      (["bump", "major", "minor"], #"bump: expected one of major, minor, patch; found "major minor""#),
      (
        ["rollout", "acme", "flow"], #"rollout: expected <customer> <flow> <modelVersion>, found "acme flow""#
      ),
      (["pause", "acme"], #"pause: expected <customer> <flow>, found "acme""#),
      (["rollback"], "rollback: expected <customer> <flow> <modelVersion>, found nothing"),
      (["ota", "status", "a", "b"], #"ota status: expected at most one customer, found "a b""#),
      (
        ["ota", "evaluate", "a", "b", "c"],
        #"ota evaluate: expected at most <customer> <flow>, found "a b c""#
      ),
      (
        ["ota", "verify"],
        "ota verify: found no destination; expected dir:<path>, s3://<bucket>[/<prefix>] or https://<host>[/<path>]"
      ),
      (["ota", "root"], "ota root: expected init, rotate or show, found nothing"),
      (["ota", "root", "bogus"], #"ota root: expected init, rotate or show, found "bogus""#),
      (["keys", "generate", "a", "b"], #"keys generate: expected one directory, found "a b""#),
      (["keys", "check", "x"], "'x': 'release keys check' takes no arguments"),
      (["keys", "allowed-signers", "x"], "'x': 'release keys allowed-signers' takes no arguments"),
      (["share"], "share: expected one customer id, found nothing"),
      (["plan"], "plan: --shards <n> is required (how many machines share the work)"),
      (
        ["rollout", "a", "b", "3"],
        "rollout: --percent <0-100> is required (the share of devices offered the model)"
      ),
      (
        ["ota", "evaluate"],
        "ota evaluate: --outcomes <file|url> is required (the outcomes export to judge from)"
      ),
      (["ota", "root", "init", "--threshold", "0"], "--threshold 0: expected a whole number, 1 or more"),
      (
        ["share", "acme", "--expires", "8d"],
        #"--expires: expected a duration such as 36h or 7d (at most 7d), found "8d""#
      ),
    ]
    for (arguments, expected) in cases {
      let (code, output) = run(arguments)
      XCTAssertEqual(code, 2, "\(arguments)")
      XCTAssertEqual(output.standardError, ["error: \(expected)"], "\(arguments)")
      XCTAssertEqual(output.standardOutput, [], "\(arguments)")
    }
  }
}
