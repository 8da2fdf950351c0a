import XCTest

@testable import ReleaseEvaluation

final class OutcomesReaderTests: XCTestCase {
  let known: [String: Set<String>] = ["acme": ["checkout", "search"], "globex": ["checkout"]]
  let today = OutcomeDate("2026-05-20")!

  func read(_ text: String) throws(OutcomesError) -> Outcomes {
    try OutcomesReader.read(text, source: "outcomes.csv", known: known, today: today)
  }

  func problems(_ text: String, file: StaticString = #filePath, line: UInt = #line) -> [OutcomeProblem] {
    do {
      _ = try read(text)
      XCTFail("the file was accepted", file: file, line: line)
      return []
    } catch {
      return error.problems
    }
  }

  func testReadsRowsByColumnNameInAnyOrderWithQuotesAndCRLF() throws {
    let outcomes = try read(
      "\u{FEFF}conversions,devices,modelVersion,flow,customer,date,note\r\n"
        + "5,100,3,checkout,acme,2026-05-01,\"a, b\"\r\n"
        + "12,210,3,\"checkout\",acme,2026-05-02,\r\n\r\n")
    guard outcomes.rows.count == 2 else { return XCTFail("\(outcomes.rows)") }
    XCTAssertEqual(outcomes.skippedRows, 0)
    XCTAssertEqual(
      outcomes.rows[1],
      OutcomeRow(
        line: 3, date: OutcomeDate("2026-05-02")!, customer: "acme", flow: "checkout", modelVersion: 3,
        devices: 210, conversions: 12))
  }

  func testMissingColumnsAreNamed() {
    let found = problems("date,customer,flow,devices\n2026-05-01,acme,checkout,10\n")
    XCTAssertEqual(
      found.map(\.kind), [.missingColumn("modelVersion"), .missingColumn("conversions")])
    XCTAssertEqual(found.map(\.line), [1, 1])
    XCTAssertTrue(
      found[0].description.hasPrefix("outcomes.csv:1: found no column \"modelVersion\""), found[0].description
    )
  }

  func testEmptyFileHasNoHeader() {
    XCTAssertEqual(problems("").map(\.kind), [.missingHeader])
  }

  func testEveryMalformedValueIsReportedWithItsLineInOneRun() {
    let csv = """
      date,customer,flow,modelVersion,devices,conversions
      2026-05-01,acme,checkout,3,100,5
      2026-13-01,acme,checkout,4,1,0
      2026-05-05,acme,checkout,x4,1,0
      2026-05-05,acme,checkout,4,-3,0
      2026-05-05,acme,checkout,4,3,many
      2026-05-05,acme,checkout,4,1000000000001,1
      2026-05-05,acme,checkout,4,9000000000000000000,1
      2026-05-05,acme,checkout,4,3
      2026-05-06,acme,"checkout,4,3,1
      """
    let found = problems(csv)
    let expected: [(Int, OutcomeProblemKind)] = [
      (3, .malformedDate("2026-13-01")),
      (4, .malformedInteger(column: "modelVersion", value: "x4")),
      (5, .negative(column: "devices", value: -3)),
      (6, .malformedInteger(column: "conversions", value: "many")),
      (7, .tooLarge(column: "devices", value: "1000000000001", limit: "10^12")),
      (8, .tooLarge(column: "devices", value: "9000000000000000000", limit: "10^12")),
      (9, .wrongFieldCount(found: 5, expected: 6)),
      (10, .unterminatedQuote),
    ]
    XCTAssertEqual(found.map(\.line), expected.map(\.0), found.map(\.description).joined(separator: "\n"))
    XCTAssertEqual(found.map(\.kind), expected.map(\.1))
    for problem in found {
      XCTAssertTrue(
        problem.description.hasPrefix("outcomes.csv:\(problem.line): found "), problem.description)
      XCTAssertTrue(problem.description.contains("expected"), problem.description)
      XCTAssertFalse(problem.description.contains("\n"), problem.description)
    }
    XCTAssertEqual(
      found[4].description, "outcomes.csv:7: found devices 1000000000001; expected at most 10^12")
  }

