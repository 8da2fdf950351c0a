import Foundation
import ReleaseCore
import ReleaseJSON
import ReleaseManifest
import ReleaseSettings

/// Reads a command line by its command's description (the package has no dependencies):
/// `--flag`, `--option value`, `--option=value` and positionals, with one-line errors naming
/// the argument. Before the command runs it checks what the description declares: the count
/// of positionals (`Arity`), each value against its option's kind, the required options.
/// Values are read back typed by their option: `arguments[Options.jobs]` is an `Int?`.
struct Arguments {
  private(set) var positionals: [String] = []
  /// The texts given to each option that takes a value, by its name, in order.
  private var texts: [String: [String]] = [:]
  private var flags: Set<String> = []

  init(_ arguments: [String], command: Command) throws {
    if case .passthrough = command.arity {
      positionals = arguments
      return
    }
    try read(arguments, command)
    if let refusal = command.arity.refusal(of: positionals, path: command.path) {
      throw ReleaseError.usage(refusal)
    }
    try check(command)
  }

  /// Splits the command line into flags, values and positionals.
  private mutating func read(_ arguments: [String], _ command: Command) throws {
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
      let (name, inlineValue) = Self.split(argument)
      let option = try Self.option(named: name, of: command)
      if !option.takesValue {
        if inlineValue != nil { throw ReleaseError.usage("\(name): takes no value (found \"\(argument)\")") }
        flags.insert(name)
      } else if let inlineValue {
        texts[name, default: []].append(inlineValue)
      } else if index < arguments.count {
        texts[name, default: []].append(arguments[index])
        index += 1
      } else {
        throw ReleaseError.usage("\(name): expected a value after it, found the end of the command line")
      }
    }
  }

  /// `--name=value` as its name and value; `--name` as its name.
  private static func split(_ argument: String) -> (name: String, value: String?) {
    guard let equals = argument.firstIndex(of: "=") else { return (argument, nil) }
    return (String(argument[..<equals]), String(argument[argument.index(after: equals)...]))
  }

  /// The command's option called `name`; refused with the command's reason, or as unknown
  /// with the closest of the command's own options.
  private static func option(named name: String, of command: Command) throws -> Option {
    if let reason = command.refusals[name] { throw ReleaseError.usage("\(name): \(reason)") }
    if let option = command.option(named: name) { return option }
    let hint = Suggestion.closest(to: name, among: command.options.map(\.name).sorted()).map {
      " (did you mean \($0)?)"
    }
    throw ReleaseError.usage(
      "\(name): unknown option for 'release \(command.path)'\(hint ?? ""); see 'release \(command.path) --help'"
    )
  }

  /// Each value against its option's kind (a single option's last one, which is the one that
  /// counts), then the options the command cannot run without, in help order.
  private func check(_ command: Command) throws {
    for option in command.options {
      let given = texts[option.name] ?? []
      for text in option.repeatable ? given : given.suffix(1) where option.kind.value(of: text) == nil {
        throw ReleaseError.usage(option.kind.refusal(option.name, text))
      }
      if given.isEmpty, let missing = option.missing(in: command.path) { throw ReleaseError.usage(missing) }
    }
  }

  subscript(flag: Flag) -> Bool { flags.contains(flag.name) }

  /// The option's value (given more than once, the last one), as its kind reads it.
  subscript<Value>(option: ValueOption<Value>) -> Value? {
    texts[option.name]?.last.flatMap { option.option.kind.value(of: $0) as? Value }
  }

  /// Every value of a repeatable option, in order.
  subscript<Value>(option: RepeatedOption<Value>) -> [Value] {
    (texts[option.name] ?? []).compactMap { option.option.kind.value(of: $0) as? Value }
  }

  /// Whether the option was given at all.
  func given(_ option: some DeclaredOption) -> Bool {
    flags.contains(option.name) || texts[option.name] != nil
  }
}

/// The accessors of the command line before its values were typed, for code that still reads
/// through them; each reads what the typed subscript reads.
extension Arguments {
  func flag(_ option: some DeclaredOption) -> Bool { flags.contains(option.name) }
  /// The option's text; given more than once, the last one counts.
  func value(_ option: some DeclaredOption) -> String? { texts[option.name]?.last }
  /// Every text of a repeatable option, in order.
  func values(_ option: some DeclaredOption) -> [String] { texts[option.name] ?? [] }

  func duration(
    _ option: some DeclaredOption, maximum: Double = 86_400, maximumText: String = "24h",
    examples: String = "90s, 20m or 1h"
  ) throws -> Double? {
    try read(option, as: .duration(.init(maximum: maximum, maximumText: maximumText, examples: examples)))
  }

  func size(_ option: some DeclaredOption) throws -> Int64? { try read(option, as: .size) }

  func integer(_ option: some DeclaredOption, in range: ClosedRange<Int>) throws -> Int? {
    try read(option, as: .integer(range))
  }

  private func read<Value>(_ option: some DeclaredOption, as kind: ValueKind) throws -> Value? {
    guard let text = value(option) else { return nil }
    guard let value = kind.value(of: text) as? Value else {
      throw ReleaseError.usage(kind.refusal(option.name, text))
    }
    return value
  }
}
