import Foundation
import XCTest

@testable import ReleaseJSON

/// A small format decoded through `JSONValueDecoder`, the way the project's readers are:
/// `{"name": String, "tags": [String], "points": [{"x": Int, "y": Int}]}`.
private struct Shape: JSONValueDecodable, Equatable {
  static let keys = ["name", "tags", "points"]

  struct Point: JSONValueDecodable, Equatable {
    var x: Int
    var y: Int

    init(x: Int, y: Int) {
      self.x = x
      self.y = y
    }

    init?(from decoder: JSONValueDecoder) {
      guard let object = decoder.object(expected: "a point") else { return nil }
      object.refuseUnknownKeys(known: ["x", "y"]) { member, field in
        field.report("unknown key; expected x, y", at: member.keyPosition)
      }
      let x = object.required("x", missing: "missing; expected an integer")?.integer(expected: "an integer")
      let y = object.required("y", missing: "missing; expected an integer")?.integer(
        expected: "a whole number from 0 to 9", where: (0...9).contains)
      guard let x, let y else { return nil }
      self.init(x: x, y: y)
    }
  }

  var name: String
  var tags: [String]
  var points: [Point]

  init(name: String, tags: [String], points: [Point]) {
    self.name = name
    self.tags = tags
    self.points = points
  }

  init?(from decoder: JSONValueDecoder) {
    guard let object = decoder.object(expected: "an object") else { return nil }
    object.refuseUnknownKeys(known: Self.keys) { member, field in
      field.report("unknown key; expected \(Self.keys.joined(separator: ", "))", at: member.keyPosition)
    }
    let before = decoder.problemCount
    let name = object.required("name", missing: "missing; expected a string")?.string(
      expected: "a string", rule: { $0.isEmpty ? "expected a non-empty name" : nil })
    let tags = object["tags"]?.array(expected: "an array of tags")?.compactMap {
      $0.string(expected: "a tag")
    }
    let points = object.required("points", missing: "missing", at: nil)?.array(
      of: Point.self, expected: "an array of points")
    guard decoder.problemCount == before, let name, let points else { return nil }
    self.init(name: name, tags: tags ?? [], points: points)
  }
}

final class JSONValueDecoderTests: XCTestCase {
  /// The decoded shape, or the lines of every problem the decoder reported.
  private func decode(_ text: String) throws -> Result<Shape, ValidationFailure> {
    let decoder = JSONValueDecoder(try JSONDocument.parse(Data(text.utf8)), file: "shape.json")
    do { return .success(try decoder.finish(decoder.decode(Shape.self))) } catch { return .failure(error) }
  }

