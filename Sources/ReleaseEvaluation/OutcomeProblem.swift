/// What is wrong with one line of an outcomes file.
public enum OutcomeProblemKind: Hashable, Sendable {
  /// The file has no header line.
  case missingHeader
  /// A required column is not in the header.
  case missingColumn(String)
  /// A column is named twice in the header.
  case duplicateColumn(String)
  /// The line has a different number of fields than the header.
  case wrongFieldCount(found: Int, expected: Int)
  /// A quoted field is not closed on its line.
  case unterminatedQuote
  /// The date is not a `YYYY-MM-DD` calendar date.
  case malformedDate(String)
  /// A count or model version is not an integer.
  case malformedInteger(column: String, value: String)
  /// A value is not a number (revenue).
  case malformedNumber(column: String, value: String)
  /// A count, revenue or model version is below zero.
  case negative(column: String, value: Double)
  /// A count above 10^12 (or a revenue above its limit).
  case tooLarge(column: String, value: String, limit: String)
  /// The line holds bytes that are not UTF-8.
  case notUTF8
  /// A cumulative count went down from the series' previous date.
  case decreasingCount(column: String, value: Int, previous: Int, previousLine: Int)
  case conversionsAboveDevices(conversions: Int, devices: Int)
  /// The same date, customer, flow and model version as an earlier line.
  case duplicateRow(firstLine: Int)
  case dateInFuture(date: OutcomeDate, today: OutcomeDate)

  /// What was found and what was expected, in one line.
  public var message: String {
    switch self {
    case .missingHeader:
      return "found no header; expected the header \(OutcomesReader.requiredColumns.joined(separator: ","))"
    case .missingColumn(let column):
      return "found no column \"\(column)\" in the header; expected the columns "
        + OutcomesReader.requiredColumns.joined(separator: ",")
    case .duplicateColumn(let column):
      return "found the column \"\(column)\" twice in the header; expected each column once"
    case .wrongFieldCount(let found, let expected):
      return "found \(found) fields; expected \(expected), as in the header"
    case .unterminatedQuote:
      return "found a quoted field that is not closed; expected a closing quote on the same line"
    case .malformedDate(let value):
      return "found the date \"\(value)\"; expected a UTC date as YYYY-MM-DD"
    case .malformedInteger(let column, let value):
      return "found \(column) \"\(value)\"; expected a whole number"
    case .malformedNumber(let column, let value):
      return "found \(column) \"\(value)\"; expected a number"
    case .negative(let column, let value):
      let shown = value == value.rounded() && abs(value) < 1e15 ? String(Int(value)) : String(value)
      return "found \(column) \(shown); expected zero or more"
    case .tooLarge(let column, let value, let limit):
      return "found \(column) \(value); expected at most \(limit)"
    case .notUTF8:
      return "found bytes that are not UTF-8; expected a UTF-8 text file"
    case .decreasingCount(let column, let value, let previous, let previousLine):
      return "found \(column) \(value), down from \(previous) on line \(previousLine); "
        + "expected a cumulative count that never decreases"
    case .conversionsAboveDevices(let conversions, let devices):
      return
        "found \(conversions) conversions for \(devices) devices; expected at most one conversion a device"
    case .duplicateRow(let firstLine):
      return
        "found the same date, customer, flow, model version and split as line \(firstLine); expected one row each"
    case .dateInFuture(let date, let today):
      return "found the date \(date); expected no date after today (\(today), UTC)"
    }
  }
}

/// One problem of an outcomes file, at its (1-based) line.
public struct OutcomeProblem: Hashable, Sendable, CustomStringConvertible {
  public let source: String
  public let line: Int
  public let kind: OutcomeProblemKind

  init(source: String, line: Int, kind: OutcomeProblemKind) {
    self.source = source
    self.line = line
    self.kind = kind
  }

  /// `source:line: message`, one line.
  public var description: String { "\(source):\(line): \(kind.message)" }
}

/// Every problem found in an outcomes file, in line order: the file is refused as a whole.
public struct OutcomesError: Error, Hashable, Sendable, CustomStringConvertible {
  public let problems: [OutcomeProblem]

  public var description: String { problems.map(\.description).joined(separator: "\n") }
}
