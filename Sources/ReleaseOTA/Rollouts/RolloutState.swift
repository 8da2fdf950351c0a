import Foundation
import ReleaseEvaluation
import ReleaseJSON
import ReleaseManifest
import ReleaseSystem

/// `rollouts.json` (committed, and reviewed in pull requests like `release-state.json`): what
/// each customer's devices are offered over the air, per flow, on top of the model bundled in
/// their package. `release rollout`, `pause` and `rollback` change it; `release ota publish`
/// (and `release all --publish`) turns it into each customer's published `models.json`.
///
/// ```json
/// {"customers": {"acme": {"onboarding_upsell": {"paused": false, "models": [
///   {"modelVersion": 74, "rolloutPercent": 25, "status": "active", "salt": "<32 hex digits>",
///    "since": "2026-11-09", "splits": [{"percent": 10, "since": "2026-11-02"},
///                                      {"percent": 25, "since": "2026-11-09"}]}]}}}}
/// ```
/// A missing file means nothing is offered over the air yet. `"published": {"acme": {"revision":
/// 7, "sha256": "<hex>"}}` (left out while empty) records the revision each customer's signed
/// manifest was last published as, and the SHA-256 of that revision's payload: `release ota
/// publish` refuses to publish over a newer one (a stale work tree would undo it), publishes
/// above it when the channel was moved back or wiped, and `--refresh` re-signs exactly that
/// revision's content. `"acme": 7` (the revision alone, as files before the digest) still reads.
package struct RolloutState: Equatable, Sendable {
  package static let defaultPath = "rollouts.json"

  package enum Status: String, Codable, Sendable, CaseIterable {
    /// Offered to `rolloutPercent` of the devices.
    case active
    /// Offered no further while its flow is paused; devices keep what they run.
    case paused
    /// Rolled back: devices that downloaded it delete it; never offered again.
    case retracted
  }

  /// One model version offered over the air.
  package struct Offer: Codable, Equatable, Sendable {
    package var modelVersion: Int
    /// Share of devices (0–100) whose bucket for this offer is below it.
    package var rolloutPercent: Int
    package var status: Status
    /// Hex, fixed when the version is first offered: a device's bucket is derived from
    /// SHA-256("<salt>:<installID>"), so each offer draws its own independent sample of devices,
    /// and raising the percentage only adds devices.
    var salt: String
    /// The UTC date its current split began: set when it is offered and at each new
    /// percentage (`release rollout`, `rollback`, `ota evaluate --apply`). `release ota
    /// evaluate` judges it from the outcomes of this date on, never pooling rows from before a
    /// change with rows after it. Nil (absent in files written before it was recorded):
    /// unknown, and every row counts.
    package var since: OutcomeDate? = nil
    /// Every split of the offer, oldest first: the percentage and the UTC date it began; the
    /// last is the current one. `rollout`, `rollback` and `ota evaluate --apply` append to it,
    /// so `ota evaluate` knows each ramp step's expected share. Empty (absent in files written
    /// before it was recorded): only the current split is known (`effectiveSplits`).
    package var splits: [Split] = []

    package struct Split: Codable, Equatable, Sendable {
      package var percent: Int
      package var since: OutcomeDate
    }

    /// `splits`, or for a file without them the current split when its `since` is known.
    package var effectiveSplits: [Split] {
      if !splits.isEmpty { return splits }
      return since.map { [Split(percent: rolloutPercent, since: $0)] } ?? []
    }

    /// Records a new percentage from `today` on: a change on the split's own first day
    /// replaces it.
    package mutating func startSplit(percent: Int, today: OutcomeDate) {
      var recorded = effectiveSplits
      if recorded.last?.since == today { recorded.removeLast() }
      recorded.append(Split(percent: percent, since: today))
      splits = recorded
      since = today
    }

    enum CodingKeys: String, CodingKey { case modelVersion, rolloutPercent, status, salt, since, splits }

    /// As decoded, `splits` left out while empty (files stay as they were until a split changes).
    package func encode(to encoder: any Encoder) throws {
      var container = encoder.container(keyedBy: CodingKeys.self)
      try container.encode(modelVersion, forKey: .modelVersion)
      try container.encode(rolloutPercent, forKey: .rolloutPercent)
      try container.encode(status, forKey: .status)
      try container.encode(salt, forKey: .salt)
      try container.encodeIfPresent(since, forKey: .since)
      if !splits.isEmpty { try container.encode(splits, forKey: .splits) }
    }
  }

  package struct Flow: Codable, Equatable, Sendable {
    /// Devices download nothing new for this flow while paused.
    package var paused: Bool
    /// By model version, ascending.
    package var models: [Offer]

    package func offer(_ version: Int) -> Offer? { models.first { $0.modelVersion == version } }
  }

  /// Customer id → flow name → flow.
  package var customers: [String: [String: Flow]]
  /// A signed channel's revision as this work tree last published (or refreshed) it.
  package struct PublishedRevision: Codable, Equatable, Sendable {
    package var revision: Int
    /// Lower-case hex SHA-256 of the revision's payload (the manifest bytes signed); nil in
    /// files written before it was recorded.
    package var payloadSHA256: String?

    package init(revision: Int, payloadSHA256: String?) {
      self.revision = revision
      self.payloadSHA256 = payloadSHA256
    }

    enum CodingKeys: String, CodingKey {
      case revision
      case payloadSHA256 = "sha256"
    }
  }

  /// Customer id → the revision of its signed channel's manifest this work tree last published
  /// (or refreshed); absent: none yet.
  package var published: [String: PublishedRevision]

  init(customers: [String: [String: Flow]] = [:], published: [String: PublishedRevision] = [:]) {
    self.customers = customers
    self.published = published
  }

  package func flow(_ customer: String, _ flowName: String) -> Flow? { customers[customer]?[flowName] }

  // MARK: - Reading and writing

  /// Reads the file; a missing file is the empty state. Every problem is reported, each with
  /// its JSON path: a broken rollout file must never be half-applied.
  package static func load(from url: URL, displayPath: String) throws -> RolloutState {
    let data: Data
    do { data = try Data(contentsOf: url) } catch {
      if !FileManager.default.fileExists(atPath: url.path) { return RolloutState() }
      throw ValidationFailure([
        Diagnostic(
          file: displayPath, path: "", message: "cannot read the file (\(SystemError.reason(error)))")
      ])
    }
    let root = try JSONDocument.parse(data, file: displayPath)
    let decoder = JSONValueDecoder(root, file: displayPath)
    let state = decoder.decode(RolloutState.self)
    if let state { decoder.append(state.problems(file: displayPath, document: root)) }
    return try decoder.finish(state)
  }

  /// The rules across offers: a flow offers each model version once.
  /// - Parameter document: the file the state was decoded from, for the lines of messages.
  func problems(file: String, document: JSONValue) -> [Diagnostic] {
    var problems: [Diagnostic] = []
    for (customer, flows) in customers.sorted(by: { $0.key < $1.key }) {
      for (flowName, flow) in flows.sorted(by: { $0.key < $1.key }) {
        var seen = Set<Int>()
        for offer in flow.models where !seen.insert(offer.modelVersion).inserted {
          problems.append(
            Diagnostic(
              file: file, path: "customers.\(customer).\(flowName).models",
              message: "modelVersion \(offer.modelVersion) is listed more than once",
              line: document.member("customers", customer, flowName)?.position.line))
        }
      }
    }
    return problems
  }

  /// Stable bytes: sorted keys, two-space indentation and a trailing newline, so a rollout is
  /// a small, reviewable diff.
  package func encoded() throws -> Data {
    struct File: Encodable {
      var customers: [String: [String: Flow]]
      var published: [String: PublishedRevision]?
    }
    return try StableJSON.encode(File(customers: customers, published: published.isEmpty ? nil : published))
  }

  /// The file's own lock, `.<name>.lock` beside it: everything that writes the file takes it and
  /// reads the file again under it, so none drops another's change.
  package static func lock(_ url: URL, timeout: Double = 10) throws -> FileLock {
    try FileLock(
      url.deletingLastPathComponent().appendingPathComponent(".\(url.lastPathComponent).lock"),
      timeout: timeout)
  }

  /// A fresh salt: 16 random bytes as lower-case hex.
  package static func newSalt() -> String {
    var generator = SystemRandomNumberGenerator()
    return (0..<16).map { _ in String(format: "%02x", UInt8.random(in: 0...255, using: &generator)) }.joined()
  }

  static func isSalt(_ text: String) -> Bool {
    (16...64).contains(text.count) && text.count % 2 == 0
      && text.unicodeScalars.allSatisfy { ("0"..."9").contains($0) || ("a"..."f").contains($0) }
  }
}

