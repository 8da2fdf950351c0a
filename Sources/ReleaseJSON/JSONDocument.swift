import Foundation

/// A place in a text file. Both start at 1; columns count Unicode scalars, so a column matches
/// what an editor shows for text without tabs.
public struct SourcePosition: Hashable, Comparable, Sendable, CustomStringConvertible {
  public var line: Int
  public var column: Int

  public init(line: Int, column: Int) {
    self.line = line
    self.column = column
  }

  public var description: String { "line \(line), column \(column)" }

  public static func < (a: Self, b: Self) -> Bool { (a.line, a.column) < (b.line, b.column) }
}

/// A parsed JSON value that remembers where it was written, so that validation messages can
/// point at the offending line (Foundation's JSONSerialization forgets positions).
public struct JSONValue: Equatable, Sendable {
  public enum Content: Equatable, Sendable {
    case null
    case bool(Bool)
    /// A number written without fraction or exponent (`73`, `-1`).
    case integer(Int)
    /// A number written with a fraction or exponent (`73.0`, `1e3`); `literal` is its source text.
    case number(Double, literal: String)
    case string(String)
    case array([JSONValue])
    /// Members in document order; keys are unique (duplicates are a syntax error).
    case object([JSONObjectMember])
  }

  public var content: Content
  /// Where the value starts (its first character).
  public var position: SourcePosition

  public init(_ content: Content, at position: SourcePosition) {
    self.content = content
    self.position = position
  }
}

public struct JSONObjectMember: Equatable, Sendable {
  public var key: String
  /// Where the key's opening quote is.
  public var keyPosition: SourcePosition
  public var value: JSONValue

  public init(key: String, keyPosition: SourcePosition, value: JSONValue) {
    self.key = key
    self.keyPosition = keyPosition
    self.value = value
  }
}

/// Why a text is not acceptable JSON, and where: `line 4, column 7: expected ',' or ']' after
/// array element, found '}'`.
public struct JSONSyntaxError: Error, Equatable, Sendable, CustomStringConvertible {
  public var message: String
  public var position: SourcePosition

  public init(_ message: String, at position: SourcePosition) {
    self.message = message
    self.position = position
  }

  public var description: String { "\(position): \(message)" }
}

/// Strict RFC 8259 JSON, UTF-8 only, with positions. An optional UTF-8 byte order mark is skipped
/// (editors on Windows write one). Limits keep hostile or accidental input from exhausting the
/// stack or flooding messages.
public enum JSONDocument {
  public struct Limits: Sendable {
    /// Arrays and objects nested deeper than this are rejected (recursion depth).
    public var maximumDepth: Int
    /// Strings (values and keys) longer than this many Unicode scalars are rejected.
    public var maximumStringLength: Int

    public init(maximumDepth: Int = 64, maximumStringLength: Int = 1000) {
      self.maximumDepth = maximumDepth
      self.maximumStringLength = maximumStringLength
    }
  }

  public static func parse(_ data: Data, limits: Limits = Limits()) throws(JSONSyntaxError) -> JSONValue {
    var scanner = JSONScanner(bytes: Array(data), limits: limits)
    return try scanner.parseDocument()
  }

  /// `parse`, with a syntax error reported as an input file's problems are: one diagnostic
  /// naming `file` and the error's line and column.
  public static func parse(_ data: Data, file: String) throws(ValidationFailure) -> JSONValue {
    do { return try parse(data) } catch {
      throw ValidationFailure([
        Diagnostic(
          file: file, path: error.position.description, message: error.message, line: error.position.line)
      ])
    }
  }
}

/// Walks the bytes once, keeping line and column of the current byte.
private struct JSONScanner {
  let bytes: [UInt8]
  let limits: JSONDocument.Limits
  var index = 0
  var line = 1
  var column = 1
  var depth = 0

  init(bytes: [UInt8], limits: JSONDocument.Limits) {
    self.bytes = bytes
    self.limits = limits
  }

  var position: SourcePosition { SourcePosition(line: line, column: column) }
  var current: UInt8? { index < bytes.count ? bytes[index] : nil }

  mutating func advance() {
    if bytes[index] == UInt8(ascii: "\n") {
      line += 1
      column = 1
    } else if bytes[index] & 0xC0 != 0x80 {
      // UTF-8 continuation bytes belong to the scalar whose lead byte was already counted.
      column += 1
    }
    index += 1
  }

