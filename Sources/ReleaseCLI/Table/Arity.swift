/// How many positional arguments a command takes (swift-argument-parser's `@Argument` as a
/// value, an array or an optional), and the one line that refuses another count, naming what
/// was found. The parser checks it before any option's value.
enum Arity: Sendable {
  /// None; the refusal names the first one given.
  case none(NoArguments)
  /// Exactly `count`: `rollout: expected <customer> <flow> <modelVersion>, found "acme x"`.
  case exactly(Int, expected: String)
  /// Exactly one of these words: `bump: expected one of major, minor, patch; found "huge"`.
  case oneOf([String])
  /// At most `count`: `ota status: expected at most one customer, found "a b"`.
  case atMost(Int, expected: String)
  /// One or more; `missing` follows `<command>: ` when none is given.
  case oneOrMore(missing: String)
  /// Everything after the command, options too, unparsed (`help`, `version`).
  case passthrough

  /// How a command that takes no positionals refuses one.
  enum NoArguments: Sendable {
    /// `'acme': 'release all' takes no customer names; use 'release customer acme'`.
    case customerNames
    /// `'x': 'release keys check' takes no arguments`.
    case arguments
    /// `'x': 'release ota publish' takes no arguments; <reason>`.
    case argumentsBecause(String)
  }

  /// The refusal of `positionals` for the command at `path`, or nil when they fit.
  func refusal(of positionals: [String], path: String) -> String? {
    let found = positionals.isEmpty ? "nothing" : "\"\(positionals.joined(separator: " "))\""
    switch self {
    case .none(let kind):
      guard let first = positionals.first else { return nil }
      let extra = first.prefix(60)
      switch kind {
      case .customerNames:
        return "'\(extra)': 'release \(path)' takes no customer names; use 'release customer \(extra)'"
      case .arguments: return "'\(extra)': 'release \(path)' takes no arguments"
      case .argumentsBecause(let reason): return "'\(extra)': 'release \(path)' takes no arguments; \(reason)"
      }
    case .exactly(let count, let expected):
      return positionals.count == count ? nil : "\(path): expected \(expected), found \(found.prefix(80))"
    case .oneOf(let words):
      guard positionals.count != 1 || !words.contains(positionals[0]) else { return nil }
      return "\(path): expected one of \(words.joined(separator: ", ")); found \(found.prefix(80))"
    case .atMost(let count, let expected):
      return positionals.count <= count
        ? nil : "\(path): expected at most \(expected), found \(found.prefix(80))"
    case .oneOrMore(let missing):
      return positionals.isEmpty ? "\(path): \(missing)" : nil
    case .passthrough:
      return nil
    }
  }
}
