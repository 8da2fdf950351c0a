import XCTest

@testable import ReleaseCLI

/// `--help` made from a description on its own: sections in order, each option's label with
/// its help, default and config key, wrapped beside a short label and below a long one.
final class HelpTests: XCTestCase {
  func testACommandsHelpIsMadeFromItsDescription() {
    let command = Command(
      name: "try", synopsis: "try <id>", summary: "try one thing", discussion: "Tries it.",
      positionals: [Positional(label: "<id>", help: "what to try")], arity: .exactly(1, expected: "one id"),
      groups: [
        OptionGroup(
          "OPTIONS",
          [
            Declare.integer(
              "--jobs", 1...4, help: "how many at once", required: .init(reason: "needed")),
            Flag("--dry-run", help: "write nothing"),
            Declare.text(
              "--a-long-option-name", "value", help: "below",
              configuration: .s3Region),
          ])
      ],
      footer: "Exit status: 0 tried.")
    XCTAssertEqual(
      command.help,
      """
      release try — try one thing

      USAGE: release try <id> [options]

      Tries it.

      ARGUMENTS:
        <id>                what to try

      OPTIONS:
        --jobs <n>          how many at once (required)
        --dry-run           write nothing
        --a-long-option-name <value>
                            below (default: release.config.json's publish.s3Region)

        -h, --help          show this help

      Exit status: 0 tried.
      """)
  }

  func testLongHelpWrapsAtTheHelpWidth() {
    let words = Array(repeating: "word", count: 40).joined(separator: " ")
    let lines = Command.wrap(words, indent: 22).split(separator: "\n")
    XCTAssertGreaterThan(lines.count, 1)
    for line in lines {
      XCTAssertLessThanOrEqual(line.count, Command.helpWidth)
      XCTAssertTrue(line.hasPrefix(String(repeating: " ", count: 22) + "word"))
    }
  }
}