  mutating func skipWhitespace() {
    while let byte = current,
      byte == UInt8(ascii: " ") || byte == UInt8(ascii: "\t") || byte == UInt8(ascii: "\n")
        || byte == UInt8(ascii: "\r")
    {
      advance()
    }
  }

  mutating func parseDocument() throws(JSONSyntaxError) -> JSONValue {
    if bytes.starts(with: [0xEF, 0xBB, 0xBF]) {
      index = 3
    } else if bytes.starts(with: [0xFF, 0xFE]) || bytes.starts(with: [0xFE, 0xFF]) {
      throw JSONSyntaxError("the file is UTF-16 encoded; save it as UTF-8", at: position)
    }
    skipWhitespace()
    if current == nil {
      throw JSONSyntaxError("expected a JSON value, found an empty file", at: position)
    }
    let value = try parseValue()
    skipWhitespace()
    if current != nil {
      throw JSONSyntaxError(
        "expected end of file after the top-level value, found \(describeCurrent())", at: position)
    }
    return value
  }

  mutating func parseValue() throws(JSONSyntaxError) -> JSONValue {
    let start = position
    switch current {
    case UInt8(ascii: "{"): return try parseObject()
    case UInt8(ascii: "["): return try parseArray()
    case UInt8(ascii: "\""): return JSONValue(.string(try parseString()), at: start)
    case let byte? where byte == UInt8(ascii: "-") || Self.isDigit(byte): return try parseNumber()
    default:
      for (word, content) in [
        ("true", JSONValue.Content.bool(true)), ("false", .bool(false)), ("null", .null),
      ]
      where matchesWord(word) {
        for _ in word.utf8 { advance() }
        return JSONValue(content, at: start)
      }
      throw JSONSyntaxError("expected a value, found \(describeCurrent())", at: start)
    }
  }

  /// True when the literal `word` starts here and is not the beginning of a longer word (`nulls`).
  func matchesWord(_ word: String) -> Bool {
    let utf8 = Array(word.utf8)
    guard bytes[index...].starts(with: utf8) else { return false }
    let end = index + utf8.count
    return end == bytes.count || !Self.isWordByte(bytes[end])
  }

  static func isWordByte(_ byte: UInt8) -> Bool {
    (UInt8(ascii: "a")...UInt8(ascii: "z")).contains(byte)
      || (UInt8(ascii: "A")...UInt8(ascii: "Z")).contains(byte)
      || (UInt8(ascii: "0")...UInt8(ascii: "9")).contains(byte) || byte == UInt8(ascii: "_")
  }

  mutating func enterContainer() throws(JSONSyntaxError) {
    depth += 1
    if depth > limits.maximumDepth {
      throw JSONSyntaxError(
        "arrays and objects are nested deeper than \(limits.maximumDepth) levels", at: position)
    }
  }

  mutating func parseArray() throws(JSONSyntaxError) -> JSONValue {
    let start = position
    try enterContainer()
    advance()  // [
    var elements: [JSONValue] = []
    skipWhitespace()
    if current == UInt8(ascii: "]") {
      advance()
      depth -= 1
      return JSONValue(.array(elements), at: start)
    }
    while true {
      skipWhitespace()
      elements.append(try parseValue())
      skipWhitespace()
      let separator = position
      switch current {
      case UInt8(ascii: ","):
        advance()
        skipWhitespace()
        if current == UInt8(ascii: "]") {
          throw JSONSyntaxError(
            "trailing comma before ']' (JSON allows no comma after the last element)", at: separator)
        }
      case UInt8(ascii: "]"):
        advance()
        depth -= 1
        return JSONValue(.array(elements), at: start)
      default:
        throw JSONSyntaxError(
          "expected ',' or ']' after array element, found \(describeCurrent())", at: separator)
      }
    }
  }

  mutating func parseObject() throws(JSONSyntaxError) -> JSONValue {
    let start = position
    try enterContainer()
    advance()  // {
    var members: [JSONObjectMember] = []
    var keyPositions: [String: SourcePosition] = [:]
    skipWhitespace()
    if current == UInt8(ascii: "}") {
      advance()
      depth -= 1
      return JSONValue(.object(members), at: start)
    }
    var expectation = "expected a string key or '}'"
    while true {
      members.append(try parseMember(expecting: expectation, keyPositions: &keyPositions))
      skipWhitespace()
      let separator = position
      switch current {
      case UInt8(ascii: ","):
        advance()
        skipWhitespace()
        if current == UInt8(ascii: "}") {
          throw JSONSyntaxError(
            "trailing comma before '}' (JSON allows no comma after the last member)", at: separator)
        }
        expectation = "expected a string key after ','"
      case UInt8(ascii: "}"):
        advance()
        depth -= 1
        return JSONValue(.object(members), at: start)
      default:
        throw JSONSyntaxError(
          "expected ',' or '}' after object member, found \(describeCurrent())", at: separator)
      }
    }
  }