  private func problems(_ text: String, file: StaticString = #filePath, line: UInt = #line) throws -> [String]
  {
    switch try decode(text) {
    case .success(let shape):
      XCTFail("expected problems, decoded \(shape)", file: file, line: line)
      return []
    case .failure(let failure): return failure.diagnostics.map(\.description)
    }
  }

  func testDecodesAValidDocument() throws {
    let shape = try decode(
      #"{"name": "square", "tags": ["a", "b"], "points": [{"x": 0, "y": 0}, {"y": 2, "x": -1}]}"#)
    XCTAssertEqual(
      try shape.get(),
      Shape(name: "square", tags: ["a", "b"], points: [.init(x: 0, y: 0), .init(x: -1, y: 2)]))
  }

  func testReportsEveryProblemOfADocumentInOneRun() throws {
    let text = """
      {
        "name": 7,
        "tags": ["a", null],
        "colour": "red",
        "points": [
          {"x": 1, "y": 2},
          {"x": "1", "y": 12, "z": 0},
          [],
          {"y": 3}
        ]
      }
      """
    XCTAssertEqual(
      try problems(text),
      [
        "shape.json: colour: unknown key; expected name, tags, points",
        "shape.json: name: expected a string, found integer 7",
        "shape.json: tags[1]: expected a tag, found null",
        "shape.json: points[1].z: unknown key; expected x, y",
        "shape.json: points[1].x: expected an integer, found string \"1\"",
        "shape.json: points[1].y: expected a whole number from 0 to 9, found integer 12",
        "shape.json: points[2]: expected a point, found an empty array",
        "shape.json: points[3].x: missing; expected an integer",
      ])
  }

  func testDiagnosticsCarryTheLineOfWhatTheyPointAt() throws {
    let text = """
      {"name": "",
       "points": [
         {"x": 1,
          "y": true}],
       "extra": 1}
      """
    guard case .failure(let failure) = try decode(text) else { return XCTFail("expected problems") }
    XCTAssertEqual(
      failure.diagnostics,
      [
        Diagnostic(
          file: "shape.json", path: "extra", message: "unknown key; expected name, tags, points", line: 5),
        Diagnostic(file: "shape.json", path: "name", message: "expected a non-empty name", line: 1),
        Diagnostic(
          file: "shape.json", path: "points[0].y",
          message: "expected a whole number from 0 to 9, found boolean true",
          line: 4),
      ])
  }

  func testMissingKeysAreReportedAtTheObjectOrWithoutALine() throws {
    let text = """
      {
        "tags": []
      }
      """
    guard case .failure(let failure) = try decode(text) else { return XCTFail("expected problems") }
    XCTAssertEqual(
      failure.diagnostics,
      [
        Diagnostic(file: "shape.json", path: "name", message: "missing; expected a string", line: 1),
        Diagnostic(file: "shape.json", path: "points", message: "missing", line: nil),
      ])
  }

  func testWrongTypeAtTheRootStopsThere() throws {
    XCTAssertEqual(try problems("[1, 2]"), ["shape.json: expected an object, found an array"])
  }

  func testDescribeNamesFoundValuesForAFormatsMessages() throws {
    let decoder = JSONValueDecoder(
      try JSONDocument.parse(Data(#"{"name": "x", "points": {"x": 1}}"#.utf8)), file: "shape.json",
      describe: { _ in "something else" })
    XCTAssertThrowsError(try decoder.finish(decoder.decode(Shape.self))) { error in
      XCTAssertEqual(
        (error as? ValidationFailure)?.description,
        "shape.json: points: expected an array of points, found something else")
    }
  }

  func testFinishInDocumentOrderSortsByPositionKeepingTheOrderOfTies() throws {
    let root = try JSONDocument.parse(Data("{\"a\": 1,\n \"b\": 2}".utf8))
    let decoder = JSONValueDecoder(root, file: "f.json")
    guard let object = decoder.object(expected: "an object"), let a = object["a"], let b = object["b"] else {
      return XCTFail("expected members a and b")
    }
    b.report("second line")
    a.report("first line, first report")
    decoder.report("no line", at: nil)
    a.report("first line, second report")
    XCTAssertThrowsError(try decoder.finish(0, inDocumentOrder: true)) { error in
      XCTAssertEqual(
        (error as? ValidationFailure)?.diagnostics.map(\.description),
        [
          "f.json: no line", "f.json: a: first line, first report", "f.json: a: first line, second report",
          "f.json: b: second line",
        ])
    }
    XCTAssertEqual(decoder.diagnostics.map(\.message).first, "second line")
  }

  func testElementPrefixNamesTheElementsOfARootArray() throws {
    let decoder = JSONValueDecoder(try JSONDocument.parse(Data("[1, \"x\"]".utf8)), file: "c.json")
    let values = decoder.array(expected: "an array", elementPrefix: "customers")?.compactMap {
      $0.integer(expected: "an integer")
    }
    XCTAssertEqual(values, [1])
    XCTAssertEqual(
      decoder.diagnostics.map(\.description),
      ["c.json: customers[1]: expected an integer, found string \"x\""])
  }

  func testMemberFollowsKeysIntoNestedObjects() throws {
    let root = try JSONDocument.parse(Data(#"{"a": {"b": {"c": 3}}}"#.utf8))
    XCTAssertEqual(root.member("a", "b", "c")?.content, .integer(3))
    XCTAssertNil(root.member("a", "x"))
  }
}