extension RolloutState: JSONValueDecodable {
  /// `{"customers": {"<id>": {"<flow>": <Flow>, …}, …}, "published": {"<id>": {"revision": n,
  /// "sha256": "<hex>"}}}`, `published` optional, each entry also a bare revision.
  package init?(from decoder: JSONValueDecoder) {
    guard let root = decoder.object(expected: "an object {\"customers\": {…}}") else { return nil }
    root.refuseUnknownKeys(known: ["customers", "published"]) { _, member in
      member.report("unknown key; expected \"customers\" and \"published\"")
    }
    var published: [String: PublishedRevision] = [:]
    for (member, entry) in root["published"]?.object(expected: "an object of customer id to revision")?
      .entries ?? []
    {
      guard Customer.isValidID(member.key) else {
        entry.report("not a customer id (a lower-case slug)")
        continue
      }
      if let revision = entry.decode(PublishedRevision.self) { published[member.key] = revision }
    }
    guard let customersDecoder = root.required("customers", missing: "missing; expected an object", at: nil)
    else { return nil }
    var customers: [String: [String: Flow]] = [:]
    for (member, customer) in customersDecoder.object(expected: "an object of customer id to flows")?.entries
      ?? []
    {
      guard Customer.isValidID(member.key) else {
        customer.report("not a customer id (a lower-case slug)")
        continue
      }
      var flows: [String: Flow] = [:]
      for (flowMember, flow) in customer.object(expected: "an object of flow name to rollouts")?.entries ?? []
      {
        if let parsed = flow.decode(Flow.self) { flows[flowMember.key] = parsed }
      }
      customers[member.key] = flows
    }
    self.init(customers: customers, published: published)
  }
}

