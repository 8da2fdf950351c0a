import Foundation
import ReleaseManifest
import ReleaseSystem

/// `rollouts.json` (committed, and reviewed in pull requests like `release-state.json`): what
/// each customer's devices are offered over the air, per flow, on top of the model bundled in
/// their package. `release rollout`, `pause` and `rollback` change it; `release ota publish`
/// (and `release all --publish`) turns it into each customer's published `models.json`.
///
/// ```json
/// {"customers": {"acme": {"onboarding_upsell": {"paused": false, "models": [
///   {"modelVersion": 74, "rolloutPercent": 10, "status": "active", "salt": "<32 hex digits>"}]}}}}
/// ```
/// A missing file means nothing is offered over the air yet.
public struct RolloutState: Equatable, Sendable {
  public static let defaultPath = "rollouts.json"

  public enum Status: String, Codable, Sendable, CaseIterable {
    /// Offered to `rolloutPercent` of the devices.
    case active
    /// Offered no further while its flow is paused; devices keep what they run.
    case paused
    /// Rolled back: devices that downloaded it delete it; never offered again.
    case retracted
  }

  /// One model version offered over the air.
  public struct Offer: Codable, Equatable, Sendable {
    public var modelVersion: Int
    /// Share of devices (0–100) whose bucket for this offer is below it.
    public var rolloutPercent: Int
    public var status: Status
    /// Hex, fixed when the version is first offered: a device's bucket is derived from
    /// SHA-256("<salt>:<installID>"), so each offer draws its own independent sample of devices,
    /// and raising the percentage only adds devices.
    public var salt: String
  }

  public struct Flow: Codable, Equatable, Sendable {
    /// Devices download nothing new for this flow while paused.
    public var paused: Bool
    /// By model version, ascending.
    public var models: [Offer]

    public func offer(_ version: Int) -> Offer? { models.first { $0.modelVersion == version } }
  }

  /// Customer id → flow name → flow.
  public var customers: [String: [String: Flow]]

  public init(customers: [String: [String: Flow]] = [:]) { self.customers = customers }

  public func flow(_ customer: String, _ flowName: String) -> Flow? { customers[customer]?[flowName] }

  // MARK: - Reading and writing

  /// Reads the file; a missing file is the empty state. Every problem is reported, each with
  /// its JSON path: a broken rollout file must never be half-applied.
  public static func load(from url: URL, displayPath: String) throws -> RolloutState {
    let data: Data
    do { data = try Data(contentsOf: url) } catch {
      if !FileManager.default.fileExists(atPath: url.path) { return RolloutState() }
      throw ValidationFailure([
        Diagnostic(
          file: displayPath, path: "", message: "cannot read the file (\(SystemError.reason(error)))")
      ])
    }
    let root = try JSONDocument.parse(data, file: displayPath)
    var reader = StateReader(file: displayPath)
    let state = reader.read(root)
    if !reader.problems.isEmpty { throw ValidationFailure(reader.problems) }
    return state
  }

  /// Stable bytes: sorted keys, two-space indentation and a trailing newline, so a rollout is
  /// a small, reviewable diff.
  public func encoded() throws -> Data {
    struct File: Encodable { var customers: [String: [String: Flow]] }
    return try StableJSON.encode(File(customers: customers))
  }

  /// A fresh salt: 16 random bytes as lower-case hex.
  public static func newSalt() -> String {
    var generator = SystemRandomNumberGenerator()
    return (0..<16).map { _ in String(format: "%02x", UInt8.random(in: 0...255, using: &generator)) }.joined()
  }

  static func isSalt(_ text: String) -> Bool {
    (16...64).contains(text.count) && text.count % 2 == 0
      && text.unicodeScalars.allSatisfy { ("0"..."9").contains($0) || ("a"..."f").contains($0) }
  }
}

/// Checks the parsed file against the format, collecting every problem.
private struct StateReader {
  let file: String
  var problems: [Diagnostic] = []

  init(file: String) { self.file = file }

  mutating func report(_ path: String, _ value: JSONValue, _ message: String) {
    problems.append(Diagnostic(file: file, path: path, message: message, line: value.position.line))
  }

  mutating func object(_ value: JSONValue, _ path: String, _ expected: String) -> [JSONObjectMember]? {
    guard case .object(let members) = value.content else {
      report(path, value, "expected \(expected), found \(value.foundDescription)")
      return nil
    }
    return members
  }

