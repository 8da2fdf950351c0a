import Foundation
import ReleaseJSON

/// Rules for single values of `customers.json`. Each returns what is wrong with the value, as a
/// message saying what was found and what was expected, or nil when the value is acceptable.
enum ManifestRules {
  static let maximumNameLength = 100
  static let maximumBundleIdentifierLength = 155
  static let exampleAppID = "3f2b8c1e-6d4a-4e9b-9a51-0c7d2e8f4a10"

  static func problem(withID id: String) -> String? {
    if Customer.isValidID(id) { return nil }
    return "\(id.quotedForMessage) is not a valid id (expected 1-40 lower-case letters, digits and single "
      + "hyphens, not starting or ending with '-')"
  }

  /// Names appear in generated documentation and podspecs: one short line of printable text.
  static func problem(withName name: String) -> String? {
    if name.unicodeScalars.allSatisfy(\.properties.isWhitespace) {
      return "expected a non-empty name, found \(name.quotedForMessage)"
    }
    if name.unicodeScalars.contains(where: \.isLineBreak) {
      return "expected a single line, found \(name.quotedForMessage)"
    }
    if let control = name.unicodeScalars.first(where: \.isUnsafeInOneLineMessage) {
      return "expected no control characters, found \(control.codePointName) in \(name.quotedForMessage)"
    }
    if name.count > maximumNameLength {
      return "expected at most \(maximumNameLength) characters, found \(name.count): \(name.quotedForMessage)"
    }
    return nil
  }

  /// 8-4-4-4-12 hex digits, either case (app ids are compared case-insensitively).
  static func problem(withAppID appID: String) -> String? {
    let groups = appID.split(separator: "-", omittingEmptySubsequences: false)
    let isUUID =
      groups.map(\.count) == [8, 4, 4, 4, 12]
      && groups.allSatisfy { $0.unicodeScalars.allSatisfy(\.isASCIIHexDigit) }
    if isUUID { return nil }
    return "\(appID.quotedForMessage) is not a UUID (expected 8-4-4-4-12 hex digits like \(exampleAppID))"
  }

  /// Reverse-DNS as Apple accepts it: segments of A-Z, a-z, 0-9 and '-', separated by '.'.
  static func problem(withBundleIdentifier identifier: String) -> String? {
    let reason: String
    if identifier.isEmpty {
      reason = "it is empty"
    } else if identifier.unicodeScalars.count > maximumBundleIdentifierLength {
      reason = "it is longer than \(maximumBundleIdentifierLength) characters"
    } else if let character = identifier.unicodeScalars.first(where: { !$0.isBundleIdentifierCharacter }) {
      reason = "character \(character.nameForMessage) is not allowed (use A-Z, a-z, 0-9, '-' and '.')"
    } else if identifier.split(separator: ".", omittingEmptySubsequences: false).contains(where: \.isEmpty) {
      reason = "it has an empty segment (a leading, trailing or doubled '.')"
    } else if !identifier.contains(".") {
      reason = "expected at least two segments separated by '.', like com.example.app"
    } else {
      return nil
    }
    return "\(identifier.quotedForMessage) is not a valid bundle identifier: \(reason)"
  }

  /// `^[a-z][a-z0-9_]{0,63}$`. Flow names become directory names, file names and Swift string
  /// literals in generated code, so nothing that could escape a path or a literal gets through.
  static func problem(withFlowName flowName: String) -> String? {
    let scalars = flowName.unicodeScalars
    let isValid =
      (1...64).contains(scalars.count) && scalars.first.map { ("a"..."z").contains($0) } == true
      && scalars.allSatisfy { ("a"..."z").contains($0) || ("0"..."9").contains($0) || $0 == "_" }
    if isValid { return nil }
    return
      "\(flowName.quotedForMessage) is not a valid flow name (expected a lower-case letter, then up to 63 "
      + "lower-case letters, digits or '_')"
  }

  /// Feature names (and the signal names `features.json` lists) follow the flow-name rule: they
  /// become module lookups, JSON keys and words in generated documentation.
  static func problem(withFeatureName name: String) -> String? {
    guard problem(withFlowName: name) != nil else { return nil }
    return
      "\(name.quotedForMessage) is not a valid feature name (expected a lower-case letter, then up to 63 "
      + "lower-case letters, digits or '_')"
  }

  /// The candidate a mistyped `word` most likely meant: the closest by edit distance (ignoring
  /// case), when close enough to be a typo rather than a different word.
  static func closestMatch(to word: String, among candidates: [String]) -> String? {
    let typed = word.lowercased()
    var best: (candidate: String, distance: Int)?
    for candidate in candidates {
      let distance = Suggestion.distance(typed, candidate.lowercased())
      let tolerance = max(1, min(3, candidate.count / 3))
      if distance <= tolerance && distance < (best?.distance ?? .max) {
        best = (candidate, distance)
      }
    }
    return best?.candidate
  }
}

extension Unicode.Scalar {
  var isLineBreak: Bool {
    ["\n", "\r", "\u{85}", "\u{2028}", "\u{2029}"].contains(self)
  }

  var isASCIIHexDigit: Bool {
    ("0"..."9").contains(self) || ("a"..."f").contains(self) || ("A"..."F").contains(self)
  }

  var isBundleIdentifierCharacter: Bool {
    ("a"..."z").contains(self) || ("A"..."Z").contains(self) || ("0"..."9").contains(self) || self == "-"
      || self == "."
  }

  /// `'_'` for a visible character, `U+000A` for one that is not.
  var nameForMessage: String {
    isUnsafeInOneLineMessage || properties.isWhitespace && self != " " ? codePointName : "'\(self)'"
  }
}
