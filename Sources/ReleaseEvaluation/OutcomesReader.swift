import Foundation

/// One row of an outcomes export: counts for one UTC date, customer, flow, model version and
/// split, cumulative since that split began.
public struct OutcomeRow: Hashable, Sendable {
  /// The (1-based) line of the file the row came from.
  public let line: Int
  public let date: OutcomeDate
  public let customer: String
  public let flow: String
  public let modelVersion: Int
  /// Distinct devices (able to take the challenger) that ran this model version of the flow.
  public let devices: Int
  /// How many of those devices converted, each at most once.
  public let conversions: Int
  /// The UTC date the row's split began (column `splitStart`); nil when the export has no
  /// such column, and its counts restart at each split.
  public let splitStart: OutcomeDate?
  /// The sum over the devices of each one's (capped) revenue, and the sum of its squares
  /// (columns `revenue`, `revenueSquares`); nil when the export has none.
  public let revenue: RevenueSums?

  init(
    line: Int, date: OutcomeDate, customer: String, flow: String, modelVersion: Int, devices: Int,
    conversions: Int, splitStart: OutcomeDate? = nil, revenue: RevenueSums? = nil
  ) {
    self.line = line
    self.date = date
    self.customer = customer
    self.flow = flow
    self.modelVersion = modelVersion
    self.devices = devices
    self.conversions = conversions
    self.splitStart = splitStart
    self.revenue = revenue
  }

  var series: SeriesKey {
    SeriesKey(customer: customer, flow: flow, modelVersion: modelVersion, splitStart: splitStart)
  }
}

/// Per-device revenue of an arm: Σ revenue and Σ revenue², each device's revenue capped by the
/// export.
public struct RevenueSums: Hashable, Sendable {
  public let sum: Double
  public let squares: Double
}

/// Rows whose counts are cumulative together: one customer, flow, model version and split.
public struct SeriesKey: Hashable, Sendable {
  public let customer: String
  public let flow: String
  public let modelVersion: Int
  public let splitStart: OutcomeDate?
}

/// The rows of a readable outcomes file.
public struct Outcomes: Hashable, Sendable {
  /// Where the rows came from (a path or URL), for messages.
  public let source: String
  /// The rows of every consistent series, each series' rows by date.
  public let rows: [OutcomeRow]
  /// Rows of customers or flows that are not being judged: skipped.
  public let skippedRows: Int
  /// What is wrong with each inconsistent series; its rows are not in `rows`, and a challenger
  /// judged on one of them is `invalid`.
  public let badSeries: [SeriesKey: [OutcomeProblem]]
  /// The rows of each inconsistent series without `splitStart`, by date: such an export
  /// restarts its counts at each split, which the reader (knowing no splits) sees as a
  /// decrease; the judge checks them again from the current split's first date (`PairRows`).
  let badSeriesRows: [SeriesKey: [OutcomeRow]]

  init(
    source: String, rows: [OutcomeRow], skippedRows: Int = 0, badSeries: [SeriesKey: [OutcomeProblem]] = [:],
    badSeriesRows: [SeriesKey: [OutcomeRow]] = [:]
  ) {
    self.source = source
    self.rows = rows
    self.skippedRows = skippedRows
    self.badSeries = badSeries
    self.badSeriesRows = badSeriesRows
  }
}

/// Reads the CSV an analytics pipeline exports daily: the header names the columns
/// `date,customer,flow,modelVersion,devices,conversions` in any order, optionally
/// `splitStart` and `revenue,revenueSquares` (other columns are ignored), then one row per
/// UTC date, customer, flow, model version (and split) with counts cumulative since the split
/// began. Fields may be quoted (RFC 4180, on one line).
///
/// A file that cannot be read as such is refused as a whole with every problem and its line
/// (`OutcomesError`): no header, a missing column, a malformed or negative value, a count above
/// 10^12, a line that is not UTF-8. Rows of customers or flows that are not judged are
/// skipped and counted. Each series' rows are sorted by date and then checked: a count that
/// decreases, conversions above devices, two rows of one date, a date after `today` make that
/// series bad (`Outcomes.badSeries`), and only the challengers judged on it `invalid`.
public enum OutcomesReader {
  public static let requiredColumns = ["date", "customer", "flow", "modelVersion", "devices", "conversions"]
  /// The largest count accepted: far above any real number of devices, far below where
  /// arithmetic on counts could overflow.
  public static let maximumCount = 1_000_000_000_000
  /// The largest revenue sum (and square root of the sum of squares) accepted.
  public static let maximumRevenue = 1e15

  /// Decodes the file's bytes as UTF-8, naming the first line that is not, then reads it.
  public static func read(
    data: Data, source: String, known: [String: Set<String>], today: OutcomeDate
  ) throws(OutcomesError) -> Outcomes {
    guard let text = String(data: data, encoding: .utf8) else {
      var line = 1
      for chunk in data.split(separator: UInt8(ascii: "\n"), omittingEmptySubsequences: false) {
        if String(data: Data(chunk), encoding: .utf8) == nil { break }
        line += 1
      }
      throw OutcomesError(problems: [OutcomeProblem(source: source, line: line, kind: .notUTF8)])
    }
    return try read(text, source: source, known: known, today: today)
  }