  mutating func read(_ root: JSONValue) -> RolloutState {
    var state = RolloutState()
    guard let members = object(root, "", "an object {\"customers\": {…}}") else { return state }
    for member in members where member.key != "customers" {
      report(member.key, member.value, "unknown key; expected only \"customers\"")
    }
    guard let customers = members.first(where: { $0.key == "customers" }) else {
      problems.append(Diagnostic(file: file, path: "customers", message: "missing; expected an object"))
      return state
    }
    for customer in object(customers.value, "customers", "an object of customer id to flows") ?? [] {
      let customerPath = "customers.\(customer.key)"
      guard Customer.isValidID(customer.key) else {
        report(customerPath, customer.value, "not a customer id (a lower-case slug)")
        continue
      }
      var flows: [String: RolloutState.Flow] = [:]
      for flow in object(customer.value, customerPath, "an object of flow name to rollouts") ?? [] {
        if let parsed = readFlow(flow.value, "\(customerPath).\(flow.key)") { flows[flow.key] = parsed }
      }
      state.customers[customer.key] = flows
    }
    return state
  }

  mutating func readFlow(_ value: JSONValue, _ path: String) -> RolloutState.Flow? {
    guard let members = object(value, path, "an object {\"paused\": …, \"models\": […]}") else { return nil }
    let before = problems.count
    var paused: Bool?
    var offers: [RolloutState.Offer] = []
    for member in members {
      switch member.key {
      case "paused":
        if case .bool(let flag) = member.value.content {
          paused = flag
        } else {
          report(
            "\(path).paused", member.value, "expected true or false, found \(member.value.foundDescription)")
        }
      case "models":
        guard case .array(let elements) = member.value.content else {
          report("\(path).models", member.value, "expected an array, found \(member.value.foundDescription)")
          continue
        }
        for (index, element) in elements.enumerated() {
          if let offer = readOffer(element, "\(path).models[\(index)]") { offers.append(offer) }
        }
      default:
        report("\(path).\(member.key)", member.value, "unknown key; expected \"paused\" and \"models\"")
      }
    }
    if paused == nil && !members.contains(where: { $0.key == "paused" }) {
      report("\(path).paused", value, "missing; expected true or false")
    }
    var seen = Set<Int>()
    for offer in offers where !seen.insert(offer.modelVersion).inserted {
      report("\(path).models", value, "modelVersion \(offer.modelVersion) is listed more than once")
    }
    guard problems.count == before, let paused else { return nil }
    return RolloutState.Flow(paused: paused, models: offers.sorted { $0.modelVersion < $1.modelVersion })
  }

  mutating func readOffer(_ value: JSONValue, _ path: String) -> RolloutState.Offer? {
    guard let members = object(value, path, "an object describing an offered model") else { return nil }
    let before = problems.count
    var fields: [String: JSONValue] = [:]
    let known = ["modelVersion", "rolloutPercent", "status", "salt"]
    for member in members {
      if known.contains(member.key) {
        fields[member.key] = member.value
      } else {
        report(
          "\(path).\(member.key)", member.value, "unknown key; expected \(known.joined(separator: ", "))")
      }
    }
    for key in known where fields[key] == nil { report("\(path).\(key)", value, "missing") }
    var version: Int?
    var percent: Int?
    var status: RolloutState.Status?
    var salt: String?
    if let field = fields["modelVersion"] {
      if case .integer(let number) = field.content, number > 0 {
        version = number
      } else {
        report(
          "\(path).modelVersion", field, "expected a positive whole number, found \(field.foundDescription)")
      }
    }
    if let field = fields["rolloutPercent"] {
      if case .integer(let number) = field.content, (0...100).contains(number) {
        percent = number
      } else {
        report(
          "\(path).rolloutPercent", field,
          "expected a whole number from 0 to 100, found \(field.foundDescription)")
      }
    }
    if let field = fields["status"] {
      if case .string(let text) = field.content, let parsed = RolloutState.Status(rawValue: text) {
        status = parsed
      } else {
        let names = RolloutState.Status.allCases.map(\.rawValue).joined(separator: ", ")
        report("\(path).status", field, "expected one of \(names), found \(field.foundDescription)")
      }
    }
    if let field = fields["salt"] {
      if case .string(let text) = field.content, RolloutState.isSalt(text) {
        salt = text
      } else {
        report(
          "\(path).salt", field, "expected 16 to 64 lower-case hex digits, found \(field.foundDescription)")
      }
    }
    guard problems.count == before, let version, let percent, let status, let salt else { return nil }
    return RolloutState.Offer(modelVersion: version, rolloutPercent: percent, status: status, salt: salt)
  }

}