  /// Parses one `"key": value` member of an object; `keyPositions` holds where each key so
  /// far was, to refuse a duplicate.
  mutating func parseMember(
    expecting expectation: String, keyPositions: inout [String: SourcePosition]
  ) throws(JSONSyntaxError) -> JSONObjectMember {
    skipWhitespace()
    let keyPosition = position
    guard current == UInt8(ascii: "\"") else {
      throw JSONSyntaxError("\(expectation), found \(describeCurrent())", at: keyPosition)
    }
    let key = try parseString()
    if let first = keyPositions[key] {
      throw JSONSyntaxError("duplicate key \(key.quotedForMessage) (first at \(first))", at: keyPosition)
    }
    keyPositions[key] = keyPosition
    skipWhitespace()
    guard current == UInt8(ascii: ":") else {
      throw JSONSyntaxError(
        "expected ':' after key \(key.quotedForMessage), found \(describeCurrent())", at: position)
    }
    advance()
    skipWhitespace()
    return JSONObjectMember(key: key, keyPosition: keyPosition, value: try parseValue())
  }

  /// Parses a string starting at its opening quote and returns its decoded text.
  mutating func parseString() throws(JSONSyntaxError) -> String {
    let start = position
    advance()  // "
    var utf8: [UInt8] = []
    var length = 0
    while true {
      if length > limits.maximumStringLength {
        throw JSONSyntaxError("string is longer than \(limits.maximumStringLength) characters", at: start)
      }
      length += 1  // Every branch below either ends the string or adds exactly one scalar.
      guard let byte = current else {
        throw JSONSyntaxError("unterminated string: the file ends before its closing '\"'", at: start)
      }
      switch byte {
      case UInt8(ascii: "\""):
        advance()
        return String(decoding: utf8, as: UTF8.self)
      case UInt8(ascii: "\\"):
        appendUTF8(of: try parseEscape(), to: &utf8)
      case UInt8(ascii: "\n"), UInt8(ascii: "\r"):
        throw JSONSyntaxError("unterminated string: the line ends before its closing '\"'", at: start)
      case 0x00..<0x20:
        throw JSONSyntaxError(
          "control character \(Unicode.Scalar(byte).codePointName) in string; write it as an escape such as "
            + Self.escapeSuggestion(for: byte),
          at: position)
      case 0x20..<0x80:
        utf8.append(byte)
        advance()
      default:
        guard let length = validUTF8SequenceLength() else {
          throw JSONSyntaxError(
            "invalid UTF-8 byte \(Self.hex(byte)) in string; save the file as UTF-8", at: position)
        }
        for _ in 0..<length {
          utf8.append(bytes[index])
          advance()
        }
      }
    }
  }

  static func escapeSuggestion(for controlByte: UInt8) -> String {
    switch controlByte {
    case UInt8(ascii: "\t"): return "\\t"
    default: return "\\u" + hexDigits(controlByte, width: 4)
    }
  }

