import ReleaseCore
import ReleaseSettings

/// What an option's value is: how the parser checks it (every refusal one line naming the
/// option, before the command runs) and what it reads back as.
enum ValueKind: Sendable, Hashable {
  /// No value: given or not.
  case flag
  /// Any text: a name, a URL, a destination (checked where it is resolved).
  case text
  /// A file or directory, relative to the project root.
  case path
  /// A whole number in the range.
  case integer(ClosedRange<Int>)
  /// A whole number, 1 or more (a threshold).
  case count
  /// Bytes, or a number with KB, MB or GB (powers of 1024), e.g. `512MB`.
  case size
  /// Seconds, or a number with s, m, h or d, up to a maximum.
  case duration(DurationLimit)

  /// The longest a duration option takes, and how messages show it.
  struct DurationLimit: Sendable, Hashable {
    var maximum: Double = 86_400
    var maximumText = "24h"
    var examples = "90s, 20m or 1h"
  }

  /// `text` as this kind's value (`String`, `Int`, `Int64` or seconds as `Double`); nil: refused.
  func value(of text: String) -> (any Sendable)? {
    switch self {
    case .flag: return nil
    case .text, .path: return text
    case .integer(let range): return Int(text).flatMap { range.contains($0) ? $0 : nil }
    case .count: return Int(text).flatMap { $0 >= 1 ? $0 : nil }
    case .size: return Self.bytes(of: text)
    case .duration(let limit):
      let units: [(String, Double)] = [("d", 86_400), ("h", 3600), ("m", 60), ("s", 1), ("", 1)]
      return DurationText.seconds(of: text, units: units, maximum: limit.maximum)
    }
  }

  /// The one-line refusal of `text` given to `name`.
  func refusal(_ name: String, _ text: String) -> String {
    switch self {
    case .flag, .text, .path: return "\(name): unexpected value \"\(text.prefix(40))\""
    case .integer(let range):
      return
        "\(name): expected a whole number from \(range.lowerBound) to \(range.upperBound), found \"\(text)\""
    case .count: return "\(name) \(text): expected a whole number, 1 or more"
    case .size:
      return
        "\(name): expected a size in bytes, or with KB, MB or GB (e.g. 512MB), found \"\(text.prefix(40))\""
    case .duration(let limit):
      return
        "\(name): expected a duration such as \(limit.examples) (at most \(limit.maximumText)), found \"\(text.prefix(40))\""
    }
  }

  private static func bytes(of text: String) -> Int64? {
    let units: [(String, Int64)] = [("GB", 1 << 30), ("MB", 1 << 20), ("KB", 1 << 10), ("", 1)]
    let upper = text.uppercased()
    guard let (suffix, factor) = units.first(where: { upper.hasSuffix($0.0) }) else { return nil }
    let digits = upper.dropLast(suffix.count)
    guard !digits.isEmpty, digits.allSatisfy({ $0.isASCII && $0.isNumber }), let number = Int64(digits),
      number > 0, number <= Int64.max / factor
    else { return nil }
    return number * factor
  }
}

/// One `--option <value>` or `--flag` as help, the README and the parser see it, whatever
/// its value's type (`Flag`, `ValueOption` and `RepeatedOption` carry that).
struct Option: Sendable, Hashable {
  /// As typed: `--manifest`.
  let name: String
  /// For an option that takes a value: how help names it (`file` prints `<file>`); nil for a flag.
  var valueName: String?
  let kind: ValueKind
  var help: String
  /// The default as help prints it; nil: none worth naming.
  var defaultValue: String?
  /// Given more than once, every value counts (else the last one does).
  let repeatable: Bool
  /// The release.config.json key it defaults from, when the command reads that file.
  var configurationKey: ConfigurationKey?
  /// Set when the command cannot run without it: why it is needed, and how the refusal shows
  /// its value (`0-100`; nil: the value name).
  var requirement: Requirement?

  struct Requirement: Sendable, Hashable {
    let reason: String
    var shownValue: String? = nil
  }

  var takesValue: Bool { valueName != nil }

  /// `--manifest <file>` or `--dry-run`.
  var label: String { valueName.map { "\(name) <\($0)>" } ?? name }

  /// The help, saying when the option is required: what the README's table prints.
  var statedHelp: String { requirement == nil ? help : "\(help) (required)" }

  /// The help with its default and config key: what `--help` prints.
  var fullHelp: String {
    var defaults: [String] = []
    if let configurationKey { defaults.append("release.config.json's \(configurationKey.rawValue)") }
    if let defaultValue { defaults.append(defaultValue) }
    guard !defaults.isEmpty else { return statedHelp }
    return "\(statedHelp) (default: \(defaults.joined(separator: ", else ")))"
  }