  /// - Parameters:
  ///   - known: the customers judged, by id, each with the names of its flows judged.
  ///   - today: the current UTC date; a later date makes its series bad.
  public static func read(
    _ text: String, source: String, known: [String: Set<String>], today: OutcomeDate
  ) throws(OutcomesError) -> Outcomes {
    // "\r\n" is one Character in Swift, so both line ends are named.
    // A spreadsheet's byte order mark is not part of the first column's name.
    let text = text.hasPrefix("\u{FEFF}") ? String(text.dropFirst()) : text
    var lines = text.split(omittingEmptySubsequences: false, whereSeparator: { $0 == "\n" || $0 == "\r\n" })
    while lines.last?.isEmpty == true { lines.removeLast() }
    let header = try Header(lines.first, source: source)
    var parser = RowParser(header: header, source: source, known: known)
    for (offset, line) in lines.enumerated().dropFirst() {
      parser.parse(line, lineNumber: offset + 1)
    }
    guard parser.problems.isEmpty else { throw OutcomesError(problems: parser.problems) }
    return checkedSeries(parser.rows, source: source, today: today, skipped: parser.skipped)
  }

  /// Groups the rows by series, sorts each by date, and sets aside the inconsistent ones.
  static func checkedSeries(_ rows: [OutcomeRow], source: String, today: OutcomeDate, skipped: Int)
    -> Outcomes
  {
    var bySeries: [SeriesKey: [OutcomeRow]] = [:]
    for row in rows { bySeries[row.series, default: []].append(row) }
    var good: [OutcomeRow] = []
    var bad: [SeriesKey: [OutcomeProblem]] = [:]
    var badRows: [SeriesKey: [OutcomeRow]] = [:]
    let keys = bySeries.keys.sorted { (bySeries[$0]?.first?.line ?? 0) < (bySeries[$1]?.first?.line ?? 0) }
    for key in keys {
      let series = (bySeries[key] ?? []).sorted { ($0.date, $0.line) < ($1.date, $1.line) }
      let problems = seriesProblems(series, today: today).map {
        OutcomeProblem(source: source, line: $0.0, kind: $0.1)
      }
      if problems.isEmpty {
        good += series
      } else {
        bad[key] = problems.sorted { $0.line < $1.line }
        if key.splitStart == nil { badRows[key] = series }
      }
    }
    return Outcomes(source: source, rows: good, skippedRows: skipped, badSeries: bad, badSeriesRows: badRows)
  }

  /// The problems of one series, its rows sorted by date.
  static func seriesProblems(_ series: [OutcomeRow], today: OutcomeDate) -> [(Int, OutcomeProblemKind)] {
    var problems: [(Int, OutcomeProblemKind)] = []
    var previous: OutcomeRow?
    for row in series {
      if row.conversions > row.devices {
        problems.append(
          (row.line, .conversionsAboveDevices(conversions: row.conversions, devices: row.devices)))
      }
      if row.date > today { problems.append((row.line, .dateInFuture(date: row.date, today: today))) }
      defer { previous = row }
      guard let previous else { continue }
      if previous.date == row.date {
        problems.append((row.line, .duplicateRow(firstLine: previous.line)))
        continue
      }
      if row.devices < previous.devices {
        problems.append(
          (
            row.line,
            .decreasingCount(
              column: "devices", value: row.devices, previous: previous.devices, previousLine: previous.line)
          ))
      }
      if row.conversions < previous.conversions {
        problems.append(
          (
            row.line,
            .decreasingCount(
              column: "conversions", value: row.conversions, previous: previous.conversions,
              previousLine: previous.line)
          ))
      }
    }
    return problems
  }

  /// The fields of one CSV line; nil when a quoted field is not closed.
  static func fields(of line: Substring) -> [String]? {
    if !line.utf8.contains(UInt8(ascii: "\"")) {
      return line.split(separator: ",", omittingEmptySubsequences: false).map(String.init)
    }
    var fields: [String] = []
    var field = ""
    var quoted = false
    var index = line.startIndex
    while index < line.endIndex {
      let character = line[index]
      if quoted {
        if character == "\"" {
          let next = line.index(after: index)
          if next < line.endIndex, line[next] == "\"" {
            field.append("\"")
            index = next
          } else {
            quoted = false
          }
        } else {
          field.append(character)
        }
      } else if character == "\"" {
        quoted = true
      } else if character == "," {
        fields.append(field)
        field = ""
      } else {
        field.append(character)
      }
      index = line.index(after: index)
    }
    guard !quoted else { return nil }
    fields.append(field)
    return fields
  }
}

/// The header line: where each column is.
struct Header {
  let count: Int
  let index: [String: Int]
  var hasSplitStart: Bool { index["splitStart"] != nil }
  var hasRevenue: Bool { index["revenue"] != nil }

  static let optionalColumns = ["splitStart", "revenue", "revenueSquares"]

