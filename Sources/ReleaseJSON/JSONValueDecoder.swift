import Foundation

/// A type read from a position-keeping `JSONValue` by `JSONValueDecoder`.
///
/// `init(from:)` reports each problem of the value through the decoder and returns nil when the
/// value cannot become one (its problems are then reported); decoding goes on with the next
/// value, so one run reports every problem of a document. Rules across values (duplicates,
/// references) belong in a validation over the decoded values, not here.
public protocol JSONValueDecodable {
  init?(from decoder: JSONValueDecoder)
}

/// Reads a parsed JSON document into typed values, collecting a diagnostic (file, JSON path,
/// line) for every problem instead of stopping at the first, as Foundation's `JSONDecoder` does.
///
/// A decoder stands at one value and knows its JSON path (`customers[3].app_id`); `object`,
/// `array` and `decode` step into the value, and every problem goes to the run's shared list.
/// `finish(_:)` returns the decoded value when no problem was reported, and throws
/// `ValidationFailure` with all of them otherwise.
///
/// ```swift
/// let decoder = JSONValueDecoder(root, file: "rollouts.json")
/// let state = decoder.decode(RolloutFile.self)
/// return try decoder.finish(state)
/// ```
public struct JSONValueDecoder {
  /// The problems of one run, shared by every decoder stepped into from the root.
  final class Problems {
    let file: String
    /// How "found …" names a value.
    let describe: (JSONValue) -> String
    var findings: [(position: SourcePosition?, diagnostic: Diagnostic)] = []

    init(file: String, describe: @escaping (JSONValue) -> String) {
      self.file = file
      self.describe = describe
    }
  }

  /// The value this decoder reads.
  public let value: JSONValue
  /// Its JSON path: empty for the root, `features.att.flows[2]` inside.
  public let path: String
  let problems: Problems

  /// A decoder at the root of a document.
  /// - Parameter file: how messages name the file.
  /// - Parameter describe: how "found …" names a value; `JSONValue.foundDescription` by default.
  public init(
    _ root: JSONValue, file: String, describe: @escaping (JSONValue) -> String = { $0.foundDescription }
  ) {
    self.init(value: root, path: "", problems: Problems(file: file, describe: describe))
  }

  init(value: JSONValue, path: String, problems: Problems) {
    self.value = value
    self.path = path
    self.problems = problems
  }

  public var position: SourcePosition { value.position }
  /// The value as messages name it after "found".
  public var found: String { problems.describe(value) }
  /// How many problems the run has reported so far; compare before and after to tell whether a
  /// part had problems.
  public var problemCount: Int { problems.findings.count }
  /// Every problem reported so far, in the order reported.
  public var diagnostics: [Diagnostic] { problems.findings.map(\.diagnostic) }

  // MARK: - Reporting

  /// Reports a problem at `path` (this value's by default), on this value's line.
  public func report(_ message: String, path: String? = nil) {
    report(message, path: path, at: value.position)
  }

  /// Reports a problem at `path` (this value's by default), on the line of `position` (none
  /// when nil).
  public func report(_ message: String, path: String? = nil, at position: SourcePosition?) {
    problems.findings.append(
      (
        position,
        Diagnostic(file: problems.file, path: path ?? self.path, message: message, line: position?.line)
      ))
  }

  /// Reports "expected `expected`, found …" at this value.
  public func reportMismatch(expected: String) {
    report("expected \(expected), found \(found)")
  }

  /// `value` when the run reported no problem, else every problem: in the order reported, or
  /// by position in the document (`inDocumentOrder`), reports at the same place in their order.
  public func finish<Value>(_ value: Value?, inDocumentOrder: Bool = false) throws(ValidationFailure) -> Value
  {
    var findings = problems.findings
    if inDocumentOrder {
      findings = findings.enumerated().sorted {
        let (a, b) = (
          $0.element.position ?? SourcePosition(line: 0, column: 0),
          $1.element.position ?? SourcePosition(line: 0, column: 0)
        )
        return (a, $0.offset) < (b, $1.offset)
      }.map(\.element)
    }
    if findings.isEmpty, let value { return value }
    throw ValidationFailure(findings.map(\.diagnostic))
  }

  /// Adds diagnostics found outside the decoder (a validation over decoded values), so that
  /// `finish` reports them with the decoding problems.
  public func append(_ diagnostics: [Diagnostic], at position: SourcePosition? = nil) {
    problems.findings += diagnostics.map { (position, $0) }
  }

  // MARK: - Stepping in

  /// The path of member `key` of this value.
  public func path(ofKey key: String) -> String { path.isEmpty ? key : "\(path).\(key)" }

  /// A decoder for `member`, a member of this object.
  public func decoder(for member: JSONObjectMember) -> JSONValueDecoder {
    JSONValueDecoder(value: member.value, path: path(ofKey: member.key), problems: problems)
  }

  /// The members of an object, or nil after reporting "expected `expected`, found …".
  public func object(expected: String) -> JSONObjectDecoder? {
    guard case .object(let members) = value.content else {
      reportMismatch(expected: expected)
      return nil
    }
    return JSONObjectDecoder(decoder: self, members: members)
  }

