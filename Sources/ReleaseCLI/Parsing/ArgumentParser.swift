import Foundation
import ReleaseCore
import ReleaseJSON
import ReleaseManifest
import ReleaseSettings

/// Reads a command line by its command's description (the package has no dependencies):
/// `--flag`, `--option value`, `--option=value` and positionals, with one-line errors naming
/// the argument. Values are read back by their `Option`.
struct Arguments {
  private(set) var positionals: [String] = []
  private var options: [String: [String]] = [:]
  private var flags: Set<String> = []

  init(_ arguments: [String], command: Command) throws {
    var index = 0
    var onlyPositionals = false
    while index < arguments.count {
      let argument = arguments[index]
      index += 1
      if onlyPositionals || !argument.hasPrefix("-") || argument == "-" {
        positionals.append(argument)
        continue
      }
      if argument == "--" {
        onlyPositionals = true
        continue
      }
      var name = argument
      var inlineValue: String?
      if let equals = argument.firstIndex(of: "=") {
        name = String(argument[..<equals])
        inlineValue = String(argument[argument.index(after: equals)...])
      }
      if let reason = command.refusals[name] { throw ReleaseError.usage("\(name): \(reason)") }
      guard let option = command.option(named: name) else {
        let hint = Suggestion.closest(to: name, among: command.options.map(\.name).sorted()).map {
          " (did you mean \($0)?)"
        }
        throw ReleaseError.usage(
          "\(name): unknown option for 'release \(command.path)'\(hint ?? ""); see 'release \(command.path) --help'"
        )
      }
      if !option.takesValue {
        if inlineValue != nil { throw ReleaseError.usage("\(name): takes no value (found \"\(argument)\")") }
        flags.insert(name)
      } else if let inlineValue {
        options[name, default: []].append(inlineValue)
      } else if index < arguments.count {
        options[name, default: []].append(arguments[index])
        index += 1
      } else {
        throw ReleaseError.usage("\(name): expected a value after it, found the end of the command line")
      }
    }
  }

  func flag(_ option: Option) -> Bool { flags.contains(option.name) }
  /// The option's value; given more than once, the last one counts.
  func value(_ option: Option) -> String? { options[option.name]?.last }
  /// Every value of a repeatable option, in order.
  func values(_ option: Option) -> [String] { options[option.name] ?? [] }
  /// Whether the option was given at all.
  func given(_ option: Option) -> Bool { flag(option) || options[option.name] != nil }

  /// A duration: seconds, or a number with s, m, h or d, e.g. `90s`, `20m`, `1h`, `7d`; at most
  /// `maximum` seconds (a day unless given), which messages name as `maximumText`.
  func duration(
    _ option: Option, maximum: Double = 86_400, maximumText: String = "24h",
    examples: String = "90s, 20m or 1h"
  ) throws -> Double? {
    let name = option.name
    guard let text = value(option) else { return nil }
    let units: [(String, Double)] = [("d", 86_400), ("h", 3600), ("m", 60), ("s", 1), ("", 1)]
    if let seconds = DurationText.seconds(of: text, units: units, maximum: maximum) { return seconds }
    throw ReleaseError.usage(
      "\(name): expected a duration such as \(examples) (at most \(maximumText)), found \"\(text.prefix(40))\""
    )
  }

  /// A size: bytes, or a number with KB, MB or GB (powers of 1024), e.g. `512MB`.
  func size(_ option: Option) throws -> Int64? {
    let name = option.name
    guard let text = value(option) else { return nil }
    let units: [(String, Int64)] = [("GB", 1 << 30), ("MB", 1 << 20), ("KB", 1 << 10), ("", 1)]
    let upper = text.uppercased()
    for (suffix, factor) in units where upper.hasSuffix(suffix) {
      let digits = upper.dropLast(suffix.count)
      if !digits.isEmpty, digits.allSatisfy(\.isASCII), digits.allSatisfy(\.isNumber),
        let number = Int64(digits),
        number > 0, number <= Int64.max / factor
      {
        return number * factor
      }
      break
    }
    throw ReleaseError.usage(
      "\(name): expected a size in bytes, or with KB, MB or GB (e.g. 512MB), found \"\(text.prefix(40))\"")
  }

  func integer(_ option: Option, in range: ClosedRange<Int>) throws -> Int? {
    let name = option.name
    guard let text = value(option) else { return nil }
    guard let number = Int(text), range.contains(number) else {
      throw ReleaseError.usage(
        "\(name): expected a whole number from \(range.lowerBound) to \(range.upperBound), found \"\(text)\"")
    }
    return number
  }
}
