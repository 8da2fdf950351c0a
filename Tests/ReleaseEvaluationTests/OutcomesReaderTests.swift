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

  func testEveryKindOfBadRowIsReportedWithItsLineInOneRun() {
    let csv = """
      date,customer,flow,modelVersion,devices,conversions
      2026-05-01,acme,checkout,3,100,5
      2026-05-02,acme,checkout,3,90,6
      2026-05-03,acme,checkout,3,120,4
      2026-05-03,acme,checkout,3,120,7
      2026-05-02,acme,search,3,10,1
      2026-05-01,acme,search,3,12,1
      2026-05-04,acme,checkout,3,130,140
      2026-13-01,acme,checkout,4,1,0
      2026-05-05,acme,checkout,x4,1,0
      2026-05-05,acme,checkout,4,-3,0
      2026-05-05,acme,checkout,4,3,many
      2026-05-21,acme,checkout,4,3,1
      2026-05-05,initech,checkout,4,3,1
      2026-05-05,globex,search,4,3,1
      2026-05-05,acme,checkout,4,3
      2026-05-06,acme,"checkout,4,3,1
      """
    let found = problems(csv)
    let expected: [(Int, OutcomeProblemKind)] = [
      (3, .decreasingCount(column: "devices", value: 90, previous: 100, previousLine: 2)),
      (4, .decreasingCount(column: "conversions", value: 4, previous: 6, previousLine: 3)),
      (5, .duplicateRow(firstLine: 4)),
      (
        7,
        .dateOutOfOrder(
          date: OutcomeDate("2026-05-01")!, previous: OutcomeDate("2026-05-02")!, previousLine: 6)
      ),
      (8, .conversionsAboveDevices(conversions: 140, devices: 130)),
      (9, .malformedDate("2026-13-01")),
      (10, .malformedInteger(column: "modelVersion", value: "x4")),
      (11, .negative(column: "devices", value: -3)),
      (12, .malformedInteger(column: "conversions", value: "many")),
      (13, .dateInFuture(date: OutcomeDate("2026-05-21")!, today: today)),
      (14, .unknownCustomer("initech")),
      (15, .unknownFlow(customer: "globex", flow: "search")),
      (16, .wrongFieldCount(found: 5, expected: 6)),
      (17, .unterminatedQuote),
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
      found[0].description,
      "outcomes.csv:3: found devices 90, down from 100 on line 2; expected a cumulative count that never decreases"
    )
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