  /// Parses `\…` at the current backslash and returns the scalar it stands for, joining a
  /// `\uD83D\uDE00` surrogate pair into one scalar.
  mutating func parseEscape() throws(JSONSyntaxError) -> Unicode.Scalar {
    let start = position
    advance()  // backslash
    guard let byte = current else {
      throw JSONSyntaxError("unterminated string: the file ends inside an escape", at: start)
    }
    let simple: [UInt8: Unicode.Scalar] = [
      UInt8(ascii: "\""): "\"", UInt8(ascii: "\\"): "\\", UInt8(ascii: "/"): "/", UInt8(ascii: "b"): "\u{8}",
      UInt8(ascii: "f"): "\u{C}", UInt8(ascii: "n"): "\n", UInt8(ascii: "r"): "\r", UInt8(ascii: "t"): "\t",
    ]
    if let scalar = simple[byte] {
      advance()
      return scalar
    }
    guard byte == UInt8(ascii: "u") else {
      let escape =
        Self.isPrintableASCII(byte) ? "'\\\(Unicode.Scalar(byte))'" : "'\\' followed by \(describeCurrent())"
      throw JSONSyntaxError(
        "invalid escape \(escape) in string (valid: \\\" \\\\ \\/ \\b \\f \\n \\r \\t \\uXXXX)", at: start)
    }
    advance()
    let unit = try parseHexQuad(escapeStart: start)
    if UTF16.isTrailSurrogate(unit) {
      throw JSONSyntaxError(
        "lone surrogate \\u\(Self.hex4(unit)) in string (a low surrogate must follow a high surrogate \\uD800-\\uDBFF)",
        at: start)
    }
    if UTF16.isLeadSurrogate(unit) {
      let trailStart = position
      guard bytes[index...].starts(with: [UInt8(ascii: "\\"), UInt8(ascii: "u")]) else {
        throw JSONSyntaxError(
          "lone surrogate \\u\(Self.hex4(unit)) in string (a high surrogate must be followed by a low surrogate \\uDC00-\\uDFFF)",
          at: start)
      }
      advance()
      advance()
      let trail = try parseHexQuad(escapeStart: trailStart)
      guard UTF16.isTrailSurrogate(trail) else {
        throw JSONSyntaxError(
          "lone surrogate \\u\(Self.hex4(unit)) in string (a high surrogate must be followed by a low surrogate \\uDC00-\\uDFFF)",
          at: start)
      }
      let value = 0x10000 + ((UInt32(unit) - 0xD800) << 10) + (UInt32(trail) - 0xDC00)
      return Unicode.Scalar(value)!  // Always valid: a surrogate pair encodes U+10000...U+10FFFF.
    }
    return Unicode.Scalar(unit)!  // Always valid: surrogates were handled above.
  }

  mutating func parseHexQuad(escapeStart: SourcePosition) throws(JSONSyntaxError) -> UInt16 {
    var value: UInt16 = 0
    for _ in 0..<4 {
      guard let byte = current, let digit = Self.hexDigitValue(byte) else {
        throw JSONSyntaxError(
          "invalid escape: '\\u' must be followed by four hex digits, found \(describeCurrent())",
          at: escapeStart)
      }
      value = value << 4 | UInt16(digit)
      advance()
    }
    return value
  }

  static func hexDigitValue(_ byte: UInt8) -> UInt8? {
    switch byte {
    case UInt8(ascii: "0")...UInt8(ascii: "9"): return byte - UInt8(ascii: "0")
    case UInt8(ascii: "a")...UInt8(ascii: "f"): return byte - UInt8(ascii: "a") + 10
    case UInt8(ascii: "A")...UInt8(ascii: "F"): return byte - UInt8(ascii: "A") + 10
    default: return nil
    }
  }

  func appendUTF8(of scalar: Unicode.Scalar, to utf8: inout [UInt8]) {
    utf8.append(contentsOf: Array(String(scalar).utf8))
  }

  /// Length of the well-formed UTF-8 sequence at `index` (Unicode Table 3-7: no overlong forms,
  /// no encoded surrogates, nothing above U+10FFFF), or nil.
  func validUTF8SequenceLength() -> Int? {
    let lead = bytes[index]
    let secondRange: ClosedRange<UInt8>
    let length: Int
    switch lead {
    case 0x00...0x7F: return 1
    case 0xC2...0xDF: (length, secondRange) = (2, 0x80...0xBF)
    case 0xE0: (length, secondRange) = (3, 0xA0...0xBF)
    case 0xE1...0xEC, 0xEE...0xEF: (length, secondRange) = (3, 0x80...0xBF)
    case 0xED: (length, secondRange) = (3, 0x80...0x9F)
    case 0xF0: (length, secondRange) = (4, 0x90...0xBF)
    case 0xF1...0xF3: (length, secondRange) = (4, 0x80...0xBF)
    case 0xF4: (length, secondRange) = (4, 0x80...0x8F)
    default: return nil
    }
    guard index + length <= bytes.count, secondRange.contains(bytes[index + 1]) else { return nil }
    for offset in 2..<length where !(0x80...0xBF).contains(bytes[index + offset]) { return nil }
    return length
  }