  /// `plan: --shards <n> is required (how many machines share the work)`.
  func missing(in path: String) -> String? {
    requirement.map { "\(path): \(name) <\($0.shownValue ?? valueName ?? "")> is required (\($0.reason))" }
  }
}

/// An option as a command reads it back; groups list any of them.
protocol DeclaredOption: Sendable {
  var option: Option { get }
  /// This option with `option`'s documentation.
  func documented(as option: Option) -> Self
}

extension DeclaredOption {
  var name: String { option.name }
  var label: String { option.label }

  /// The same option as another command documents it: its own help, default, config key and
  /// value name in that command's `--help`, the same name and kind of value to the parser
  /// (`--json` prints what that command prints; `--publish` of `ota publish` names where the
  /// over-the-air channel goes).
  func documented(
    help: String, valueName: String? = nil, default defaultValue: String? = nil,
    configuration: ConfigurationKey? = nil
  ) -> Self {
    var copy = option
    copy.help = help
    copy.valueName = valueName ?? option.valueName
    copy.defaultValue = defaultValue
    copy.configurationKey = configuration
    return documented(as: copy)
  }
}

extension Option: DeclaredOption {
  var option: Option { self }
  func documented(as option: Option) -> Option { option }
}

/// `--dry-run`: read back as `Bool`.
struct Flag: DeclaredOption {
  let option: Option

  init(_ name: String, help: String, configuration: ConfigurationKey? = nil) {
    option = Option(
      name: name, valueName: nil, kind: .flag, help: help, repeatable: false, configurationKey: configuration)
  }

  private init(option: Option) { self.option = option }

  func documented(as option: Option) -> Flag { Flag(option: option) }
}

/// `--jobs <n>`: one value (the last given counts), read back as `Value?`, checked by the
/// parser against its kind.
struct ValueOption<Value: Sendable>: DeclaredOption {
  let option: Option

  func documented(as option: Option) -> ValueOption { ValueOption(option: option) }
}

/// `--publish <dest>`, repeatable: every value, in order, read back as `[Value]`.
struct RepeatedOption<Value: Sendable>: DeclaredOption {
  let option: Option

  func documented(as option: Option) -> RepeatedOption { RepeatedOption(option: option) }
}

/// The declarations `Options` is written in.
enum Declare {
  static func text(
    _ name: String, _ valueName: String, help: String, default defaultValue: String? = nil,
    configuration: ConfigurationKey? = nil, required: Option.Requirement? = nil
  ) -> ValueOption<String> {
    ValueOption(
      option: Option(
        name: name, valueName: valueName, kind: .text, help: help, defaultValue: defaultValue,
        repeatable: false,
        configurationKey: configuration, requirement: required))
  }

  static func path(_ name: String, _ valueName: String, help: String, default defaultValue: String? = nil)
    -> ValueOption<String>
  {
    ValueOption(
      option: Option(
        name: name, valueName: valueName, kind: .path, help: help, defaultValue: defaultValue,
        repeatable: false))
  }

  static func integer(
    _ name: String, _ range: ClosedRange<Int>, valueName: String = "n", help: String,
    default defaultValue: String? = nil, required: Option.Requirement? = nil
  ) -> ValueOption<Int> {
    ValueOption(
      option: Option(
        name: name, valueName: valueName, kind: .integer(range), help: help, defaultValue: defaultValue,
        repeatable: false, requirement: required))
  }

  static func count(_ name: String, help: String, default defaultValue: String) -> ValueOption<Int> {
    ValueOption(
      option: Option(
        name: name, valueName: "n", kind: .count, help: help, defaultValue: defaultValue, repeatable: false))
  }

  static func size(_ name: String, help: String, default defaultValue: String) -> ValueOption<Int64> {
    ValueOption(
      option: Option(
        name: name, valueName: "size", kind: .size, help: help, defaultValue: defaultValue, repeatable: false)
    )
  }

  /// Read back in seconds.
  static func duration(
    _ name: String, limit: ValueKind.DurationLimit = .init(), help: String, default defaultValue: String
  ) -> ValueOption<Double> {
    ValueOption(
      option: Option(
        name: name, valueName: "duration", kind: .duration(limit), help: help, defaultValue: defaultValue,
        repeatable: false))
  }

  static func repeated(
    _ name: String, _ valueName: String, kind: ValueKind = .text, help: String,
    default defaultValue: String? = nil, configuration: ConfigurationKey? = nil
  ) -> RepeatedOption<String> {
    RepeatedOption(
      option: Option(
        name: name, valueName: valueName, kind: kind, help: help, defaultValue: defaultValue,
        repeatable: true,
        configurationKey: configuration))
  }
}