extension RolloutState.PublishedRevision: JSONValueDecodable {
  static let expectedRevision =
    "a whole number from 1 to \(SignedOTAChannel.maximumRevision) (a published revision)"

  /// `{"revision": n, "sha256": "<64 hex>"}`, or `n` alone (files before the digest).
  package init?(from decoder: JSONValueDecoder) {
    let inRange = { (number: Int) in (1...SignedOTAChannel.maximumRevision).contains(number) }
    if case .integer = decoder.value.content {
      guard let revision = decoder.integer(expected: Self.expectedRevision, where: inRange) else {
        return nil
      }
      self.init(revision: revision, payloadSHA256: nil)
      return
    }
    guard let object = decoder.object(expected: "{\"revision\": n, \"sha256\": \"<hex>\"}") else {
      return nil
    }
    object.refuseUnknownKeys(known: ["revision", "sha256"]) { _, member in
      member.report("unknown key; expected \"revision\" and \"sha256\"")
    }
    let revision = object.required("revision", missing: "missing; expected \(Self.expectedRevision)")?
      .integer(expected: Self.expectedRevision, where: inRange)
    let sha256 = object["sha256"]?.string(
      expected: "64 lower-case hex digits (the SHA-256 of the revision's payload)",
      where: SignedOTAChannel.isDigest)
    guard let revision, object["sha256"] == nil || sha256 != nil else { return nil }
    self.init(revision: revision, payloadSHA256: sha256)
  }
}

