import Foundation

/// Help made from the commands' descriptions: `release --help`, `release <command> --help`
/// and the README's command table (`release help --markdown`).
extension Command {
  /// Help lines are wrapped to this many columns.
  static let helpWidth = 96
  /// Where an option's or argument's help starts.
  private static let helpColumn = 22

  /// `release <path> --help`.
  var help: String {
    var sections = ["release \(path) — \(title ?? summary)"]
    let usageLines = usage.isEmpty ? ["\(parent.map { "\($0) " } ?? "")\(synopsis) [options]"] : usage
    sections.append(
      usageLines.enumerated().map { ($0.offset == 0 ? "USAGE: " : "       ") + "release \($0.element)" }
        .joined(separator: "\n"))
    if !discussion.isEmpty { sections.append(Self.wrap(discussion, indent: 0)) }
    if !positionals.isEmpty {
      sections.append(
        (["ARGUMENTS:"] + positionals.map { Self.entry($0.label, $0.help) }).joined(separator: "\n"))
    }
    if !subcommands.isEmpty {
      sections.append(
        (["SUBCOMMANDS:"] + subcommands.map { Self.entry($0.name, $0.title ?? $0.summary) }).joined(
          separator: "\n"))
      sections.append("Run 'release \(path) <subcommand> --help' for its options.")
    }
    for group in groups where !group.options.isEmpty {
      sections.append(
        (["\(group.title):"] + group.options.map { Self.entry($0.label, $0.fullHelp) }).joined(
          separator: "\n"))
    }
    if subcommands.isEmpty {
      sections.append(Self.entry("-h, --help", "show this help"))
    }
    if !footer.isEmpty { sections.append(Self.wrap(footer, indent: 0)) }
    return sections.joined(separator: "\n\n")
  }

  /// `release --help`: every command and subcommand with its synopsis and summary.
  static var overview: String {
    let rows = all.filter { $0.listing != .hidden }.flatMap { command in
      command.subcommands.isEmpty
        ? [(command.synopsis, command.summary)] : command.subcommands.map { ($0.synopsis, $0.summary) }
    }
    // As wide as the longest synopsis: a synopsis is never cut.
    let width = rows.map(\.0.count).max() ?? 0
    let commands = rows.map { synopsis, summary in
      "  " + synopsis.padding(toLength: width, withPad: " ", startingAt: 0) + "  " + summary
    }
    return """
      release — build and ship a custom copy of the SDK to every customer

      USAGE: release <command> [options]

      COMMANDS:
      \(commands.joined(separator: "\n"))

      Run 'release <command> --help' for a command's options.
      Exit status: 0 success, 1 a build, test or publish failed, 2 bad input or arguments.
      """
  }

  /// The README's command table, between `<!-- commands -->` and `<!-- /commands -->`:
  /// every command with its options, a shared group by its name, then the shared groups.
  static var markdownTable: String {
    func cell(_ text: String) -> String { text.replacingOccurrences(of: "|", with: "\\|") }
    func names(_ options: [Option]) -> String { options.map { "`\(cell($0.name))`" }.joined(separator: " ") }
    let commands = runnable.map { command in
      let options = command.groups.map { group in
        guard let name = group.name else { return names(group.options) }
        return group.excluded.isEmpty ? "*\(name)*" : "*\(name)* except \(names(group.excluded))"
      }.joined(separator: ", ")
      return "| `release \(cell(command.synopsis))` | \(cell(command.summary)) | \(options) |"
    }
    let groups = OptionGroup.shared.map { "| *\($0.name ?? $0.title)* | \(names($0.options)) |" }
    // Every option once, in the order the commands first name it: its help, default and the
    // release.config.json key it defaults from. One name with another value (bump's
    // `--since <ref>`, evaluate's `--since <date>`) is another row.
    var seen: Set<String> = []
    let options = runnable.flatMap(\.options)
      .map { option in (option, option.valueName.map { "\(option.name) <\($0)>" } ?? option.name) }
      .filter { seen.insert($0.1).inserted }
      .map { option, label in
        let help = option.statedHelp.split(whereSeparator: \.isNewline).joined(separator: " ")
        let defaults = [
          option.defaultValue.map { "default `\(cell($0))`" },
          option.configurationKey.map { "config `\($0.rawValue)`" },
        ]
        .compactMap { $0 }.joined(separator: "; ")
        return "| `\(cell(label))` | \(cell(help)) | \(defaults) |"
      }
    return
      (["| Command | What it does | Options |", "| --- | --- | --- |"] + commands + [
        "", "| Option group | Options |", "| --- | --- |",
      ] + groups + ["", "| Option | Meaning | Default |", "| --- | --- | --- |"] + options + [
        "", "`release <command> --help` describes each command's options in full.",
      ]).joined(separator: "\n")
  }

  /// Every command and subcommand the README lists, in the overview's order.
  static var runnable: [Command] {
    all.filter { $0.listing == .everywhere }.flatMap { $0.subcommands.isEmpty ? [$0] : $0.subcommands }
  }

  /// One option or argument of help: its label, then its help wrapped beside it, or below it
  /// when the label is too wide.
  private static func entry(_ label: String, _ text: String) -> String {
    let head = "  " + label
    let body = wrap(text, indent: helpColumn)
    if head.count <= helpColumn - 2 {
      return head.padding(toLength: helpColumn, withPad: " ", startingAt: 0)
        + body.dropFirst(helpColumn)
    }
    return head + "\n" + body
  }

  /// `text` wrapped at `helpWidth` columns, every line indented by `indent` spaces; a blank
  /// line in `text` stays a paragraph break.
  static func wrap(_ text: String, indent: Int) -> String {
    let margin = String(repeating: " ", count: indent)
    return text.components(separatedBy: "\n\n").map { paragraph in
      var lines: [String] = []
      var line = ""
      for word in paragraph.split(whereSeparator: { $0 == " " || $0 == "\n" }) {
        if !line.isEmpty, indent + line.count + 1 + word.count > helpWidth {
          lines.append(margin + line)
          line = ""
        }
        line += (line.isEmpty ? "" : " ") + word
      }
      if !line.isEmpty { lines.append(margin + line) }
      return lines.joined(separator: "\n")
    }.joined(separator: "\n\n")
  }
}
