import Foundation

/// A small argument reader (the package has no dependencies): `--flag`, `--option value`,
/// `--option=value` and positionals, with one-line errors naming the argument.
struct Arguments {
  private(set) var positionals: [String] = []
  private var options: [String: [String]] = [:]
  private var flags: Set<String> = []

  struct Spec {
    var flags: Set<String>
    var options: Set<String>
  }

  init(_ arguments: [String], spec: Spec, command: String) throws {
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
      if spec.flags.contains(name) {
        if inlineValue != nil { throw ReleaseError.usage("\(name): takes no value (found \"\(argument)\")") }
        flags.insert(name)
      } else if spec.options.contains(name) {
        if let inlineValue {
          options[name, default: []].append(inlineValue)
        } else if index < arguments.count {
          options[name, default: []].append(arguments[index])
          index += 1
        } else {
          throw ReleaseError.usage("\(name): expected a value after it, found the end of the command line")
        }
      } else {
        let known = Array(spec.flags.union(spec.options)).sorted()
        let hint = Suggestion.closest(to: name, among: known).map { " (did you mean \($0)?)" } ?? ""
        throw ReleaseError.usage(
          "\(name): unknown option for 'release \(command)'\(hint); see 'release \(command) --help'")
      }
    }
  }

  func flag(_ name: String) -> Bool { flags.contains(name) }
  /// The option's value; given more than once, the last one counts.
  func value(_ name: String) -> String? { options[name]?.last }
  /// Every value of a repeatable option, in order.
  func values(_ name: String) -> [String] { options[name] ?? [] }

  /// A duration: seconds, or a number with s, m or h, e.g. `90s`, `20m`, `1h`; at most a day.
  func duration(_ name: String) throws -> Double? {
    guard let text = value(name) else { return nil }
    let units: [(String, Double)] = [("h", 3600), ("m", 60), ("s", 1), ("", 1)]
    for (suffix, factor) in units where text.hasSuffix(suffix) {
      let digits = text.dropLast(suffix.count)
      if !digits.isEmpty, digits.allSatisfy(\.isASCII), digits.allSatisfy(\.isNumber),
        let number = Double(digits),
        number > 0, number * factor <= 86_400
      {
        return number * factor
      }
      break
    }
    throw ReleaseError.usage(
      "\(name): expected a duration such as 90s, 20m or 1h (at most 24h), found \"\(text.prefix(40))\"")
  }

  /// A size: bytes, or a number with KB, MB or GB (powers of 1024), e.g. `512MB`.
  func size(_ name: String) throws -> Int64? {
    guard let text = value(name) else { return nil }
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

  func integer(_ name: String, in range: ClosedRange<Int>) throws -> Int? {
    guard let text = value(name) else { return nil }
    guard let number = Int(text), range.contains(number) else {
      throw ReleaseError.usage(
        "\(name): expected a whole number from \(range.lowerBound) to \(range.upperBound), found \"\(text)\"")
    }
    return number
  }
}
