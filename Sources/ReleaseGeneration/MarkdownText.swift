import Foundation

/// Text that is safe to substitute into a Markdown template (the generated README). Its
/// initializer is private: values are made by escaping input, or from emitted Swift for code
/// blocks, so no input can add links, HTML, headings or list items.
public struct MarkdownText: Equatable, Sendable, CustomStringConvertible {
  public let markdown: String

  private init(_ markdown: String) { self.markdown = markdown }

  public var description: String { markdown }

  /// Shows `text` as it is. Characters with meaning in CommonMark or GitHub's tables are
  /// backslash-escaped (CommonMark allows that for any ASCII punctuation) and line breaks
  /// and other control characters become spaces, so the text stays inside its line.
  public static func escaping(_ text: String) -> MarkdownText {
    // GitHub links bare URLs, www. names and e-mail addresses even when their punctuation is
    // escaped; in a code span nothing is linked.
    if autolinkTriggers.contains(where: { text.lowercased().contains($0) }) { return codeSpan(text) }
    var markdown = ""
    for scalar in text.unicodeScalars {
      if specialCharacters.contains(scalar) {
        markdown += "\\"
        markdown.unicodeScalars.append(scalar)
      } else if scalar.properties.generalCategory == .control
        || scalar.properties.generalCategory == .lineSeparator
        || scalar.properties.generalCategory == .paragraphSeparator
      {
        markdown += " "
      } else if scalar.properties.generalCategory == .format {
        markdown += visible(scalar)
      } else {
        markdown.unicodeScalars.append(scalar)
      }
    }
    return MarkdownText(markdown)
  }

  /// `text` as an inline code span, fenced with more backticks than it contains in a row.
  public static func codeSpan(_ text: String) -> MarkdownText {
    var flattened = ""
    for scalar in text.unicodeScalars {
      switch scalar.properties.generalCategory {
      case .control: flattened += " "
      case .format: flattened += visible(scalar)
      default: flattened.unicodeScalars.append(scalar)
      }
    }
    var longestRun = 0
    var run = 0
    for character in flattened {
      run = character == "`" ? run + 1 : 0
      longestRun = max(longestRun, run)
    }
    let fence = String(repeating: "`", count: longestRun + 1)
    // A space on each side keeps a leading or trailing backtick from joining the fence;
    // CommonMark strips one such space.
    let padded = flattened.hasPrefix("`") || flattened.hasSuffix("`") ? " \(flattened) " : flattened
    return MarkdownText(fence + padded + fence)
  }

  /// Emitted Swift for a fenced code block, where Markdown is not interpreted. Only a line
  /// starting with three backticks could close the fence, and no line of emitted Swift starts
  /// with more than one (a backticked keyword); string literals never span lines.
  public static func swiftCode(_ code: EmittedSwift) -> MarkdownText {
    MarkdownText(code.source)
  }

  /// Text inside a line of a fenced code block, where Markdown is not interpreted, after fixed
  /// text of that line: line breaks and other control characters become spaces, so the text
  /// can neither start a line nor close the fence.
  public static func codeBlockText(_ text: String) -> MarkdownText {
    var flattened = ""
    for scalar in text.unicodeScalars {
      switch scalar.properties.generalCategory {
      case .control, .lineSeparator, .paragraphSeparator: flattened += " "
      case .format: flattened += visible(scalar)
      default: flattened.unicodeScalars.append(scalar)
      }
    }
    return MarkdownText(flattened)
  }

  /// One item per line.
  public static func lines(_ lines: [MarkdownText]) -> MarkdownText {
    MarkdownText(lines.map(\.markdown).joined(separator: "\n"))
  }

  /// Joins pieces on one line, e.g. a list item made of code spans and escaped text.
  public static func concatenating(_ pieces: [MarkdownText]) -> MarkdownText {
    MarkdownText(pieces.map(\.markdown).joined())
  }

  /// Fixed text written by the generator itself (never input): list markers, separators.
  static func literal(_ markdown: StaticString) -> MarkdownText {
    MarkdownText("\(markdown)")
  }

  /// A format character (bidi override or isolate, zero-width character, BOM) shown as its
  /// code point rather than left to reorder or hide the text around it.
  private static func visible(_ scalar: Unicode.Scalar) -> String {
    "U+" + String(scalar.value, radix: 16, uppercase: true)
  }

  private static let autolinkTriggers = ["://", "www.", "@"]

  private static let specialCharacters: Set<Unicode.Scalar> = [
    "\\", "`", "*", "_", "{", "}", "[", "]", "<", ">", "(", ")", "#", "!", "|", "&", "~",
  ]
}
