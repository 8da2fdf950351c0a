import ReleaseCore
import ReleaseJSON

/// Every key of `release.config.json`, declared once: the reader refuses any other (with the
/// closest one suggested), and the command table's options name the key they default from.
/// A key with no flag (`signing.*`, `rollouts.*`, `publish.packageURL`, …) is declared here
/// all the same. The order of the cases is the order messages list the keys in.
package enum ConfigurationKey: String, CaseIterable, Sendable {
  case destinations = "publish.destinations"
  case s3Endpoint = "publish.s3Endpoint"
  case s3Region = "publish.s3Region"
  case publicURL = "publish.publicURL"
  case publishPassed = "publish.publishPassed"
  case otaDestination = "publish.otaDestination"
  case manifestExpiry = "publish.manifestExpiry"
  case legacyManifests = "publish.legacyManifests"
  case packageURL = "publish.packageURL"
  case models = "models"
  case trustedKeys = "signing.trustedKeys"
  case allowedSignersURL = "signing.allowedSignersURL"
  case root = "signing.root"
  case rolloutMargin = "rollouts.margin"
  case rolloutRevenueMargin = "rollouts.revenueMargin"
  case rolloutMinimumConversions = "rollouts.minimumConversions"
  case rolloutSchedule = "rollouts.schedule"
  /// Customer id → that customer's overrides of the other `rollouts` keys.
  case rolloutCustomers = "rollouts.customers"

  /// The key's path in the file: `["publish", "destinations"]`.
  package var path: [String] { rawValue.split(separator: ".").map(String.init) }

  /// The names allowed in the object at `section` (`[]`: the file's top level), in
  /// declaration order: `["publish", "models", "signing", "rollouts"]` at the top.
  package static func members(of section: [String]) -> [String] {
    var names: [String] = []
    for key in allCases
    where key.path.count > section.count && Array(key.path.prefix(section.count)) == section {
      let name = key.path[section.count]
      if !names.contains(name) { names.append(name) }
    }
    return names
  }

  /// What a customer's entry under `rollouts.customers` may override: the other `rollouts` keys.
  package static let rolloutOverrides = members(of: ["rollouts"]).filter {
    $0 != rolloutCustomers.path.last
  }
}

extension ReleaseConfiguration {
  /// Refuses the keys of the object at `section` that the schema does not declare, suggesting
  /// the closest declared one.
  static func refuseUnknownKeys(of object: JSONObjectDecoder, in section: [String]) {
    refuseUnknownKeys(of: object, known: ConfigurationKey.members(of: section))
  }

  /// Refuses the keys of `object` not in `known`, suggesting the closest known one.
  static func refuseUnknownKeys(of object: JSONObjectDecoder, known: [String]) {
    object.refuseUnknownKeys(known: known) { member, field in
      let hint =
        Suggestion.closest(to: member.key, among: known).map { " (did you mean \"\($0)\"?)" } ?? ""
      field.report(
        "unknown key\(hint); expected one of: \(known.joined(separator: ", "))", at: member.keyPosition)
    }
  }

  /// The key's value as a command-line option would take it, as text (nil: absent, or a key
  /// no option defaults from).
  package func text(of key: ConfigurationKey) -> String? {
    switch key {
    case .models: return models
    case .destinations: return destinations?.joined(separator: " ")
    case .s3Endpoint: return s3Endpoint
    case .s3Region: return s3Region
    case .publicURL: return publicURL
    case .publishPassed: return publishPassed.map { $0 ? "true" : "false" }
    case .manifestExpiry: return manifestExpiry
    case .otaDestination: return otaDestination
    case .packageURL: return packageURL
    case .legacyManifests: return legacyManifests.map { $0 ? "true" : "false" }
    case .allowedSignersURL: return allowedSignersURL
    case .root: return root
    case .trustedKeys, .rolloutMargin, .rolloutRevenueMargin, .rolloutMinimumConversions, .rolloutSchedule,
      .rolloutCustomers:
      return nil
    }
  }
}
