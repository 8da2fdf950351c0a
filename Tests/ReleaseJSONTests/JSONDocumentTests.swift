import Foundation
import XCTest

@testable import ReleaseJSON

final class JSONDocumentTests: XCTestCase {
  private func parse(_ text: String, limits: JSONDocument.Limits = .init()) throws -> JSONValue {
    try JSONDocument.parse(Data(text.utf8), limits: limits)
  }

  /// The syntax error for `bytes`, as `line L, column C: message`; fails when they parse.
  private func syntaxError(
    _ bytes: [UInt8], limits: JSONDocument.Limits = .init(), file: StaticString = #filePath,
    line: UInt = #line
  ) -> String {
    do {
      let value = try JSONDocument.parse(Data(bytes), limits: limits)
      XCTFail("expected a syntax error, parsed \(value.content)", file: file, line: line)
      return ""
    } catch {
      return error.description
    }
  }

  private func syntaxError(
    _ text: String, limits: JSONDocument.Limits = .init(), file: StaticString = #filePath, line: UInt = #line
  ) -> String {
    syntaxError(Array(text.utf8), limits: limits, file: file, line: line)
  }

  // MARK: - Values and positions

  func testParsesEveryKindOfValue() throws {
    let value = try parse(#"{"a": [null, true, false, 0, -12, 1.5, -2e3, "x", {}, []]}"#)
    guard case .object(let members) = value.content, case .array(let elements) = members.first?.value.content
    else {
      return XCTFail("expected an object holding an array, got \(value.content)")
    }
    XCTAssertEqual(members.map(\.key), ["a"])
    XCTAssertEqual(
      elements.map(\.content),
      [
        .null, .bool(true), .bool(false), .integer(0), .integer(-12), .number(1.5, literal: "1.5"),
        .number(-2000, literal: "-2e3"), .string("x"), .object([]), .array([]),
      ])
  }

  func testIntegersAndNonIntegersAreDistinguishedByHowTheyAreWritten() throws {
    XCTAssertEqual(try parse("73").content, .integer(73))
    XCTAssertEqual(try parse("-0").content, .integer(0))
    XCTAssertEqual(try parse("73.0").content, .number(73, literal: "73.0"))
    XCTAssertEqual(try parse("1E2").content, .number(100, literal: "1E2"))
    XCTAssertEqual(try parse("9223372036854775807").content, .integer(Int.max))
    XCTAssertEqual(try parse("-9223372036854775808").content, .integer(Int.min))
  }

  func testRecordsLineAndColumnOfEveryValueAndKey() throws {
    let text = "[\n  {\"name\": \"é😀\", \"n\": 7},\r\n\t\"x\"\n]"
    let root = try parse(text)
    XCTAssertEqual(root.position, SourcePosition(line: 1, column: 1))
    guard case .array(let elements) = root.content, case .object(let members) = elements.first?.content else {
      return XCTFail("expected an array holding an object, got \(root.content)")
    }
    XCTAssertEqual(elements[0].position, SourcePosition(line: 2, column: 3))
    XCTAssertEqual(members[0].keyPosition, SourcePosition(line: 2, column: 4))
    XCTAssertEqual(members[0].value.position, SourcePosition(line: 2, column: 12))
    // "é😀" is two columns however many bytes it takes, so the next key is at column 18.
    XCTAssertEqual(members[1].keyPosition, SourcePosition(line: 2, column: 18))
    XCTAssertEqual(members[1].value.position, SourcePosition(line: 2, column: 23))
    // CR LF ends a line once; a tab is one column.
    XCTAssertEqual(elements[1].position, SourcePosition(line: 3, column: 2))
  }

  func testKeepsObjectMembersInDocumentOrder() throws {
    guard case .object(let members) = try parse(#"{"z": 1, "a": 2, "m": 3}"#).content else {
      return XCTFail("expected an object")
    }
    XCTAssertEqual(members.map(\.key), ["z", "a", "m"])
  }

  // MARK: - Strings

  func testDecodesEscapesAndUnicode() throws {
    XCTAssertEqual(
      try parse(#""\" \\ \/ \b \f \n \r \t \u00e9 \u00E9 \ud83d\ude00 é😀""#).content,
      .string("\" \\ / \u{8} \u{C} \n \r \t é é 😀 é😀"))
  }

  func testRejectsLoneSurrogates() {
    XCTAssertEqual(
      syntaxError(#"["ab\ud83d"]"#),
      #"line 1, column 5: lone surrogate \uD83D in string (a high surrogate must be followed by a low surrogate \uDC00-\uDFFF)"#
    )
    XCTAssertEqual(
      syntaxError(#"["\ud83d\u0041"]"#),
      #"line 1, column 3: lone surrogate \uD83D in string (a high surrogate must be followed by a low surrogate \uDC00-\uDFFF)"#
    )
    XCTAssertEqual(
      syntaxError(#"["\ude00"]"#),
      #"line 1, column 3: lone surrogate \uDE00 in string (a low surrogate must follow a high surrogate \uD800-\uDBFF)"#
    )
  }

  func testRejectsBadEscapes() {
    XCTAssertEqual(
      syntaxError(#"["a\x"]"#),
      #"line 1, column 4: invalid escape '\x' in string (valid: \" \\ \/ \b \f \n \r \t \uXXXX)"#)
    XCTAssertEqual(
      syntaxError(#"["\u12G4"]"#),
      #"line 1, column 3: invalid escape: '\u' must be followed by four hex digits, found 'G4'"#)
    XCTAssertEqual(
      syntaxError("[\"\\\n\"]"),
      #"line 1, column 3: invalid escape '\' followed by line break in string (valid: \" \\ \/ \b \f \n \r \t \uXXXX)"#
    )
  }

  func testRejectsControlCharactersAndUnterminatedStrings() {
    XCTAssertEqual(
      syntaxError("[\"a\tb\"]"),
      #"line 1, column 4: control character U+0009 in string; write it as an escape such as \t"#)
    XCTAssertEqual(
      syntaxError("[\"a\u{1}\"]"),
      #"line 1, column 4: control character U+0001 in string; write it as an escape such as \u0001"#)
    XCTAssertEqual(
      syntaxError("[\"abc,\n 1]"),
      #"line 1, column 2: unterminated string: the line ends before its closing '"'"#)
    XCTAssertEqual(
      syntaxError("[\"abc"), #"line 1, column 2: unterminated string: the file ends before its closing '"'"#)
  }

  func testRejectsInvalidUTF8() {
    let quote = UInt8(ascii: "\"")
    XCTAssertEqual(
      syntaxError([quote, 0x61, 0xFF, quote]),
      "line 1, column 3: invalid UTF-8 byte 0xFF in string; save the file as UTF-8")
    // Overlong encoding of '/', an encoded surrogate, and a sequence cut short by the closing quote.
    XCTAssertEqual(
      syntaxError([quote, 0xC0, 0xAF, quote]),
      "line 1, column 2: invalid UTF-8 byte 0xC0 in string; save the file as UTF-8")
    XCTAssertEqual(
      syntaxError([quote, 0xED, 0xA0, 0x80, quote]),
      "line 1, column 2: invalid UTF-8 byte 0xED in string; save the file as UTF-8")
    XCTAssertEqual(
      syntaxError([quote, 0xE2, 0x82, quote]),
      "line 1, column 2: invalid UTF-8 byte 0xE2 in string; save the file as UTF-8")
    XCTAssertEqual(syntaxError([0xE9]), "line 1, column 1: expected a value, found invalid UTF-8 byte 0xE9")
  }

  func testLimitsStringLength() throws {
    let limits = JSONDocument.Limits(maximumStringLength: 5)
    XCTAssertEqual(
      try parse(#"["abcde", "\u00e9\u00e9\u00e9\u00e9\u00e9"]"#, limits: limits).content,
      .array([
        JSONValue(.string("abcde"), at: SourcePosition(line: 1, column: 2)),
        JSONValue(.string("ééééé"), at: SourcePosition(line: 1, column: 11)),
      ]))
    XCTAssertEqual(
      syntaxError(#"["abcdef"]"#, limits: limits), "line 1, column 2: string is longer than 5 characters")
    XCTAssertEqual(
      syntaxError(#"{"abcdef": 1}"#, limits: limits), "line 1, column 2: string is longer than 5 characters")
    let long = String(repeating: "x", count: 1001)
    XCTAssertEqual(syntaxError("[\"\(long)\"]"), "line 1, column 2: string is longer than 1000 characters")
  }

  // MARK: - Numbers

  func testRejectsNumbersOutsideJSONGrammarOrRange() {
    XCTAssertEqual(
      syntaxError("[99999999999999999999]"),
      "line 1, column 2: integer 99999999999999999999 is out of range (-9223372036854775808...9223372036854775807)"
    )
    XCTAssertEqual(syntaxError("[1e999]"), "line 1, column 2: number 1e999 is out of range")
    XCTAssertEqual(syntaxError("[012]"), "line 1, column 2: numbers cannot have leading zeros")
    XCTAssertEqual(syntaxError("[-]"), "line 1, column 3: expected a digit after '-', found ']'")
    XCTAssertEqual(syntaxError("[1.]"), "line 1, column 4: expected a digit after '.', found ']'")
    XCTAssertEqual(syntaxError("[1e+]"), "line 1, column 5: expected a digit in the exponent, found ']'")
    XCTAssertEqual(syntaxError("[+1]"), "line 1, column 2: expected a value, found '+'")
    XCTAssertEqual(syntaxError("[.5]"), "line 1, column 2: expected a value, found '.'")
  }

  // MARK: - Structure

  func testReportsWhatWasExpectedAndWhatWasFound() {
    XCTAssertEqual(
      syntaxError("[1, 2 3]"), "line 1, column 7: expected ',' or ']' after array element, found '3'")
    XCTAssertEqual(syntaxError("{\"a\" 1}"), #"line 1, column 6: expected ':' after key "a", found '1'"#)
    XCTAssertEqual(
      syntaxError("{\"a\": 1 \"b\": 2}"),
      #"line 1, column 9: expected ',' or '}' after object member, found '"'"#)
    XCTAssertEqual(syntaxError("{a: 1}"), "line 1, column 2: expected a string key or '}', found 'a'")
    XCTAssertEqual(syntaxError("{'a': 1}"), #"line 1, column 2: expected a string key or '}', found "'""#)
    XCTAssertEqual(
      syntaxError(#"{"a": 1, 2}"#), "line 1, column 10: expected a string key after ',', found '2'")
    XCTAssertEqual(syntaxError("[True]"), "line 1, column 2: expected a value, found 'True'")
    XCTAssertEqual(syntaxError("[nulls]"), "line 1, column 2: expected a value, found 'nulls'")
    XCTAssertEqual(syntaxError("[1,\n"), "line 2, column 1: expected a value, found end of file")
    XCTAssertEqual(
      syntaxError("[\u{7}]"), "line 1, column 2: expected a value, found control character U+0007")
  }

  func testRejectsTrailingCommasAtTheComma() {
    XCTAssertEqual(
      syntaxError("[1, 2,\n]"),
      "line 1, column 6: trailing comma before ']' (JSON allows no comma after the last element)")
    XCTAssertEqual(
      syntaxError(#"{"a": 1, }"#),
      "line 1, column 8: trailing comma before '}' (JSON allows no comma after the last member)")
  }

  func testRejectsDuplicateKeysInOneObject() throws {
    XCTAssertEqual(
      syntaxError("{\"id\": 1,\n \"id\": 2}"),
      #"line 2, column 2: duplicate key "id" (first at line 1, column 2)"#)
    // The same key in different objects is fine.
    XCTAssertNoThrow(try parse(#"[{"id": 1}, {"id": 2}]"#))
  }

  func testRejectsAnythingAfterTheTopLevelValue() {
    XCTAssertEqual(
      syntaxError("[]\n]"), "line 2, column 1: expected end of file after the top-level value, found ']'")
    XCTAssertEqual(
      syntaxError("[] []"), "line 1, column 4: expected end of file after the top-level value, found '['")
  }

  func testRejectsEmptyInput() {
    XCTAssertEqual(syntaxError(""), "line 1, column 1: expected a JSON value, found an empty file")
    XCTAssertEqual(syntaxError(" \n "), "line 2, column 2: expected a JSON value, found an empty file")
  }

  func testSkipsAUTF8ByteOrderMarkAndRejectsUTF16() throws {
    let value = try JSONDocument.parse(Data([0xEF, 0xBB, 0xBF] + Array("[1]".utf8)))
    XCTAssertEqual(value.content, .array([JSONValue(.integer(1), at: SourcePosition(line: 1, column: 2))]))
    XCTAssertEqual(
      syntaxError([0xFF, 0xFE, UInt8(ascii: "["), 0, UInt8(ascii: "]"), 0]),
      "line 1, column 1: the file is UTF-16 encoded; save it as UTF-8")
  }

  func testLimitsNestingDepth() throws {
    let limits = JSONDocument.Limits(maximumDepth: 3)
    XCTAssertNoThrow(try parse(#"[{"a": []}]"#, limits: limits))
    XCTAssertEqual(
      syntaxError(#"[{"a": [[]]}]"#, limits: limits),
      "line 1, column 9: arrays and objects are nested deeper than 3 levels")
    // The default limit stops deep input long before the stack would overflow.
    let deep = String(repeating: "[", count: 100_000)
    XCTAssertEqual(
      syntaxError(deep), "line 1, column 65: arrays and objects are nested deeper than 64 levels")
  }
}