extension RolloutState.Flow: JSONValueDecodable {
  /// `{"paused": Bool, "models": [Offer]}`; the offers sorted by model version.
  package init?(from decoder: JSONValueDecoder) {
    guard let object = decoder.object(expected: "an object {\"paused\": …, \"models\": […]}") else {
      return nil
    }
    let before = decoder.problemCount
    var paused: Bool?
    var offers: [RolloutState.Offer] = []
    for (member, field) in object.entries {
      switch member.key {
      case "paused": paused = field.bool()
      case "models": offers += field.array(of: RolloutState.Offer.self, expected: "an array") ?? []
      default: field.report("unknown key; expected \"paused\" and \"models\"")
      }
    }
    if object["paused"] == nil {
      decoder.report("missing; expected true or false", path: decoder.path(ofKey: "paused"))
    }
    guard decoder.problemCount == before, let paused else { return nil }
    self.init(paused: paused, models: offers.sorted { $0.modelVersion < $1.modelVersion })
  }
}

extension RolloutState.Offer: JSONValueDecodable {
  static let keys = ["modelVersion", "rolloutPercent", "status", "salt"]
  static let optionalKeys = ["since", "splits"]

  /// `{"modelVersion": Int, "rolloutPercent": 0…100, "status": Status, "salt": hex,
  /// "since": "YYYY-MM-DD"}`, `since` optional.
  package init?(from decoder: JSONValueDecoder) {
    guard let object = decoder.object(expected: "an object describing an offered model") else { return nil }
    let before = decoder.problemCount
    let known = Self.keys + Self.optionalKeys
    object.refuseUnknownKeys(known: known) { _, member in
      member.report("unknown key; expected \(known.joined(separator: ", "))")
    }
    for key in Self.keys where object[key] == nil {
      decoder.report("missing", path: decoder.path(ofKey: key))
    }
    let version = object["modelVersion"]?.integer(expected: "a positive whole number") { $0 > 0 }
    let percent = object["rolloutPercent"]?.integer(expected: "a whole number from 0 to 100") {
      (0...100).contains($0)
    }
    let statusNames = RolloutState.Status.allCases.map(\.rawValue).joined(separator: ", ")
    let status = object["status"]?.string(
      expected: "one of \(statusNames)", where: { RolloutState.Status(rawValue: $0) != nil }
    ).flatMap(RolloutState.Status.init(rawValue:))
    let salt = object["salt"]?.string(expected: "16 to 64 lower-case hex digits", where: RolloutState.isSalt)
    let since = object["since"]?.string(
      expected: "a UTC date as YYYY-MM-DD", where: { OutcomeDate($0) != nil }
    )
    .flatMap { OutcomeDate($0) }
    let splits =
      object["splits"]?.array(of: Split.self, expected: "an array of {\"percent\", \"since\"}") ?? []
    if zip(splits, splits.dropFirst()).contains(where: { !($0.since < $1.since) }) {
      object["splits"]?.report("found splits out of order; expected each \"since\" after the one before")
    }
    guard decoder.problemCount == before, let version, let percent, let status, let salt else { return nil }
    self.init(
      modelVersion: version, rolloutPercent: percent, status: status, salt: salt, since: since, splits: splits
    )
  }
}

extension RolloutState.Offer.Split: JSONValueDecodable {
  /// `{"percent": 0…100, "since": "YYYY-MM-DD"}`.
  package init?(from decoder: JSONValueDecoder) {
    guard let object = decoder.object(expected: "an object {\"percent\": …, \"since\": …}") else {
      return nil
    }
    let before = decoder.problemCount
    object.refuseUnknownKeys(known: ["percent", "since"]) { _, member in
      member.report("unknown key; expected percent, since")
    }
    for key in ["percent", "since"] where object[key] == nil {
      decoder.report("missing", path: decoder.path(ofKey: key))
    }
    let percent = object["percent"]?.integer(expected: "a whole number from 0 to 100") {
      (0...100).contains($0)
    }
    let since = object["since"]?.string(
      expected: "a UTC date as YYYY-MM-DD", where: { OutcomeDate($0) != nil }
    )
    .flatMap { OutcomeDate($0) }
    guard decoder.problemCount == before, let percent, let since else { return nil }
    self.init(percent: percent, since: since)
  }
}
