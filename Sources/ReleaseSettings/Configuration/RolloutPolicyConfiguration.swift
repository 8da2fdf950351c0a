import ReleaseCore
import ReleaseEvaluation
import ReleaseJSON
import ReleaseManifest

/// `release.config.json`'s `rollouts`: how `release ota evaluate` judges a challenger and how
/// far `--apply` raises a good one, with per-customer overrides. Every key is optional; an
/// absent one keeps the default (`EvaluationPolicy.standard`), a customer's override the
/// top level's.
///
/// ```json
/// {"rollouts": {"margin": 0.02, "revenueMargin": 0.03, "minimumConversions": 100, "schedule": [10, 25, 50, 100],
///               "customers": {"acme": {"margin": 0.05, "minimumConversions": 300}}}}
/// ```
package struct RolloutPolicyConfiguration: Equatable {
  /// The settings one level gives; nil: not given there.
  package struct Settings: Equatable {
    /// The non-inferiority margin, relative to the baseline's rate: 0 ≤ margin < 1.
    var margin: Double?
    /// The revenue margin (per device, relative to the baseline's): 0 ≤ margin < 1; nil: `margin`.
    var revenueMargin: Double?
    /// Conversions each arm needs before a promote or a rollback: at least 1.
    var minimumConversions: Int?
    /// Rollout percentages a promoted challenger climbs: ascending, each 1 to 100.
    var schedule: [Int]?

    func applied(to policy: EvaluationPolicy) -> EvaluationPolicy {
      var policy = policy
      if let margin { policy.margin = margin }
      if let revenueMargin { policy.revenueMargin = revenueMargin }
      if let minimumConversions { policy.minimumConversions = minimumConversions }
      if let schedule { policy.schedule = schedule }
      return policy
    }
  }

  var defaults = Settings()
  /// Customer id → its overrides.
  package var customers: [String: Settings] = [:]

  /// The policy for `customer`: the defaults, then the top level, then the customer's
  /// overrides.
  package func policy(for customer: String) -> EvaluationPolicy {
    let base = defaults.applied(to: .standard)
    return customers[customer]?.applied(to: base) ?? base
  }

  package init(defaults: Settings = Settings(), customers: [String: Settings] = [:]) {
    self.defaults = defaults
    self.customers = customers
  }
}

extension RolloutPolicyConfiguration {
  /// A customer named in the policy must be one of `manifest`'s; each that is not is a
  /// problem of `configurationPath`.
  package func checkCustomers(against manifest: Manifest, configurationPath: String) throws {
    let ids = Set(manifest.customers.map(\.id))
    let unknown = customers.keys.sorted().filter { !ids.contains($0) }
    guard !unknown.isEmpty else { return }
    throw ReleaseError.validation(
      ValidationFailure(
        unknown.map {
          Diagnostic(
            file: configurationPath, path: "rollouts.customers.\($0)",
            message: "not a customer in \(manifest.path); expected the id of a known customer")
        }))
  }
}

extension RolloutPolicyConfiguration: JSONValueDecodable {
  package init?(from decoder: JSONValueDecoder) {
    guard let object = decoder.object(expected: "an object") else { return nil }
    let before = decoder.problemCount
    ReleaseConfiguration.refuseUnknownKeys(of: object, in: ["rollouts"])
    let defaults = Settings.decode(object)
    var customers: [String: Settings] = [:]
    if let customersDecoder = object["customers"],
      let entries = customersDecoder.object(expected: "an object of customer id to overrides")?.entries
    {
      for (member, field) in entries {
        guard Customer.isValidID(member.key) else {
          field.report("\"\(member.key)\" is not a customer id (a lower-case slug)", at: member.keyPosition)
          continue
        }
        guard let overrides = field.object(expected: "an object") else { continue }
        ReleaseConfiguration.refuseUnknownKeys(
          of: overrides, known: ConfigurationKey.rolloutOverrides)
        customers[member.key] = Settings.decode(overrides)
      }
    }
    guard decoder.problemCount == before else { return nil }
    self.init(defaults: defaults, customers: customers)
  }
}

extension RolloutPolicyConfiguration.Settings {
  /// The settings among `object`'s members, each problem reported with its path.
  static func decode(_ object: JSONObjectDecoder) -> Self {
    var settings = Self()
    for key in ["margin", "revenueMargin"] {
      guard let field = object[key] else { continue }
      var share: Double?
      switch field.value.content {
      case .integer(let number) where (0..<1).contains(Double(number)): share = Double(number)
      case .number(let number, _) where number >= 0 && number < 1: share = number
      default: field.reportMismatch(expected: "a share of the baseline's rate from 0 up to 1 (e.g. 0.02)")
      }
      if key == "margin" { settings.margin = share } else { settings.revenueMargin = share }
    }
    settings.minimumConversions = object["minimumConversions"]?.integer(
      expected: "a whole number of at least 1", where: { $0 >= 1 })
    if let field = object["schedule"], let steps = field.array(expected: "an array of percentages") {
      let values = steps.compactMap {
        $0.integer(expected: "a whole number from 1 to 100", where: (1...100).contains)
      }
      if values.count == steps.count {
        if values.isEmpty {
          field.report("expected at least one percentage, found an empty array")
        } else if zip(values, values.dropFirst()).contains(where: { $0 >= $1 }) {
          field.report(
            "expected percentages in increasing order, found \(values.map(String.init).joined(separator: ", "))"
          )
        } else {
          settings.schedule = values
        }
      }
    }
    return settings
  }
}
