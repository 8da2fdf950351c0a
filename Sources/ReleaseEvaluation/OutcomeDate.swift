import Foundation

/// A UTC calendar date as the outcomes export writes it: `YYYY-MM-DD`.
public struct OutcomeDate: Hashable, Comparable, Sendable, CustomStringConvertible {
  public let year: Int
  public let month: Int
  public let day: Int

  public init?(year: Int, month: Int, day: Int) {
    guard (1...9999).contains(year), (1...12).contains(month),
      (1...Self.days(inMonth: month, year: year)).contains(day)
    else { return nil }
    self.year = year
    self.month = month
    self.day = day
  }

  /// Parses exactly `YYYY-MM-DD` (digits only, a real calendar date).
  public init?(_ text: String) {
    let bytes = Array(text.utf8)
    guard bytes.count == 10, bytes[4] == UInt8(ascii: "-"), bytes[7] == UInt8(ascii: "-") else { return nil }
    func number(_ range: Range<Int>) -> Int? {
      var value = 0
      for byte in bytes[range] {
        guard (UInt8(ascii: "0")...UInt8(ascii: "9")).contains(byte) else { return nil }
        value = value * 10 + Int(byte - UInt8(ascii: "0"))
      }
      return value
    }
    guard let year = number(0..<4), let month = number(5..<7), let day = number(8..<10) else { return nil }
    self.init(year: year, month: month, day: day)
  }

  /// The UTC date of an instant (for the "today" a run checks future dates against).
  public init(utcDayOf instant: Date) {
    let days = Int((instant.timeIntervalSince1970 / 86_400).rounded(.down))
    self.init(daysSinceEpoch: days)
  }

  /// Days since 1970-01-01 (negative before), by Howard Hinnant's `civil_from_days`.
  init(daysSinceEpoch: Int) {
    let z = daysSinceEpoch + 719_468
    let era = (z >= 0 ? z : z - 146_096) / 146_097
    let dayOfEra = z - era * 146_097
    let yearOfEra = (dayOfEra - dayOfEra / 1_460 + dayOfEra / 36_524 - dayOfEra / 146_096) / 365
    let dayOfYear = dayOfEra - (365 * yearOfEra + yearOfEra / 4 - yearOfEra / 100)
    let shiftedMonth = (5 * dayOfYear + 2) / 153
    day = dayOfYear - (153 * shiftedMonth + 2) / 5 + 1
    month = shiftedMonth < 10 ? shiftedMonth + 3 : shiftedMonth - 9
    year = yearOfEra + era * 400 + (month <= 2 ? 1 : 0)
  }

  /// Days since 1970-01-01, by Howard Hinnant's `days_from_civil`.
  var daysSinceEpoch: Int {
    let shiftedYear = month <= 2 ? year - 1 : year
    let era = (shiftedYear >= 0 ? shiftedYear : shiftedYear - 399) / 400
    let yearOfEra = shiftedYear - era * 400
    let dayOfYear = (153 * (month > 2 ? month - 3 : month + 9) + 2) / 5 + day - 1
    let dayOfEra = yearOfEra * 365 + yearOfEra / 4 - yearOfEra / 100 + dayOfYear
    return era * 146_097 + dayOfEra - 719_468
  }

  /// The date `count` days later (earlier when negative).
  public func adding(days count: Int) -> OutcomeDate { OutcomeDate(daysSinceEpoch: daysSinceEpoch + count) }

  public var description: String {
    func padded(_ value: Int, _ width: Int) -> String {
      let digits = String(value)
      return String(repeating: "0", count: max(0, width - digits.count)) + digits
    }
    return "\(padded(year, 4))-\(padded(month, 2))-\(padded(day, 2))"
  }

  public static func < (lhs: OutcomeDate, rhs: OutcomeDate) -> Bool { lhs.ordinal < rhs.ordinal }

  /// YYYYMMDD as one number: ordered as the dates are.
  private var ordinal: Int { (year * 100 + month) * 100 + day }

  private static func days(inMonth month: Int, year: Int) -> Int {
    switch month {
    case 2: return year % 4 == 0 && (year % 100 != 0 || year % 400 == 0) ? 29 : 28
    case 4, 6, 9, 11: return 30
    default: return 31
    }
  }
}

/// As the string `YYYY-MM-DD` (how `rollouts.json` records the start of a split).
extension OutcomeDate: Codable {
  public init(from decoder: any Decoder) throws {
    let container = try decoder.singleValueContainer()
    let text = try container.decode(String.self)
    guard let date = OutcomeDate(text) else {
      throw DecodingError.dataCorruptedError(
        in: container, debugDescription: "found \"\(text)\"; expected a UTC date as YYYY-MM-DD")
    }
    self = date
  }

  public func encode(to encoder: any Encoder) throws {
    var container = encoder.singleValueContainer()
    try container.encode(description)
  }
}
