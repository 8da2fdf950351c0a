import Foundation
import ReleaseSystem
import XCTest

@testable import ReleaseKit

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
    for arguments in [
      ["--help"], ["help"], ["all", "--help"], ["customer", "-h"], ["verify", "--help"], ["bump", "--help"],
    ] {
      let (code, output) = run(arguments)
      XCTAssertEqual(code, 0, "\(arguments)")
      XCTAssertTrue(output.standardOutput.joined().contains("USAGE: release"), "\(arguments)")
    }
    let (_, overview) = run(["--help"])
    for command in ["all", "customer", "verify", "bump"] {
      XCTAssertTrue(overview.standardOutput.joined().contains("  \(command)"), command)
    }
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
    ]
    for (arguments, expected) in cases {
      let (code, output) = run(arguments)
      XCTAssertEqual(code, 2, "\(arguments)")
      XCTAssertEqual(output.standardError.count, 1, "\(arguments): \(output.standardError)")
      XCTAssertTrue(
        output.standardError.first?.contains(expected) == true, "\(arguments): \(output.standardError)")
    }
  }

  func testVersion() {
    let (code, output) = run(["--version"])
    XCTAssertEqual(code, 0)
    XCTAssertEqual(output.standardOutput, ["release \(ReleaseTool.version)"])
  }
}
