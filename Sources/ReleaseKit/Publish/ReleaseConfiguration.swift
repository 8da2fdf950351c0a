import Foundation
import ReleaseManifest

/// `release.config.json`: committed publishing defaults, so CI and people run the same
/// `release all`. Every key is optional; command-line flags override each one.
///
/// ```json
/// {
///   "publish": {
///     "destinations": ["s3://contextsdk-releases/sdk"],
///     "s3Endpoint": "https://<account>.r2.cloudflarestorage.com",
///     "s3Region": "auto",
///     "publicURL": "https://sdk.example.com/sdk",
///     "publishPassed": false
///   },
///   "models": "s3://contextsdk-models/store"
/// }
/// ```
///
/// `publish.destinations` are published to by every `release all` / `release customer` run
/// (`--publish` replaces the list, `--no-publish` empties it). Credentials never go here:
/// they come from the `AWS_*` environment variables only.
struct ReleaseConfiguration: Equatable {
  static let defaultFileName = "release.config.json"

  /// The file as the user named it, for messages.
  var path = defaultFileName
  var destinations: [String]?
  var s3Endpoint: String?
  var s3Region: String?
  var publicURL: String?
  var models: String?
  /// `--publish-passed` for every run: customers that passed ship although others failed.
  var publishPassed: Bool?
  /// Where over-the-air manifests go when every destination is a releases repository.
  var otaDestination: String?

  /// Reads `path` (relative to the root) when given, else `release.config.json` at the root
  /// when it exists. An explicitly named file that is missing is an error; the default one
  /// may be absent. Every problem is reported, one line each, naming the key.
  static func load(explicitPath: String?, services: Services) throws -> ReleaseConfiguration {
    let displayPath = explicitPath ?? defaultFileName
    let url = services.resolve(displayPath)
    guard FileManager.default.fileExists(atPath: url.path) else {
      if let explicitPath {
        throw ReleaseError.usage(
          "--config \(explicitPath): no such file; expected a \(defaultFileName)-style JSON file")
      }
      return ReleaseConfiguration()
    }
    let data: Data
    do { data = try Data(contentsOf: url) } catch {
      throw ReleaseError.invalidInput("\(displayPath): cannot read: \(error.localizedDescription)")
    }
    return try parse(data, displayPath: displayPath)
  }

  static func parse(_ data: Data, displayPath: String) throws -> ReleaseConfiguration {
    let document: JSONValue
    do { document = try JSONDocument.parse(data) } catch {
      throw ValidationFailure([
        Diagnostic(
          file: displayPath, path: "\(error.position)", message: error.message, line: error.position.line)
      ])
    }
    var problems: [Diagnostic] = []
    var configuration = ReleaseConfiguration()
    configuration.path = displayPath
    func problem(_ path: String, _ value: JSONValue, _ message: String) {
      problems.append(Diagnostic(file: displayPath, path: path, message: message, line: value.position.line))
    }
    func string(_ path: String, _ value: JSONValue) -> String? {
      guard case .string(let text) = value.content, !text.isEmpty else {
        problem(path, value, "expected a non-empty string, found \(describe(value))")
        return nil
      }
      return text
    }
    func members(_ path: String, _ value: JSONValue, allowed: [String]) -> [JSONObjectMember] {
      guard case .object(let members) = value.content else {
        problem(path, value, "expected an object, found \(describe(value))")
        return []
      }
      for member in members where !allowed.contains(member.key) {
        let hint =
          Suggestion.closest(to: member.key, among: allowed).map { " (did you mean \"\($0)\"?)" } ?? ""
        problems.append(
          Diagnostic(
            file: displayPath, path: path.isEmpty ? member.key : "\(path).\(member.key)",
            message: "unknown key\(hint); expected one of: \(allowed.joined(separator: ", "))",
            line: member.keyPosition.line))
      }
      return members.filter { allowed.contains($0.key) }
    }

    for member in members("", document, allowed: ["publish", "models"]) {
      switch member.key {
      case "models":
        configuration.models = string("models", member.value)
      default:
        let keys = ["destinations", "s3Endpoint", "s3Region", "publicURL", "publishPassed", "otaDestination"]
        for setting in members("publish", member.value, allowed: keys) {
          let path = "publish.\(setting.key)"
          switch setting.key {
          case "destinations":
            guard case .array(let items) = setting.value.content else {
              problem(
                path, setting.value, "expected an array of destinations, found \(describe(setting.value))")
              continue
            }
            configuration.destinations = items.enumerated().compactMap {
              string("\(path)[\($0.offset)]", $0.element)
            }
          case "s3Endpoint": configuration.s3Endpoint = string(path, setting.value)
          case "s3Region": configuration.s3Region = string(path, setting.value)
          case "otaDestination": configuration.otaDestination = string(path, setting.value)
          case "publishPassed":
            guard case .bool(let flag) = setting.value.content else {
              problem(path, setting.value, "expected true or false, found \(describe(setting.value))")
              continue
            }
            configuration.publishPassed = flag
          default: configuration.publicURL = string(path, setting.value)
          }
        }
      }
    }
    if !problems.isEmpty { throw ValidationFailure(problems) }
    return configuration
  }

  private static func describe(_ value: JSONValue) -> String {
    switch value.content {
    case .null: return "null"
    case .bool(let flag): return "\(flag)"
    case .integer(let number): return "\(number)"
    case .number(_, let literal): return literal
    case .string(let text): return "\"\(text)\""
    case .array: return "an array"
    case .object: return "an object"
    }
  }
}
