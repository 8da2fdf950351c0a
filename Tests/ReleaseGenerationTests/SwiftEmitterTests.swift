import Foundation
import ReleaseGeneration
import ReleaseSystem
import XCTest

final class SwiftEmitterTests: XCTestCase {
  static let hostileStrings = [
    "",
    "plain",
    "quote \" inside",
    "backslash \\ inside",
    "trailing backslash \\",
    "interpolation \\(1 + 1) attempt",
    "\\\\(nested)",
    "triple \"\"\" quotes",
    "#\"raw\"#",
    "line\nbreak\r\nand\ttab",
    "nul \u{0} and bell \u{7} and delete \u{7f}",
    "bidi \u{202e}override\u{202c} and zero width \u{200b}",
    "line separator \u{2028} paragraph \u{2029}",
    "emoji 👩‍👩‍👧 and flag 🇳🇴",
    "\u{301} leading combining mark",
    "é precomposed, e\u{301} decomposed",
    "private use \u{e000}",
    "\"); fatalError(\"injected",
    "*/ /* comment",
    "{{placeholder}}",
  ]

  func testEscapesQuotesBackslashesAndControlCharacters() {
    XCTAssertEqual(SwiftEmitter.stringLiteral("a\"b").source, #""a\"b""#)
    XCTAssertEqual(SwiftEmitter.stringLiteral("a\\b").source, #""a\\b""#)
    XCTAssertEqual(SwiftEmitter.stringLiteral("\\(x)").source, #""\\(x)""#)
    XCTAssertEqual(SwiftEmitter.stringLiteral("a\nb\tc\rd").source, #""a\nb\tc\rd""#)
    XCTAssertEqual(SwiftEmitter.stringLiteral("\u{0}\u{1b}\u{7f}").source, #""\u{0}\u{1b}\u{7f}""#)
    XCTAssertEqual(SwiftEmitter.stringLiteral("\u{202e}").source, #""\u{202e}""#)
    XCTAssertEqual(SwiftEmitter.stringLiteral("héllo 🙂").source, "\"héllo 🙂\"")
  }

  func testStringLiteralsStayOnOneLine() {
    for text in Self.hostileStrings {
      let source = SwiftEmitter.stringLiteral(text).source
      XCTAssertFalse(source.unicodeScalars.contains { $0.properties.generalCategory == .control }, source)
    }
  }

  func testIntegerLiterals() {
    XCTAssertEqual(SwiftEmitter.integerLiteral(8362).source, "8362")
    XCTAssertEqual(SwiftEmitter.integerLiteral(-5).source, "-5")
    XCTAssertEqual(SwiftEmitter.integerLiteral(Int64.max).source, "9223372036854775807")
  }

  func testIdentifiersAreValidatedAndKeywordsBackticked() throws {
    XCTAssertEqual(try SwiftEmitter.identifier("flowName").source, "flowName")
    XCTAssertEqual(try SwiftEmitter.identifier("_private2").source, "_private2")
    XCTAssertEqual(try SwiftEmitter.identifier("class").source, "`class`")
    XCTAssertEqual(try SwiftEmitter.identifier("Self").source, "`Self`")
    for invalid in ["", "_", "2fast", "with space", "dash-ed", "a.b", "`x`", "$0", "café", "a\u{0}"] {
      XCTAssertThrowsError(try SwiftEmitter.identifier(invalid), invalid) { error in
        XCTAssertEqual(error as? GenerationError, .invalidIdentifier(found: invalid))
      }
    }
  }

  func testArrays() {
    let strings = ["a", "b\""].map(SwiftEmitter.stringLiteral)
    XCTAssertEqual(SwiftEmitter.arrayLiteral(strings).source, #"["a", "b\""]"#)
    XCTAssertEqual(SwiftEmitter.arrayLiteral([]).source, "[]")
    XCTAssertEqual(
      SwiftEmitter.multilineArrayLiteral(strings, indentationLevel: 1).source,
      "[\n    \"a\",\n    \"b\\\"\",\n  ]")
    XCTAssertEqual(SwiftEmitter.multilineArrayLiteral([], indentationLevel: 1).source, "[]")
    XCTAssertEqual(SwiftEmitter.multilineArrayLiteral([strings[0]], indentationLevel: 1).source, #"["a"]"#)
  }

  func testImportsAreSortedByModuleWhateverTheirKind() throws {
    XCTAssertEqual(
      try SwiftEmitter.imports(["ContextSDKCore"], exported: ["ContextSDKConversion", "ContextSDKATT"])
        .source,
      "@_exported import ContextSDKATT\n@_exported import ContextSDKConversion\nimport ContextSDKCore")
    XCTAssertThrowsError(try SwiftEmitter.imports([], exported: ["Context SDK"]))
  }

  /// Compiles the emitted literals with the real compiler and checks that the program sees
  /// exactly the original strings (scalar for scalar, not just canonically equal).
  func testEmittedStringLiteralsRoundTripThroughTheCompiler() throws {
    let directory = try GenerationFixtures.temporaryDirectory(self)
    let literals = Self.hostileStrings.map { "  " + SwiftEmitter.stringLiteral($0).source + "," }
    let program = """
      import Foundation
      let values: [String] = [
      \(literals.joined(separator: "\n"))
      ]
      // One line of UTF-8 bytes per value, so the output is unambiguous whatever the values hold.
      for value in values { print(Array(value.utf8).map { String($0) }.joined(separator: " ")) }
      """
    let source = directory.appendingPathComponent("main.swift")
    try program.write(to: source, atomically: true, encoding: .utf8)
    let executable = directory.appendingPathComponent("roundtrip")
    let runner = SystemProcessRunner()
    let compiled = try runner.run(
      ProcessInvocation("swiftc", [source.path, "-o", executable.path], in: directory))
    XCTAssertEqual(compiled.exitCode, 0, compiled.standardError)
    guard compiled.exitCode == 0 else { return }
    let ran = try runner.run(ProcessInvocation(executable.path, []))
    XCTAssertEqual(ran.exitCode, 0, ran.standardError)
    let printed = ran.standardOutput.split(separator: "\n", omittingEmptySubsequences: false).dropLast().map {
      line in
      String(decoding: line.split(separator: " ").compactMap { UInt8($0) }, as: UTF8.self)
    }
    XCTAssertEqual(printed.count, Self.hostileStrings.count)
    for (original, roundTripped) in zip(Self.hostileStrings, printed) {
      XCTAssertEqual(
        Array(roundTripped.unicodeScalars), Array(original.unicodeScalars), original.debugDescription)
    }
  }
}
