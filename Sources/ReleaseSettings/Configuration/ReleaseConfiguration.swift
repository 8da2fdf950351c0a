import Foundation
import ReleaseCore
import ReleaseJSON
import ReleaseManifest
import ReleasePublishing

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
///     "publishPassed": false,
///     "manifestExpiry": "7d",
///     "legacyManifests": true,
///     "packageURL": "https://git.example.com/sdk/{id}.git"
///   },
///   "models": "s3://contextsdk-models/store",
///   "signing": {"trustedKeys": ["keys/ota-2026.pub"],
///               "allowedSignersURL": "https://example.com/contextsdk/allowed_signers"},
///   "rollouts": {"margin": 0.02, "minimumConversions": 100, "schedule": [10, 25, 50, 100],
///                "customers": {"acme": {"margin": 0.05}}}
/// }
/// ```
///
/// `publish.destinations` are published to by every `release all` / `release customer` run
/// (`--publish` replaces the list, `--no-publish` empties it). Credentials never go here:
/// they come from the `AWS_*` environment variables only.
package struct ReleaseConfiguration: Equatable {
  static let defaultFileName = "release.config.json"

  /// The file as the user named it, for messages.
  package var path = defaultFileName
  package var destinations: [String]?
  package var s3Endpoint: String?
  package var s3Region: String?
  package var publicURL: String?
  package var models: String?
  /// `--publish-passed` for every run: customers that passed ship although others failed.
  package var publishPassed: Bool?
  /// Where over-the-air manifests go when every destination is a releases repository.
  package var otaDestination: String?
  /// `publish.packageURL`: the URL customers add their package from (`{id}`: the customer's
  /// id), shown in every package's README; absent: the `git:` destination's, when https.
  package var packageURL: String?
  /// How long a signed OTA manifest is believed after publishing (`--expires`).
  package var manifestExpiry: String?
  /// Whether the legacy unsigned `ota/<id>/models.json` is still published (and its URL put in
  /// packages) beside the signed channel; absent: true.
  package var legacyManifests: Bool?
  /// `signing.trustedKeys`: the public keys (PEM files, relative to this file) releases and
  /// manifests are signed for; read by `TrustedKeys.load`.
  package var trustedKeys: [String]?
  /// `signing.root`: the directory of the channel's root documents (`<n>.json`, relative to
  /// this file); when set, its newest root's manifest keys are the trusted keys.
  package var root: String?
  /// `signing.allowedSignersURL`: where customers read the `allowed_signers` line of the
  /// trusted keys (an https URL), named in every signed package's README.
  package var allowedSignersURL: String?
  /// How `release ota evaluate` judges and promotes challengers (`rollouts`).
  package var rollouts: RolloutPolicyConfiguration?

  /// Reads `path` (relative to the root) when given, else `release.config.json` at the root
  /// when it exists. An explicitly named file that is missing is an error; the default one
  /// may be absent. Every problem is reported, one line each, naming the key.
  package static func load(explicitPath: String?, services: Services) throws -> ReleaseConfiguration {
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

  package static func parse(_ data: Data, displayPath: String) throws -> ReleaseConfiguration {
    let document = try JSONDocument.parse(data, file: displayPath)
    let decoder = JSONValueDecoder(document, file: displayPath, describe: describe)
    var configuration = decoder.decode(ReleaseConfiguration.self)
    configuration?.path = displayPath
    return try decoder.finish(configuration)
  }

  /// How "found …" names a value in this file's messages: the value as written.
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

  package init() {}
}

extension ReleaseConfiguration: JSONValueDecodable {
  /// Every key optional; a wrong one leaves its setting unset (and is reported).
  package init?(from decoder: JSONValueDecoder) {
    self.init()
    guard let root = decoder.object(expected: "an object") else { return }
    Self.refuseUnknownKeys(of: root, in: [])
    for (member, field) in root.entries {
      switch member.key {
      case "models": models = field.nonEmptyString
      case "rollouts": rollouts = field.decode(RolloutPolicyConfiguration.self)
      case "publish":
        guard let publish = field.object(expected: "an object") else { continue }
        Self.refuseUnknownKeys(of: publish, in: ["publish"])
        for (setting, value) in publish.entries {
          switch setting.key {
          case "destinations":
            destinations = value.array(expected: "an array of destinations")?.compactMap(\.nonEmptyString)
          case "s3Endpoint": s3Endpoint = value.nonEmptyString
          case "s3Region": s3Region = value.nonEmptyString
          case "otaDestination": otaDestination = value.nonEmptyString
          case "publicURL": publicURL = value.nonEmptyString
          case "publishPassed": publishPassed = value.bool()
          case "manifestExpiry": manifestExpiry = value.nonEmptyString
          case "legacyManifests": legacyManifests = value.bool()
          case "packageURL":
            packageURL = value.string(expected: "an https URL") {
              Self.allowedSignersURLProblem(
                $0.replacingOccurrences(of: "{id}", with: "id"),
                expected:
                  "an https URL customers add their package from, e.g. https://git.example.com/sdk/{id}.git")
            }
          default: break
          }
        }
      case "signing":
        guard let signing = field.object(expected: "an object") else { continue }
        Self.refuseUnknownKeys(of: signing, in: ["signing"])
        for (setting, value) in signing.entries {
          switch setting.key {
          case "trustedKeys":
            trustedKeys = value.array(expected: "an array of public key files (.pub)")?.compactMap(
              \.nonEmptyString)
          case "root":
            self.root = value.string(
              expected: "a directory of root documents, e.g. ota-root", where: { !$0.isEmpty })
          case "allowedSignersURL":
            allowedSignersURL = value.string(
              expected: "an https URL", rule: { Self.allowedSignersURLProblem($0) })
          default: break
          }
        }
      default: break
      }
    }
  }
}

extension ReleaseConfiguration {
  /// Why `text` cannot be `signing.allowedSignersURL`, or nil: it goes into every signed
  /// package's README, so it must be an https URL a customer can open, without a credential.
  static func allowedSignersURLProblem(
    _ text: String,
    expected: String =
      "an https URL where customers read the allowed_signers line, e.g. https://example.com/contextsdk/allowed_signers"
  ) -> String? {
    let shown = "\"\(URLCredentials.redacted(String(text.prefix(80))))\""
    if text.contains("@") {
      return
        "found \(shown): a credential in a URL ends up in every package's README; expected a URL without one"
    }
    let unprintable = text.unicodeScalars.contains {
      $0.properties.isWhitespace || $0.properties.generalCategory == .control
        || $0.properties.generalCategory == .format
    }
    guard !unprintable, let url = URL(string: text), url.scheme?.lowercased() == "https",
      url.host?.isEmpty == false
    else {
      return
        "found \(shown), expected \(expected)"
    }
    return nil
  }
}

extension JSONValueDecoder {
  fileprivate var nonEmptyString: String? { string(expected: "a non-empty string", where: { !$0.isEmpty }) }
}