  /// An inconsistent series sets only itself aside; rows out of order are sorted first, and
  /// rows of customers or flows not judged are skipped and counted.
  func testInconsistentSeriesAreSetAsideAndTheRestRead() throws {
    let csv = """
      date,customer,flow,modelVersion,devices,conversions
      2026-05-02,acme,checkout,3,120,6
      2026-05-01,acme,checkout,3,100,5
      2026-05-01,acme,checkout,4,100,5
      2026-05-02,acme,checkout,4,90,6
      2026-05-03,acme,checkout,4,120,4
      2026-05-03,acme,checkout,4,120,7
      2026-05-04,acme,search,3,130,140
      2026-05-21,acme,search,5,3,1
      2026-05-05,initech,checkout,4,3,1
      2026-05-05,globex,search,4,3,1
      """
    let outcomes = try read(csv)
    XCTAssertEqual(outcomes.rows.map(\.line), [3, 2], "the good series, sorted by date")
    XCTAssertEqual(outcomes.skippedRows, 2)
    func key(_ flow: String, _ version: Int) -> SeriesKey {
      SeriesKey(customer: "acme", flow: flow, modelVersion: version, splitStart: nil)
    }
    XCTAssertEqual(
      outcomes.badSeries[key("checkout", 4)]?.map(\.kind),
      [
        .decreasingCount(column: "devices", value: 90, previous: 100, previousLine: 4),
        .decreasingCount(column: "conversions", value: 4, previous: 6, previousLine: 5),
        .duplicateRow(firstLine: 6),
      ])
    XCTAssertEqual(
      outcomes.badSeries[key("search", 3)]?.map(\.kind),
      [.conversionsAboveDevices(conversions: 140, devices: 130)])
    XCTAssertEqual(
      outcomes.badSeries[key("search", 5)]?.map(\.kind),
      [.dateInFuture(date: OutcomeDate("2026-05-21")!, today: today)])
  }

  func testSplitStartAndRevenueColumnsAreRead() throws {
    let outcomes = try read(
      "date,customer,flow,modelVersion,devices,conversions,splitStart,revenue,revenueSquares\n"
        + "2026-05-02,acme,checkout,3,10,2,2026-05-01,12.5,100.25\n"
        + "2026-05-03,acme,checkout,3,5,1,2026-05-03,4,16\n")
    XCTAssertEqual(outcomes.rows.map(\.splitStart), [OutcomeDate("2026-05-01"), OutcomeDate("2026-05-03")])
    XCTAssertEqual(outcomes.rows.first?.revenue, RevenueSums(sum: 12.5, squares: 100.25))
    XCTAssertEqual(
      problems("date,customer,flow,modelVersion,devices,conversions,revenue\n").map(\.kind),
      [
        .missingColumn("revenueSquares")
      ])
    XCTAssertEqual(
      problems(
        "date,customer,flow,modelVersion,devices,conversions,revenue,revenueSquares\n"
          + "2026-05-02,acme,checkout,3,10,2,lots,1\n2026-05-02,acme,checkout,4,10,2,1e16,1\n"
      ).map(\.kind),
      [
        .malformedNumber(column: "revenue", value: "lots"),
        .tooLarge(column: "revenue", value: "1e16", limit: "1e+15"),
      ])
  }

  func testANonUTF8ByteIsNamedByItsLine() {
    var data = Data(
      "date,customer,flow,modelVersion,devices,conversions\n2026-05-01,acme,checkout,3,10,1\n".utf8)
    data += Data([0x32, 0x30, 0xFF, 0x0A])
    do {
      _ = try OutcomesReader.read(data: data, source: "o.csv", known: known, today: today)
      XCTFail("accepted")
    } catch {
      XCTAssertEqual(
        error.problems.map(\.description),
        ["o.csv:3: found bytes that are not UTF-8; expected a UTF-8 text file"])
    }
  }

  func testDuplicateHeaderColumn() {
    let found = problems("date,customer,flow,modelVersion,devices,conversions,devices\n")
    XCTAssertEqual(found.map(\.kind), [.duplicateColumn("devices")])
  }

  func testDatesAreStrictCalendarDates() {
    XCTAssertNotNil(OutcomeDate("2024-02-29"))
    XCTAssertNil(OutcomeDate("2023-02-29"))
    XCTAssertNil(OutcomeDate("2026-5-01"))
    XCTAssertNil(OutcomeDate("2026-05-01T00"))
    XCTAssertEqual(OutcomeDate("2026-05-01")!.adding(days: 31).description, "2026-06-01")
    XCTAssertEqual(
      OutcomeDate(utcDayOf: Date(timeIntervalSince1970: 86_400 * 365 - 1)).description, "1970-12-31")
    XCTAssertEqual(OutcomeDate("2000-03-01")!.daysSinceEpoch, 11_017)
  }
}
