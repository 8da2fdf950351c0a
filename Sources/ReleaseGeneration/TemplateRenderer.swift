import Foundation

/// Replaces `{{name}}` placeholders with values, and nothing else: no loops, conditionals or
/// filters (lists arrive as one emitted value). Values are not scanned again, so a value that
/// contains `{{…}}` is inserted as it is. Strict both ways: a placeholder without a value, a
/// value without a placeholder and a `{{` that does not start a well-formed placeholder are
/// errors naming the template file (and line).
public enum TemplateRenderer {
  /// Renders a Swift template (`*.swift.tmpl`): only emitted Swift can be substituted.
  public static func render(_ template: String, file: String, values: [String: EmittedSwift]) throws -> String
  {
    try render(template, file: file, sources: values.mapValues(\.source))
  }

  /// Renders a Markdown (or other text) template: only Markdown-safe text can be substituted.
  public static func render(_ template: String, file: String, values: [String: MarkdownText]) throws -> String
  {
    try render(template, file: file, sources: values.mapValues(\.markdown))
  }

  private static func render(_ template: String, file: String, sources: [String: String]) throws -> String {
    var output = ""
    var used = Set<String>()
    var line = 1
    var rest = template[...]
    while let open = rest.range(of: "{{") {
      let before = rest[..<open.lowerBound]
      output += before
      line += before.unicodeScalars.filter { $0 == "\n" }.count
      let afterOpen = rest[open.upperBound...]
      guard let close = afterOpen.range(of: "}}"),
        case let name = String(afterOpen[..<close.lowerBound]),
        SwiftEmitter.isPlainIdentifier(name)
      else {
        let found = afterOpen.prefix { $0 != "\n" }.prefix(40)
        throw GenerationError.malformedPlaceholder(file: file, line: line, found: "{{" + found)
      }
      guard let value = sources[name] else {
        throw GenerationError.unknownPlaceholder(
          file: file, line: line, name: name, known: sources.keys.sorted())
      }
      output += value
      used.insert(name)
      rest = afterOpen[close.upperBound...]
    }
    output += rest
    if let unused = sources.keys.sorted().first(where: { !used.contains($0) }) {
      throw GenerationError.unusedValue(file: file, name: unused)
    }
    return output
  }
}
