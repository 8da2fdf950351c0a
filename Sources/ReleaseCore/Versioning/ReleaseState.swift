import Foundation
import ReleaseSystem

/// The committed state file (`release-state.json`, like release-please's manifest): the SDK
/// version and, per customer, the last released version and the digest of what it was made from.
package struct ReleaseState: Codable, Equatable, Sendable {
  package struct CustomerEntry: Codable, Equatable, Sendable {
    package var version: SemanticVersion
    package var sourceDigest: String
    /// What each released version held, newest first: the release notes of the next release
    /// are the difference to the first, and every package's CHANGELOG.md is made from all of
    /// them. Absent in state files written before tool 0.4.0.
    package var releases: [ReleaseContents]

    enum CodingKeys: String, CodingKey { case version, sourceDigest, releases }

    package init(version: SemanticVersion, sourceDigest: String, releases: [ReleaseContents] = []) {
      self.version = version
      self.sourceDigest = sourceDigest
      self.releases = releases
    }

    package init(from decoder: Decoder) throws {
      let container = try decoder.container(keyedBy: CodingKeys.self)
      version = try container.decode(SemanticVersion.self, forKey: .version)
      sourceDigest = try container.decode(String.self, forKey: .sourceDigest)
      releases = try container.decodeIfPresent([ReleaseContents].self, forKey: .releases) ?? []
    }

    /// An empty history is left out, as such files have it: a change elsewhere in the file (a
    /// bump, another customer's record) leaves an entry written before tool 0.4.0 as it was.
    package func encode(to encoder: Encoder) throws {
      var container = encoder.container(keyedBy: CodingKeys.self)
      try container.encode(version, forKey: .version)
      try container.encode(sourceDigest, forKey: .sourceDigest)
      if !releases.isEmpty { try container.encode(releases, forKey: .releases) }
    }
  }

  package var sdkVersion: SemanticVersion
  package var customers: [String: CustomerEntry]
  /// Each customer's signed over-the-air channel id (`SignedOTAChannel`): 32 lower-case hex
  /// digits, made once at random and kept here, never derived from the customer's id. Left out
  /// of the file while empty (no trusted keys, no signed channel).
  package var channels: [String: String]

  enum CodingKeys: String, CodingKey { case sdkVersion, customers, channels }

  init(
    sdkVersion: SemanticVersion, customers: [String: CustomerEntry] = [:], channels: [String: String] = [:]
  ) {
    self.sdkVersion = sdkVersion
    self.customers = customers
    self.channels = channels
  }

  package init(from decoder: Decoder) throws {
    let container = try decoder.container(keyedBy: CodingKeys.self)
    sdkVersion = try container.decode(SemanticVersion.self, forKey: .sdkVersion)
    customers = try container.decode([String: CustomerEntry].self, forKey: .customers)
    channels = try container.decodeIfPresent([String: String].self, forKey: .channels) ?? [:]
  }

  package func encode(to encoder: Encoder) throws {
    var container = encoder.container(keyedBy: CodingKeys.self)
    try container.encode(sdkVersion, forKey: .sdkVersion)
    try container.encode(customers, forKey: .customers)
    if !channels.isEmpty { try container.encode(channels, forKey: .channels) }
  }

  package static func load(from url: URL, displayPath: String) throws -> ReleaseState {
    let data: Data
    do { data = try Data(contentsOf: url) } catch {
      throw ReleaseError.invalidInput(
        "\(displayPath): cannot read the state file (expected a JSON object with \"sdkVersion\" and \"customers\")"
      )
    }
    do { return try JSONDecoder().decode(ReleaseState.self, from: data) } catch let error as DecodingError {
      throw ReleaseError.invalidInput("\(displayPath): \(Self.describe(error))")
    }
  }

  /// Stable bytes: sorted keys, so a state change is a small, reviewable diff.
  package func encoded() throws -> Data {
    try StableJSON.encode(self)
  }

  func write(to url: URL) throws { try AtomicFile.write(try encoded(), to: url) }

  /// The state file's own lock, `.<name>.lock` beside it: everything that writes the file
  /// (a run recording versions, `release bump`) takes it and reads the file again under it,
  /// so none drops another's change. Held for seconds, so waiting a minute is generous.
  package static func lock(_ url: URL, timeout: Double = 60) throws -> FileLock {
    try FileLock(
      url.deletingLastPathComponent().appendingPathComponent(".\(url.lastPathComponent).lock"),
      timeout: timeout)
  }

  private static func describe(_ error: DecodingError) -> String {
    func path(_ codingPath: [CodingKey]) -> String {
      codingPath.map { $0.intValue.map { "[\($0)]" } ?? ".\($0.stringValue)" }.joined()
        .trimmingCharacters(in: CharacterSet(charactersIn: "."))
    }
    switch error {
    case .keyNotFound(let key, let context):
      return "\(path(context.codingPath + [key])): missing (expected it in the state file)"
    case .typeMismatch(let type, let context):
      return "\(path(context.codingPath)): wrong type (expected \(type))"
    case .valueNotFound(let type, let context):
      return "\(path(context.codingPath)): null (expected \(type))"
    case .dataCorrupted(let context):
      let where_ = path(context.codingPath)
      return (where_.isEmpty ? "" : "\(where_): ") + context.debugDescription
    @unknown default:
      return "invalid state file"
    }
  }
}