  /// A decoder for each element of an array, or nil after reporting "expected `expected`,
  /// found …". Elements are named `<path>[i]`, or `<elementPrefix>[i]` when given (the root
  /// array of `customers.json` names its elements `customers[i]`).
  public func array(expected: String, elementPrefix: String? = nil) -> [JSONValueDecoder]? {
    guard case .array(let elements) = value.content else {
      reportMismatch(expected: expected)
      return nil
    }
    return elements.enumerated().map { index, element in
      JSONValueDecoder(value: element, path: "\(elementPrefix ?? path)[\(index)]", problems: problems)
    }
  }

  /// Each element decoded as `Element`; elements that cannot be are left out (their problems
  /// reported). Nil after reporting "expected `expected`, found …" when the value is no array.
  public func array<Element: JSONValueDecodable>(of type: Element.Type, expected: String) -> [Element]? {
    array(expected: expected)?.compactMap { $0.decode(Element.self) }
  }

  /// The value decoded as `Type`; nil when it cannot be (its problems reported).
  public func decode<Type: JSONValueDecodable>(_ type: Type.Type) -> Type? { Type(from: self) }

  // MARK: - Scalars

  /// The string, when the value is one and `rule` has nothing against it; else nil after
  /// reporting "expected `expected`, found …" (not a string) or `rule`'s message.
  public func string(expected: String, rule: (String) -> String? = { _ in nil }) -> String? {
    guard case .string(let text) = value.content else {
      reportMismatch(expected: expected)
      return nil
    }
    if let problem = rule(text) {
      report(problem)
      return nil
    }
    return text
  }

  /// The string when the value is one and `accept` takes it; else nil after reporting
  /// "expected `expected`, found …".
  public func string(expected: String, where accept: (String) -> Bool) -> String? {
    guard case .string(let text) = value.content, accept(text) else {
      reportMismatch(expected: expected)
      return nil
    }
    return text
  }

  /// The integer (a number written without fraction or exponent) when `accept` takes it; else
  /// nil after reporting "expected `expected`, found …".
  public func integer(expected: String, where accept: (Int) -> Bool = { _ in true }) -> Int? {
    guard case .integer(let number) = value.content, accept(number) else {
      reportMismatch(expected: expected)
      return nil
    }
    return number
  }

  /// The boolean; else nil after reporting "expected `expected`, found …".
  public func bool(expected: String = "true or false") -> Bool? {
    guard case .bool(let flag) = value.content else {
      reportMismatch(expected: expected)
      return nil
    }
    return flag
  }
}

/// The members of one JSON object, read by key through `JSONValueDecoder`.
public struct JSONObjectDecoder {
  /// The decoder of the object itself.
  public let decoder: JSONValueDecoder
  /// Members in document order.
  public let members: [JSONObjectMember]

  package init(decoder: JSONValueDecoder, members: [JSONObjectMember]) {
    self.decoder = decoder
    self.members = members
  }

  public var path: String { decoder.path }
  public var isEmpty: Bool { members.isEmpty }
  public var keys: [String] { members.map(\.key) }

  /// The members whose keys are not in `known`, in document order, each passed to `refuse` to
  /// be reported (messages and the place they point at differ between formats).
  public func refuseUnknownKeys(
    known: [String], _ refuse: (_ member: JSONObjectMember, _ decoder: JSONValueDecoder) -> Void
  ) {
    for member in members where !known.contains(member.key) { refuse(member, decoder.decoder(for: member)) }
  }

  /// A decoder for member `key`, or nil when the object has none.
  public subscript(key: String) -> JSONValueDecoder? {
    members.first { $0.key == key }.map(decoder.decoder(for:))
  }

  /// A decoder for member `key`; when there is none, nil after reporting `missing` at the
  /// member's path, on the object's line.
  public func required(_ key: String, missing: String) -> JSONValueDecoder? {
    required(key, missing: missing, at: decoder.position)
  }

  /// A decoder for member `key`; when there is none, nil after reporting `missing` at the
  /// member's path, on the line of `position` (none when nil).
  public func required(_ key: String, missing: String, at position: SourcePosition?) -> JSONValueDecoder? {
    if let member = self[key] { return member }
    decoder.report(missing, path: decoder.path(ofKey: key), at: position)
    return nil
  }

  /// A decoder for each member, for objects that map names to values.
  public var entries: [(member: JSONObjectMember, decoder: JSONValueDecoder)] {
    members.map { ($0, decoder.decoder(for: $0)) }
  }
}

extension JSONValue {
  /// The value at `keys`, one object member after the other; nil when one is missing.
  public func member(_ keys: String...) -> JSONValue? {
    var value = self
    for key in keys {
      guard case .object(let members) = value.content, let member = members.first(where: { $0.key == key })
      else { return nil }
      value = member.value
    }
    return value
  }
}

extension JSONValue {
  /// What the value is, for "found …": its JSON type, and the value itself when it is short.
  public var foundDescription: String {
    switch content {
    case .null: return "null"
    case .bool(let value): return "boolean \(value)"
    case .integer(let value): return "integer \(value)"
    case .number(_, let literal): return "number \(literal.truncatedForMessage)"
    case .string(let value): return "string \(value.quotedForMessage)"
    case .array(let elements): return elements.isEmpty ? "an empty array" : "an array"
    case .object: return "an object"
    }
  }
}
