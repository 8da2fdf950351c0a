import Foundation
import ReleaseTestSupport
import XCTest

@testable import ReleaseReporting

final class LogExcerptTests: XCTestCase {
  private func log(_ lines: [String]) throws -> URL {
    let url = FileManager.default.temporaryDirectory.appendingPathComponent(
      "log-excerpt-\(UUID().uuidString).log")
    try lines.joined(separator: "\n").write(to: url, atomically: true, encoding: .utf8)
    addTeardownBlock { try? FileManager.default.removeItem(at: url) }
    return url
  }

  func testTheErrorLinesAboveTheTailAreShownFirst() throws {
    let filler = (1...30).map { "Test Case 'T.test\($0)' passed" }
    let url = try log(
      ["Compiling"] + filler.prefix(10) + ["/p/A.swift:3: error: T.testA : XCTAssertEqual failed"]
        + filler.dropFirst(10) + ["✘ Test b() recorded an issue", "tail 1", "tail 2"])
    let excerpt = LogExcerpt.failure(of: url, tail: 3)
    XCTAssertEqual(
      excerpt,
      [
        "/p/A.swift:3: error: T.testA : XCTAssertEqual failed", "…", "✘ Test b() recorded an issue", "tail 1",
        "tail 2",
      ])
  }

  func testWithoutErrorLinesItIsTheTailAndTheFirstTenErrorsAreKept() throws {
    XCTAssertEqual(LogExcerpt.failure(of: try log(["a", "b", "c"]), tail: 2), ["b", "c"])
    let errors = (1...15).map { "f.swift:\($0):1: error: e\($0)" }
    let excerpt = LogExcerpt.failure(of: try log(errors + ["end"]), tail: 1)
    XCTAssertEqual(excerpt, Array(errors.prefix(10)) + ["…", "end"])
  }

  func testAHugeLogIsReadFromItsEndWithoutAPartialFirstLine() throws {
    let line = String(repeating: "x", count: 999) + ": error: long"
    let count = Int(LogExcerpt.readLimit) / (line.utf8.count + 1) + 5
    let excerpt = LogExcerpt.failure(of: try log(Array(repeating: line, count: count) + ["end"]), tail: 1)
    XCTAssertEqual(excerpt, Array(repeating: line, count: LogExcerpt.errorLineLimit) + ["…", "end"])
  }
  func testAMissingLogIsNothing() {
    XCTAssertEqual(LogExcerpt.failure(of: URL(fileURLWithPath: "/nonexistent/log"), tail: 5), [])
  }
}