  mutating func parseNumber() throws(JSONSyntaxError) -> JSONValue {
    let start = position
    let startIndex = index
    var isInteger = true
    if current == UInt8(ascii: "-") { advance() }
    switch current {
    case UInt8(ascii: "0"):
      advance()
      if let next = current, Self.isDigit(next) {
        throw JSONSyntaxError("numbers cannot have leading zeros", at: start)
      }
    case let byte? where Self.isDigit(byte):
      skipDigits()
    default:
      throw JSONSyntaxError("expected a digit after '-', found \(describeCurrent())", at: position)
    }
    if current == UInt8(ascii: ".") {
      isInteger = false
      advance()
      guard let byte = current, Self.isDigit(byte) else {
        throw JSONSyntaxError("expected a digit after '.', found \(describeCurrent())", at: position)
      }
      skipDigits()
    }
    if current == UInt8(ascii: "e") || current == UInt8(ascii: "E") {
      isInteger = false
      advance()
      if current == UInt8(ascii: "+") || current == UInt8(ascii: "-") { advance() }
      guard let byte = current, Self.isDigit(byte) else {
        throw JSONSyntaxError("expected a digit in the exponent, found \(describeCurrent())", at: position)
      }
      skipDigits()
    }
    let literal = String(decoding: bytes[startIndex..<index], as: UTF8.self)
    if isInteger {
      guard let value = Int(literal) else {
        throw JSONSyntaxError(
          "integer \(literal.truncatedForMessage) is out of range (\(Int.min)...\(Int.max))", at: start)
      }
      return JSONValue(.integer(value), at: start)
    }
    guard let value = Double(literal), value.isFinite else {
      throw JSONSyntaxError("number \(literal.truncatedForMessage) is out of range", at: start)
    }
    return JSONValue(.number(value, literal: literal), at: start)
  }

  static func isDigit(_ byte: UInt8) -> Bool { (UInt8(ascii: "0")...UInt8(ascii: "9")).contains(byte) }

  mutating func skipDigits() {
    while let byte = current, Self.isDigit(byte) { advance() }
  }

  /// What stands at the current position, for "found …" in messages: `'}'`, `'True'` (a whole
  /// word, so misspelt literals read naturally), `end of file`, `line break`.
  func describeCurrent() -> String {
    guard let byte = current else { return "end of file" }
    if Self.isWordByte(byte) {
      let word = bytes[index...].prefix(while: Self.isWordByte)
      return "'" + String(decoding: word, as: UTF8.self).truncatedForMessage + "'"
    }
    switch byte {
    case UInt8(ascii: "\n"), UInt8(ascii: "\r"): return "line break"
    case UInt8(ascii: "'"): return "\"'\""
    default:
      guard let length = validUTF8SequenceLength() else { return "invalid UTF-8 byte \(Self.hex(byte))" }
      let scalar = String(decoding: bytes[index..<index + length], as: UTF8.self).unicodeScalars.first!
      return scalar.isUnsafeInOneLineMessage ? "control character \(scalar.codePointName)" : "'\(scalar)'"
    }
  }

  static func isPrintableASCII(_ byte: UInt8) -> Bool { (0x21...0x7E).contains(byte) }

  static func hex(_ byte: UInt8) -> String { "0x" + hexDigits(byte, width: 2) }
  static func hex4(_ unit: UInt16) -> String { hexDigits(unit, width: 4) }
}

/// Upper-case hex, zero-padded to `width` digits.
private func hexDigits(_ value: some BinaryInteger, width: Int) -> String {
  let digits = String(value, radix: 16, uppercase: true)
  return String(repeating: "0", count: max(0, width - digits.count)) + digits
}

extension Unicode.Scalar {
  /// `U+0009`: how messages name a character that cannot be shown.
  package var codePointName: String { "U+" + hexDigits(value, width: 4) }
}

extension String {
  /// The string in double quotes for a one-line message: at most 60 characters (then `…`),
  /// with quotes, backslashes and control characters escaped as in JSON.
  public var quotedForMessage: String {
    var escaped = ""
    for (offset, character) in self.enumerated() {
      if offset == 60 {
        escaped += "…"
        break
      }
      for scalar in character.unicodeScalars {
        switch scalar {
        case "\"": escaped += "\\\""
        case "\\": escaped += "\\\\"
        case "\n": escaped += "\\n"
        case "\r": escaped += "\\r"
        case "\t": escaped += "\\t"
        default:
          escaped +=
            scalar.isUnsafeInOneLineMessage ? "\\u" + hexDigits(scalar.value, width: 4) : String(scalar)
        }
      }
    }
    return "\"" + escaped + "\""
  }

  /// At most 60 characters (then `…`), for quoting source text such as a number literal.
  package var truncatedForMessage: String { count > 60 ? String(prefix(60)) + "…" : self }
}

extension Unicode.Scalar {
  /// Control characters and line or paragraph separators would break a one-line message.
  package var isUnsafeInOneLineMessage: Bool {
    switch properties.generalCategory {
    case .control, .lineSeparator, .paragraphSeparator: return true
    default: return false
    }
  }
}
