/// One row of an outcomes export: counts for one UTC date, customer, flow and model version,
/// cumulative since the split began.
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

  init(
    line: Int, date: OutcomeDate, customer: String, flow: String, modelVersion: Int, devices: Int,
    conversions: Int
  ) {
    self.line = line
    self.date = date
    self.customer = customer
    self.flow = flow
    self.modelVersion = modelVersion
    self.devices = devices
    self.conversions = conversions
  }
}

/// The rows of a valid outcomes file.
public struct Outcomes: Hashable, Sendable {
  /// Where the rows came from (a path or URL), for messages.
  public let source: String
  public let rows: [OutcomeRow]

  init(source: String, rows: [OutcomeRow]) {
    self.source = source
    self.rows = rows
  }
}

/// Reads the CSV an analytics pipeline exports daily: the header names the columns
/// `date,customer,flow,modelVersion,devices,conversions` in any order (other columns are
/// ignored), then one row per UTC date, customer, flow and model version with counts
/// cumulative since the split began. Fields may be quoted (RFC 4180, on one line).
///
/// The whole file is checked and every problem is reported with its line, in one
/// `OutcomesError`: a missing column, a malformed value, a negative count, a count that
/// decreases from one date to the next of its series (customer, flow, model version),
/// conversions above devices, a duplicate row, a date out of order in its series or after
/// `today`, an unknown customer or flow.
public enum OutcomesReader {
  public static let requiredColumns = ["date", "customer", "flow", "modelVersion", "devices", "conversions"]

  /// - Parameters:
  ///   - known: the customers by id, each with the names of its flows.
  ///   - today: the current UTC date; a later date is an error.
  public static func read(
    _ text: String, source: String, known: [String: Set<String>], today: OutcomeDate
  ) throws(OutcomesError) -> Outcomes {
    var problems: [OutcomeProblem] = []
    func report(_ line: Int, _ kind: OutcomeProblemKind) {
      problems.append(OutcomeProblem(source: source, line: line, kind: kind))
    }

    // "\r\n" is one Character in Swift, so both line ends are named.
    // A spreadsheet's byte order mark is not part of the first column's name.
    let text = text.hasPrefix("\u{FEFF}") ? String(text.dropFirst()) : text
    var lines = text.split(omittingEmptySubsequences: false, whereSeparator: { $0 == "\n" || $0 == "\r\n" })
    while lines.last?.isEmpty == true { lines.removeLast() }
    guard let headerLine = lines.first, !headerLine.isEmpty else {
      report(1, .missingHeader)
      throw OutcomesError(problems: problems)
    }

    guard let header = fields(of: headerLine) else {
      report(1, .unterminatedQuote)
      throw OutcomesError(problems: problems)
    }
    var columnIndex: [String: Int] = [:]
    for (index, name) in header.enumerated() {
      let name = name.trimmingSpaces
      if columnIndex[name] != nil, requiredColumns.contains(name) {
        report(1, .duplicateColumn(name))
      } else if columnIndex[name] == nil {
        columnIndex[name] = index
      }
    }
    for column in requiredColumns where columnIndex[column] == nil { report(1, .missingColumn(column)) }
    guard problems.isEmpty else { throw OutcomesError(problems: problems) }

    struct SeriesKey: Hashable {
      let customer: String
      let flow: String
      let modelVersion: Int
    }
    var last: [SeriesKey: OutcomeRow] = [:]
    var seen: [SeriesKey: [OutcomeDate: Int]] = [:]
    var rows: [OutcomeRow] = []

    for (offset, text) in lines.enumerated().dropFirst() {
      let lineNumber = offset + 1
      if text.allSatisfy({ $0 == " " || $0 == "\t" }) { continue }
      guard let values = fields(of: text) else {
        report(lineNumber, .unterminatedQuote)
        continue
      }
      guard values.count == header.count else {
        report(lineNumber, .wrongFieldCount(found: values.count, expected: header.count))
        continue
      }
      func value(_ column: String) -> String { values[columnIndex[column] ?? 0].trimmingSpaces }

      var valid = true
      let dateText = value("date")
      let date = OutcomeDate(dateText)
      if date == nil {
        report(lineNumber, .malformedDate(dateText))
        valid = false
      }
      let customer = value("customer")
      let flow = value("flow")
      if let flows = known[customer] {
        if !flows.contains(flow) {
          report(lineNumber, .unknownFlow(customer: customer, flow: flow))
          valid = false
        }
      } else {
        report(lineNumber, .unknownCustomer(customer))
        valid = false
      }
      func count(_ column: String) -> Int? {
        let text = value(column)
        guard let number = Int(text) else {
          report(lineNumber, .malformedInteger(column: column, value: text))
          return nil
        }
        guard number >= 0 else {
          report(lineNumber, .negative(column: column, value: number))
          return nil
        }
        return number
      }
      let modelVersion = count("modelVersion")
      let devices = count("devices")
      let conversions = count("conversions")
      if let devices, let conversions, conversions > devices {
        report(lineNumber, .conversionsAboveDevices(conversions: conversions, devices: devices))
      }
      if let date, date > today { report(lineNumber, .dateInFuture(date: date, today: today)) }
      guard valid, let date, let modelVersion, let devices, let conversions else { continue }

      let row = OutcomeRow(
        line: lineNumber, date: date, customer: customer, flow: flow, modelVersion: modelVersion,
        devices: devices, conversions: conversions)
      let key = SeriesKey(customer: customer, flow: flow, modelVersion: modelVersion)
      if let firstLine = seen[key]?[date] {
        report(lineNumber, .duplicateRow(firstLine: firstLine))
        continue
      }
      seen[key, default: [:]][date] = lineNumber
      if let previous = last[key] {
        if date < previous.date {
          report(
            lineNumber, .dateOutOfOrder(date: date, previous: previous.date, previousLine: previous.line))
          continue
        }
        if devices < previous.devices {
          report(
            lineNumber,
            .decreasingCount(
              column: "devices", value: devices, previous: previous.devices, previousLine: previous.line))
        }
        if conversions < previous.conversions {
          report(
            lineNumber,
            .decreasingCount(
              column: "conversions", value: conversions, previous: previous.conversions,
              previousLine: previous.line))
        }
      }
      last[key] = row
      rows.append(row)
    }
    guard problems.isEmpty else { throw OutcomesError(problems: problems) }
    return Outcomes(source: source, rows: rows)
  }

  /// The fields of one CSV line; nil when a quoted field is not closed.
  static func fields(of line: Substring) -> [String]? {
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

extension String {
  fileprivate var trimmingSpaces: String {
    var text = Substring(self)
    while text.first == " " || text.first == "\t" { text = text.dropFirst() }
    while text.last == " " || text.last == "\t" { text = text.dropLast() }
    return String(text)
  }
}
