import Foundation

/// `major.minor.patch`, no pre-release or build metadata: customer versions are plain and
/// strictly increasing.
package struct SemanticVersion: Comparable, Hashable, Sendable, CustomStringConvertible, Codable {
  package var major: Int
  package var minor: Int
  package var patch: Int

  package init(_ major: Int, _ minor: Int, _ patch: Int) {
    self.major = major
    self.minor = minor
    self.patch = patch
  }

  package init?(_ text: String) {
    let parts = text.split(separator: ".", omittingEmptySubsequences: false)
    guard parts.count == 3,
      let numbers = Optional(
        parts.compactMap { part -> Int? in
          guard !part.isEmpty, part.count <= 9, part.allSatisfy(\.isASCII), part.allSatisfy(\.isNumber),
            part == "0" || !part.hasPrefix("0")
          else { return nil }
          return Int(part)
        }), numbers.count == 3
    else { return nil }
    self.init(numbers[0], numbers[1], numbers[2])
  }

  package var description: String { "\(major).\(minor).\(patch)" }

  package static func < (a: Self, b: Self) -> Bool {
    (a.major, a.minor, a.patch) < (b.major, b.minor, b.patch)
  }

  package enum Part: String, CaseIterable, Sendable { case major, minor, patch }

  /// The largest part the state file reads back (nine digits): a version is never written
  /// that the next run would refuse.
  static let maximumPart = 999_999_999

  /// Whether `bumped(part)` stays readable.
  package func canBump(_ part: Part) -> Bool {
    switch part {
    case .major: return major < Self.maximumPart
    case .minor: return minor < Self.maximumPart
    case .patch: return patch < Self.maximumPart
    }
  }

  package func bumped(_ part: Part) -> SemanticVersion {
    switch part {
    case .major: return SemanticVersion(major + 1, 0, 0)
    case .minor: return SemanticVersion(major, minor + 1, 0)
    case .patch: return SemanticVersion(major, minor, patch + 1)
    }
  }

  package init(from decoder: Decoder) throws {
    let text = try decoder.singleValueContainer().decode(String.self)
    guard let version = SemanticVersion(text) else {
      throw DecodingError.dataCorrupted(
        .init(
          codingPath: decoder.codingPath, debugDescription: "expected major.minor.patch, found \"\(text)\""))
    }
    self = version
  }

  package func encode(to encoder: Encoder) throws {
    var container = encoder.singleValueContainer()
    try container.encode(description)
  }
}

/// The versioning rule for customer packages, in one place:
/// - a customer's first release gets the SDK version;
/// - nothing changed (same source digest) -> the same version, never rebuilt with other bytes;
/// - a new SDK version higher than the customer's last -> the SDK version;
/// - otherwise (only the customer's models or entry changed) -> the last version, patch + 1.
/// So major.minor always follow the SDK and the patch moves per customer.
package enum VersionRule {
  package static func nextVersion(
    last: (version: SemanticVersion, sourceDigest: String)?, sdkVersion: SemanticVersion,
    sourceDigest: String
  ) -> SemanticVersion {
    guard let last else { return sdkVersion }
    if last.sourceDigest == sourceDigest { return last.version }
    if sdkVersion > last.version { return sdkVersion }
    return last.version.bumped(.patch)
  }

  /// Why `last` cannot take another patch release, nil when it can.
  package static func patchLimitReached(last: SemanticVersion, sdkVersion: SemanticVersion) -> Bool {
    sdkVersion <= last && !last.canBump(.patch)
  }
}
