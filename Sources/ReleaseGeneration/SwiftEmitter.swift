import Foundation

/// Swift source produced by `SwiftEmitter`. Its initializer is private to this file, so a
/// value of this type can only come from the emitter: Swift templates accept nothing else.
public struct EmittedSwift: Equatable, Sendable, CustomStringConvertible {
  public let source: String

  fileprivate init(_ source: String) { self.source = source }

  public var description: String { source }
}

/// The one place where input (customers.json, model metadata) becomes Swift source. Every
/// value comes out as a literal or a validated identifier, so no input can change the
/// structure of the generated code.
public enum SwiftEmitter {
  /// A single-line string literal that evaluates to exactly `text`. Backslashes and quotes
  /// are escaped (which also turns `\(` into a literal backslash and parenthesis rather than
  /// an interpolation), and control, format and line-separator characters are written as
  /// `\u{…}` (as are private-use and unassigned ones), so invisible characters such as NUL or
  /// bidirectional overrides stay visible in the source.
  public static func stringLiteral(_ text: String) -> EmittedSwift {
    var source = "\""
    for scalar in text.unicodeScalars {
      switch scalar {
      case "\\": source += "\\\\"
      case "\"": source += "\\\""
      case "\n": source += "\\n"
      case "\r": source += "\\r"
      case "\t": source += "\\t"
      default:
        switch scalar.properties.generalCategory {
        case .control, .format, .lineSeparator, .paragraphSeparator, .privateUse, .unassigned:
          source += "\\u{" + String(scalar.value, radix: 16) + "}"
        default:
          source.unicodeScalars.append(scalar)
        }
      }
    }
    return EmittedSwift(source + "\"")
  }

  public static func integerLiteral<Integer: BinaryInteger>(_ value: Integer) -> EmittedSwift {
    EmittedSwift(String(value))
  }

  /// A plain ASCII identifier (`[A-Za-z_][A-Za-z0-9_]*`, not `_` alone); keywords come out in
  /// backticks. Anything else is rejected rather than mangled, so a name never silently changes.
  public static func identifier(_ name: String) throws -> EmittedSwift {
    guard isPlainIdentifier(name) else {
      throw GenerationError.invalidIdentifier(found: name)
    }
    return EmittedSwift(keywords.contains(name) ? "`\(name)`" : name)
  }

  /// Whether `name` has the shape of a plain ASCII identifier. Keywords pass: `identifier`
  /// backticks them, and as names inside string literals they need nothing.
  public static func isPlainIdentifier(_ name: String) -> Bool {
    guard let first = name.unicodeScalars.first, name != "_" else { return false }
    let isLetter = { (s: Unicode.Scalar) in ("a"..."z").contains(s) || ("A"..."Z").contains(s) || s == "_" }
    let isDigit = { (s: Unicode.Scalar) in ("0"..."9").contains(s) }
    return isLetter(first) && name.unicodeScalars.allSatisfy { isLetter($0) || isDigit($0) }
  }

  /// One import per line, sorted by module name as swift-format orders them:
  /// `import Module` for each of `modules`, `@_exported import Module` for each of `exported`
  /// (modules a generated module's users should see through it).
  public static func imports(_ modules: [String], exported: [String]) throws -> EmittedSwift {
    let lines = try (modules.map { ($0, "import") } + exported.map { ($0, "@_exported import") })
      .sorted { $0.0 < $1.0 }
      .map { module, keyword in "\(keyword) \(try identifier(module).source)" }
    return EmittedSwift(lines.joined(separator: "\n"))
  }

  /// `[a, b, c]` on one line.
  public static func arrayLiteral(_ elements: [EmittedSwift]) -> EmittedSwift {
    EmittedSwift("[" + elements.map(\.source).joined(separator: ", ") + "]")
  }

  /// One element per line, each followed by a comma, for arrays too long for one line; none
  /// or one element stay on one line, as swift-format keeps them. `indentationLevel` is the
  /// indentation (in two-space steps) of the line the literal starts on.
  public static func multilineArrayLiteral(_ elements: [EmittedSwift], indentationLevel: Int) -> EmittedSwift
  {
    guard elements.count > 1 else { return arrayLiteral(elements) }
    let outer = String(repeating: "  ", count: indentationLevel)
    let lines = elements.map { "\(outer)  \($0.source)," }
    return EmittedSwift((["["] + lines + ["\(outer)]"]).joined(separator: "\n"))
  }

  /// `[key: value, …]` with one pair per line (`[:]` when empty), keys in the order given.
  public static func multilineDictionaryLiteral(
    _ pairs: [(key: EmittedSwift, value: EmittedSwift)], indentationLevel: Int
  ) -> EmittedSwift {
    guard !pairs.isEmpty else { return EmittedSwift("[:]") }
    let outer = String(repeating: "  ", count: indentationLevel)
    let lines = pairs.map { "\(outer)  \($0.key.source): \($0.value.source)," }
    return EmittedSwift((["["] + lines + ["\(outer)]"]).joined(separator: "\n"))
  }

  /// Swift's keywords, including the contextual ones: backticks are harmless where a word is
  /// not reserved and required where it is.
  static let keywords: Set<String> = [
    "Any", "Protocol", "Self", "Type", "actor", "any", "as", "associatedtype", "associativity",
    "async", "await", "borrowing", "break", "case", "catch", "class", "consume", "consuming",
    "continue", "convenience", "copy", "default", "defer", "deinit", "didSet", "discard", "do",
    "dynamic", "each", "else", "enum", "extension", "fallthrough", "false", "fileprivate",
    "final", "for", "func", "get", "guard", "if", "import", "in", "indirect", "infix", "init",
    "inout", "internal", "is", "isolated", "lazy", "left", "let", "macro", "mutating", "nil",
    "none", "nonisolated", "nonmutating", "open", "operator", "optional", "override", "package",
    "postfix", "precedence", "precedencegroup", "prefix", "private", "protocol", "public",
    "repeat", "required", "rethrows", "return", "right", "self", "set", "some", "static",
    "struct", "subscript", "super", "switch", "throw", "throws", "true", "try", "typealias",
    "unowned", "var", "weak", "where", "while", "willSet",
  ]
}