  init(_ line: Substring?, source: String) throws(OutcomesError) {
    func fail(_ kind: OutcomeProblemKind) -> OutcomesError {
      OutcomesError(problems: [OutcomeProblem(source: source, line: 1, kind: kind)])
    }
    guard let line, !line.isEmpty else { throw fail(.missingHeader) }
    guard let names = OutcomesReader.fields(of: line) else { throw fail(.unterminatedQuote) }
    var problems: [OutcomeProblem] = []
    var index: [String: Int] = [:]
    let named = OutcomesReader.requiredColumns + Self.optionalColumns
    for (position, name) in names.enumerated() {
      let name = name.trimmingSpaces
      if index[name] != nil, named.contains(name) {
        problems.append(OutcomeProblem(source: source, line: 1, kind: .duplicateColumn(name)))
      } else if index[name] == nil {
        index[name] = position
      }
    }
    var required = OutcomesReader.requiredColumns
    if index["revenue"] != nil || index["revenueSquares"] != nil {
      required += ["revenue", "revenueSquares"]
    }
    for column in required where index[column] == nil {
      problems.append(OutcomeProblem(source: source, line: 1, kind: .missingColumn(column)))
    }
    guard problems.isEmpty else { throw OutcomesError(problems: problems) }
    self.count = names.count
    self.index = index
  }
}

/// Parses the rows one line at a time, collecting every problem.
struct RowParser {
  let header: Header
  let source: String
  let known: [String: Set<String>]
  var rows: [OutcomeRow] = []
  var problems: [OutcomeProblem] = []
  var skipped = 0

  init(header: Header, source: String, known: [String: Set<String>]) {
    self.header = header
    self.source = source
    self.known = known
  }

  mutating func report(_ line: Int, _ kind: OutcomeProblemKind) {
    problems.append(OutcomeProblem(source: source, line: line, kind: kind))
  }

  mutating func parse(_ text: Substring, lineNumber: Int) {
    if text.allSatisfy({ $0 == " " || $0 == "\t" }) { return }
    guard let values = OutcomesReader.fields(of: text) else { return report(lineNumber, .unterminatedQuote) }
    guard values.count == header.count else {
      return report(lineNumber, .wrongFieldCount(found: values.count, expected: header.count))
    }
    let index = header.index
    let field = { (column: String) in values[index[column] ?? 0].trimmingSpaces }
    let before = problems.count
    let date = self.date(field("date"), lineNumber)
    let splitStart = header.hasSplitStart ? self.date(field("splitStart"), lineNumber) : nil
    let modelVersion = count("modelVersion", field("modelVersion"), lineNumber)
    let devices = count("devices", field("devices"), lineNumber)
    let conversions = count("conversions", field("conversions"), lineNumber)
    var revenue: RevenueSums?
    if header.hasRevenue,
      let sum = amount("revenue", field("revenue"), lineNumber, limit: OutcomesReader.maximumRevenue),
      let squares = amount(
        "revenueSquares", field("revenueSquares"), lineNumber,
        limit: OutcomesReader.maximumRevenue * OutcomesReader.maximumRevenue)
    {
      revenue = RevenueSums(sum: sum, squares: squares)
    }
    guard problems.count == before, let date, let modelVersion, let devices, let conversions else { return }
    let customer = field("customer")
    let flow = field("flow")
    guard known[customer]?.contains(flow) == true else {
      skipped += 1
      return
    }
    rows.append(
      OutcomeRow(
        line: lineNumber, date: date, customer: customer, flow: flow, modelVersion: modelVersion,
        devices: devices, conversions: conversions, splitStart: splitStart, revenue: revenue))
  }

  private mutating func date(_ text: String, _ line: Int) -> OutcomeDate? {
    guard let date = OutcomeDate(text) else {
      report(line, .malformedDate(text))
      return nil
    }
    return date
  }

  private mutating func count(_ column: String, _ text: String, _ line: Int) -> Int? {
    guard let number = Int(text) else {
      report(line, .malformedInteger(column: column, value: String(text.prefix(40))))
      return nil
    }
    guard number >= 0 else {
      report(line, .negative(column: column, value: Double(number)))
      return nil
    }
    guard number <= OutcomesReader.maximumCount else {
      report(line, .tooLarge(column: column, value: text, limit: "10^12"))
      return nil
    }
    return number
  }

  private mutating func amount(_ column: String, _ text: String, _ line: Int, limit: Double) -> Double? {
    guard let number = Double(text), number.isFinite else {
      report(line, .malformedNumber(column: column, value: String(text.prefix(40))))
      return nil
    }
    guard number >= 0 else {
      report(line, .negative(column: column, value: number))
      return nil
    }
    guard number <= limit else {
      report(
        line, .tooLarge(column: column, value: String(text.prefix(40)), limit: String(format: "%.0e", limit)))
      return nil
    }
    return number
  }
}

extension String {
  fileprivate var trimmingSpaces: String {
    var text = Substring(self)
    while text.first == " " || text.first == "\t" { text = text.dropFirst() }
    while text.last == " " || text.last == "\t" { text = text.dropLast() }
    return String(text)
  }
}
