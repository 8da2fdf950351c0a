import Foundation

/// Checks a parsed `customers.json` against the format, across customers, and against the model
/// store. It never stops at the first problem: every finding keeps its source position so that
/// all of them can be reported in document order.
struct ManifestValidator {
  static let customerFields = (
    required: ["bundle_identifiers", "app_id", "customModels"], optional: ["id", "name", "features"]
  )
  static let modelFields = (required: ["flowId", "flowName", "modelVersion"], optional: [String]())
  /// How many store flows an "unknown flow" message lists before summarising the rest.
  static let listedFlowLimit = 20

  let file: String
  let store: ModelStore
  /// The template's features; without them `features` lists are checked only for their form.
  let catalog: FeatureCatalog?

  private var findings: [(position: SourcePosition, diagnostic: Diagnostic)] = []
  /// First user of each effective id, app id (lower-cased) and bundle identifier (lower-cased,
  /// as the App Store treats them): later users are duplicates.
  private var idOwners: [String: CustomerLabel] = [:]
  /// First user of each package name, lower-cased, with the name: ids that differ only in
  /// dashes give the same one, and ids like `ab-c` and `abc` names that differ only in case
  /// (ContextSDK_AbC, ContextSDK_Abc), one directory on a case-insensitive file system (macOS).
  private var packageNameOwners: [String: (owner: CustomerLabel, name: String)] = [:]
  private var appIDOwners: [String: CustomerLabel] = [:]
  private var bundleIdentifierOwners: [String: (owner: CustomerLabel, path: String)] = [:]
  /// First use of each flowId and flowName, to catch a flowId that names different flows.
  private var flowNameByID: [Int: (flowName: String, user: CustomerLabel)] = [:]
  private var flowIDByName: [String: (flowId: Int, user: CustomerLabel)] = [:]
  /// Store answers, asked once per flow.
  private var storeVersions: [String: [Int]] = [:]
  private var storeFlowNames: [String]?
  /// The current customer's valid flow names, with where each stands, for the feature checks.
  private var flowsOfCustomer: [(flowName: String, path: String, position: SourcePosition)] = []

  init(file: String, store: ModelStore, catalog: FeatureCatalog? = nil) {
    self.file = file
    self.store = store
    self.catalog = catalog
  }

  /// The customers of a valid manifest. Throws `ValidationFailure` with every problem found, or
  /// the store's own error when the store cannot be read (not the manifest's fault).
  mutating func validate(_ root: JSONValue) throws -> [Customer] {
    guard case .array(let entries) = root.content else {
      report("", at: root.position, "expected a top-level array of customers, found \(root.foundDescription)")
      throw failure()
    }
    if entries.isEmpty {
      report("", at: root.position, "expected at least one customer, found an empty array")
    }
    var customers: [Customer] = []
    for (index, entry) in entries.enumerated() {
      if let customer = try validateCustomer(entry, index: index) { customers.append(customer) }
    }
    if !findings.isEmpty { throw failure() }
    return customers
  }

  private func failure() -> ValidationFailure {
    let ordered = findings.enumerated().sorted {
      ($0.element.position, $0.offset) < ($1.element.position, $1.offset)
    }
    return ValidationFailure(ordered.map(\.element.diagnostic))
  }

  private mutating func report(_ path: String, at position: SourcePosition, _ message: String) {
    findings.append((position, Diagnostic(file: file, path: path, message: message, line: position.line)))
  }

  // MARK: - Customers

  /// A customer entry as far as it could be read: nil fields had problems, and lists hold only
  /// their valid elements (problems already reported; a customer is built only without any).
  private struct BundleIdentifierEntry {
    var identifier: String
    var path: String
    var position: SourcePosition
  }

  private struct CustomerFields {
    var id: String?
    var name: String?
    var appID: String?
    var bundleIdentifiers: [BundleIdentifierEntry]?
  }

  private mutating func validateCustomer(_ entry: JSONValue, index: Int) throws -> Customer? {
    let path = "customers[\(index)]"
    guard case .object(let object) = entry.content else {
      report(path, at: entry.position, "expected a customer object, found \(entry.foundDescription)")
      return nil
    }
    let findingsBefore = findings.count
    let members = knownMembers(of: object, at: entry.position, path: path, fields: Self.customerFields)

    var fields = CustomerFields()
    if let member = members["id"] {
      fields.id = checkedString(member.value, path: "\(path).id", rule: ManifestRules.problem(withID:))
    }
    if let member = members["name"] {
      fields.name = checkedString(member.value, path: "\(path).name", rule: ManifestRules.problem(withName:))
    }
    if let member = members["app_id"] {
      fields.appID = checkedString(
        member.value, path: "\(path).app_id", rule: ManifestRules.problem(withAppID:))
    }
    if let member = members["bundle_identifiers"] {
      fields.bundleIdentifiers = checkedBundleIdentifiers(member.value, path: "\(path).bundle_identifiers")
    }

    let label = CustomerLabel(
      index: index, id: effectiveID(fields, members: members, path: path, entry: entry))
    checkUniqueness(fields, of: label, members: members, entry: entry)
    var customModels: [CustomModel]?
    flowsOfCustomer = []
    if let member = members["customModels"] {
      customModels = try checkedModels(member.value, path: "\(path).customModels", customer: label)
    }
    let features = members["features"].flatMap { checkedFeatures($0.value, path: "\(path).features") }
    // An unusable list has been reported; its flows are then checked as if it were absent.
    checkFlowsAreLicensed(features: features?.map(\.name))

    guard findings.count == findingsBefore, let id = label.id, let appID = fields.appID,
      let bundleIdentifiers = fields.bundleIdentifiers, let customModels
    else { return nil }
    return Customer(
      id: id, name: fields.name, appID: appID, bundleIdentifiers: bundleIdentifiers.map(\.identifier),
      customModels: customModels, features: features?.map(\.name), index: index, line: entry.position.line)
  }

  /// The explicit id, or the one `Customer.derivedID` gives when the entry has none. Nil when it
  /// cannot be known yet (the fields it comes from have problems of their own).
  private mutating func effectiveID(
    _ fields: CustomerFields, members: [String: JSONObjectMember], path: String, entry: JSONValue
  ) -> String? {
    if members["id"] != nil { return fields.id }
    if members["name"] != nil && fields.name == nil { return nil }
    let slugOfName = fields.name.map(Customer.slugify) ?? ""
    guard !slugOfName.isEmpty || fields.appID != nil else { return nil }
    let derived = Customer.derivedID(name: fields.name, appID: fields.appID ?? "")
    if !Customer.isValidID(derived) {
      report(
        path, at: entry.position,
        "the id derived from \"\(Self.derivationSource(fields))\" is \(derived.quotedForMessage), which is not a "
          + "valid id; add an \"id\"")
      return nil
    }
    return derived
  }

  /// The field `Customer.derivedID` takes the id from.
  private static func derivationSource(_ fields: CustomerFields) -> String {
    fields.name.map(Customer.slugify)?.isEmpty == false ? "name" : "app_id"
  }

  /// Ids, app ids and bundle identifiers each belong to one customer.
  private mutating func checkUniqueness(
    _ fields: CustomerFields, of label: CustomerLabel, members: [String: JSONObjectMember], entry: JSONValue
  ) {
    let path = "customers[\(label.index)]"
    if let id = label.id {
      if let owner = idOwners[id] {
        if let member = members["id"] {
          report(
            "\(path).id", at: member.value.position,
            "id \(id.quotedForMessage) is also used by \(owner)")
        } else {
          report(
            path, at: entry.position,
            "id \(id.quotedForMessage) (derived from \"\(Self.derivationSource(fields))\") is also used by \(owner); "
              + "add a distinct \"id\"")
        }
      } else {
        idOwners[id] = label
        let packageName = Customer.packageName(ofID: id)
        if let (owner, name) = packageNameOwners[packageName.lowercased()] {
          let clash =
            name == packageName
            ? "which \(owner) also gets"
            : "which differs only in case from \(name) of \(owner): one name on case-insensitive file systems (macOS)"
          report(
            members["id"] != nil ? "\(path).id" : path, at: members["id"]?.value.position ?? entry.position,
            "id \(id.quotedForMessage) gives the package name \(packageName), \(clash); choose an id that differs in more than its dashes"
          )
        } else {
          packageNameOwners[packageName.lowercased()] = (label, packageName)
        }
      }
    }
    if let appID = fields.appID, let member = members["app_id"] {
      if let owner = appIDOwners[appID.lowercased()] {
        report(
          "\(path).app_id", at: member.value.position,
          "app id \(appID.quotedForMessage) is also used by \(owner)")
      } else {
        appIDOwners[appID.lowercased()] = label
      }
    }
    for entry in fields.bundleIdentifiers ?? [] {
      let key = entry.identifier.lowercased()
      if let (owner, firstPath) = bundleIdentifierOwners[key] {
        let other =
          owner.index == label.index ? "listed twice (first at \(firstPath))" : "also used by \(owner)"
        report(
          entry.path, at: entry.position, "bundle identifier \(entry.identifier.quotedForMessage) is \(other)"
        )
      } else {
        bundleIdentifierOwners[key] = (label, entry.path)
      }
    }
  }

  /// The valid identifiers of a non-empty array; nil when the value is no such array.
  private mutating func checkedBundleIdentifiers(
    _ value: JSONValue, path: String
  ) -> [BundleIdentifierEntry]? {
    guard case .array(let elements) = value.content else {
      report(
        path, at: value.position, "expected an array of bundle identifiers, found \(value.foundDescription)")
      return nil
    }
    if elements.isEmpty {
      report(path, at: value.position, "expected at least one bundle identifier, found an empty array")
      return nil
    }
    var identifiers: [BundleIdentifierEntry] = []
    for (index, element) in elements.enumerated() {
      let elementPath = "\(path)[\(index)]"
      if let identifier = checkedString(
        element, path: elementPath, rule: ManifestRules.problem(withBundleIdentifier:))
      {
        identifiers.append(
          BundleIdentifierEntry(identifier: identifier, path: elementPath, position: element.position))
      }
    }
    return identifiers
  }

  // MARK: - Features

  /// The names of a non-empty array of distinct feature names (known ones, when the catalog is
  /// at hand); nil when the value is no such array. Every element is checked.
  private mutating func checkedFeatures(_ value: JSONValue, path: String) -> [(name: String, path: String)]? {
    guard case .array(let elements) = value.content else {
      report(path, at: value.position, "expected an array of feature names, found \(value.foundDescription)")
      return nil
    }
    if elements.isEmpty {
      let known = catalog.map { " (one or more of: \($0.names.joined(separator: ", ")))" } ?? ""
      report(path, at: value.position, "expected at least one feature\(known), found an empty array")
      return nil
    }
    var features: [(name: String, path: String)] = []
    var valid = true
    for (index, element) in elements.enumerated() {
      let elementPath = "\(path)[\(index)]"
      guard
        let name = checkedString(element, path: elementPath, rule: ManifestRules.problem(withFeatureName:))
      else {
        valid = false
        continue
      }
      if let first = features.first(where: { $0.name == name }) {
        report(
          elementPath, at: element.position,
          "feature \(name.quotedForMessage) is listed twice (first at \(first.path))")
        valid = false
        continue
      }
      if let catalog, catalog.feature(named: name) == nil {
        let suggestion = ManifestRules.closestMatch(to: name, among: catalog.names).map {
          "did you mean \($0.quotedForMessage)? "
        }
        report(
          elementPath, at: element.position,
          "unknown feature \(name.quotedForMessage) (\(suggestion ?? "")expected one of: "
            + "\(catalog.names.joined(separator: ", ")) from \(catalog.displayPath))")
        valid = false
        continue
      }
      features.append((name, elementPath))
    }
    return valid ? features : nil
  }

  /// Every flow of the customer is served by a feature, and by one it has: a model of a feature
  /// the customer does not license has no code to run it in its package.
  /// - Parameter features: the customer's list; nil when it lists none (it gets what its flows need).
  private mutating func checkFlowsAreLicensed(features: [String]?) {
    guard let catalog else { return }
    for flow in flowsOfCustomer {
      guard let feature = catalog.feature(servingFlow: flow.flowName) else {
        report(
          "\(flow.path).flowName", at: flow.position,
          "flow \(flow.flowName.quotedForMessage) is served by no feature of \(catalog.displayPath) "
            + "(expected a flow of one: \(catalog.flowSummary))")
        continue
      }
      if let features, !features.contains(feature.name) {
        report(
          "\(flow.path).flowName", at: flow.position,
          "flow \(flow.flowName.quotedForMessage) belongs to feature \(feature.name.quotedForMessage), which "
            + "this customer's features (\(features.joined(separator: ", "))) do not include; add it or remove the model"
        )
      }
    }
  }

  // MARK: - Models

  /// The valid models of a non-empty array; nil when the value is no such array.
  private mutating func checkedModels(_ value: JSONValue, path: String, customer: CustomerLabel) throws
    -> [CustomModel]?
  {
    guard case .array(let elements) = value.content else {
      report(path, at: value.position, "expected an array of models, found \(value.foundDescription)")
      return nil
    }
    if elements.isEmpty {
      report(path, at: value.position, "expected at least one model, found an empty array (nothing to ship)")
      return nil
    }
    var models: [CustomModel] = []
    var firstPathOfFlow: [String: String] = [:]
    for (index, element) in elements.enumerated() {
      let elementPath = "\(path)[\(index)]"
      if let model = try checkedModel(
        element, path: elementPath, customer: customer, firstPathOfFlow: &firstPathOfFlow)
      {
        models.append(model)
      }
    }
    return models
  }

  private mutating func checkedModel(
    _ value: JSONValue, path: String, customer: CustomerLabel, firstPathOfFlow: inout [String: String]
  ) throws -> CustomModel? {
    guard case .object(let object) = value.content else {
      report(
        path, at: value.position,
        "expected a model object with flowId, flowName and modelVersion, found \(value.foundDescription)")
      return nil
    }
    let findingsBefore = findings.count
    let members = knownMembers(of: object, at: value.position, path: path, fields: Self.modelFields)
    let flowId = members["flowId"].flatMap { positiveInteger($0.value, path: "\(path).flowId") }
    let flowName = members["flowName"].flatMap {
      checkedString($0.value, path: "\(path).flowName", rule: ManifestRules.problem(withFlowName:))
    }
    let modelVersion = members["modelVersion"].flatMap {
      positiveInteger($0.value, path: "\(path).modelVersion")
    }

    if let flowName, let flowNameMember = members["flowName"] {
      if let firstPath = firstPathOfFlow[flowName] {
        // The first entry of this flow is checked in full; repeating those checks adds only noise.
        report(
          "\(path).flowName", at: flowNameMember.value.position,
          "flow \(flowName.quotedForMessage) is listed twice for this customer (first at \(firstPath))")
        return nil
      }
      firstPathOfFlow[flowName] = path
      if let flowId, let flowIdMember = members["flowId"] {
        checkFlowConsistency(
          flowId: flowId, flowName: flowName, at: flowIdMember.value.position, path: "\(path).flowId",
          customer: customer)
      }
      try checkStore(
        flowName: flowName, at: flowNameMember.value.position, modelVersion: modelVersion,
        versionPosition: members["modelVersion"]?.value.position, path: path)
      // A flow the store does not have is reported as such; the feature checks take the others.
      if try !versionsInStore(of: flowName).isEmpty {
        flowsOfCustomer.append((flowName, path, flowNameMember.value.position))
      }
    }

    guard findings.count == findingsBefore, let flowId, let flowName, let modelVersion else { return nil }
    return CustomModel(flowId: flowId, flowName: flowName, modelVersion: modelVersion)
  }

  /// A flowId names one flow throughout the manifest, and a flow has one flowId.
  private mutating func checkFlowConsistency(
    flowId: Int, flowName: String, at position: SourcePosition, path: String, customer: CustomerLabel
  ) {
    if let first = flowNameByID[flowId], first.flowName != flowName {
      report(
        path, at: position,
        "flowId \(flowId) is used for \(first.flowName.quotedForMessage) in \(first.user), "
          + "but here for \(flowName.quotedForMessage)")
    } else if let first = flowIDByName[flowName], first.flowId != flowId {
      report(
        path, at: position,
        "flow \(flowName.quotedForMessage) has flowId \(first.flowId) in \(first.user), but \(flowId) here")
    }
    if flowNameByID[flowId] == nil { flowNameByID[flowId] = (flowName, customer) }
    if flowIDByName[flowName] == nil { flowIDByName[flowName] = (flowId, customer) }
  }

  private mutating func checkStore(
    flowName: String, at position: SourcePosition, modelVersion: Int?, versionPosition: SourcePosition?,
    path: String
  ) throws {
    let versions = try versionsInStore(of: flowName)
    if versions.isEmpty {
      report("\(path).flowName", at: position, try unknownFlowMessage(flowName))
    } else if let modelVersion, let versionPosition, !versions.contains(modelVersion) {
      report(
        "\(path).modelVersion", at: versionPosition,
        "\(ModelReference(flowName: flowName, version: modelVersion)) is not in the model store "
          + "(have \(versions.map(String.init).joined(separator: ", ")))")
    }
  }

  private mutating func versionsInStore(of flowName: String) throws -> [Int] {
    if let versions = storeVersions[flowName] { return versions }
    let versions = try store.versions(of: flowName)
    storeVersions[flowName] = versions
    return versions
  }

  private mutating func unknownFlowMessage(_ flowName: String) throws -> String {
    let flowNames = try storeFlowNames ?? store.flowNames()
    storeFlowNames = flowNames
    let message = "flow \(flowName.quotedForMessage) is not in the model store"
    guard !flowNames.isEmpty else { return message + " (the store has no flows)" }
    var listed = flowNames.prefix(Self.listedFlowLimit).joined(separator: ", ")
    if flowNames.count > Self.listedFlowLimit {
      listed += " and \(flowNames.count - Self.listedFlowLimit) more"
    }
    let suggestion = ManifestRules.closestMatch(to: flowName, among: flowNames).map {
      "; did you mean \($0.quotedForMessage)?"
    }
    return message + " (have \(listed))" + (suggestion ?? "")
  }

  // MARK: - Values

  /// The members whose keys the format knows, by key; reports unknown and missing ones.
  private mutating func knownMembers(
    of object: [JSONObjectMember], at position: SourcePosition, path: String,
    fields: (required: [String], optional: [String])
  ) -> [String: JSONObjectMember] {
    let knownKeys = fields.required + fields.optional
    var members: [String: JSONObjectMember] = [:]
    for member in object {
      if knownKeys.contains(member.key) {
        members[member.key] = member
      } else if let suggestion = ManifestRules.closestMatch(to: member.key, among: knownKeys) {
        report(
          path, at: member.keyPosition,
          "unknown field \(member.key.quotedForMessage) (did you mean \(suggestion.quotedForMessage)?)")
      } else {
        report(
          path, at: member.keyPosition,
          "unknown field \(member.key.quotedForMessage) (expected one of: \(knownKeys.sorted().joined(separator: ", ")))"
        )
      }
    }
    for key in fields.required where members[key] == nil {
      report(path, at: position, "missing required field \(key.quotedForMessage)")
    }
    return members
  }

  /// The string when it is one and `rule` finds nothing wrong with it.
  private mutating func checkedString(_ value: JSONValue, path: String, rule: (String) -> String?) -> String?
  {
    guard case .string(let string) = value.content else {
      report(path, at: value.position, "expected a string, found \(value.foundDescription)")
      return nil
    }
    if let problem = rule(string) {
      report(path, at: value.position, problem)
      return nil
    }
    return string
  }

  private mutating func positiveInteger(_ value: JSONValue, path: String) -> Int? {
    guard case .integer(let integer) = value.content else {
      report(path, at: value.position, "expected a positive integer, found \(value.foundDescription)")
      return nil
    }
    if integer <= 0 {
      report(path, at: value.position, "expected a positive integer, found \(integer)")
      return nil
    }
    return integer
  }
}

/// How messages name another customer: `customers[0] (acme)`, or `customers[0]` while its id
/// is unknown.
struct CustomerLabel: CustomStringConvertible {
  var index: Int
  var id: String?

  var description: String { "customers[\(index)]" + (id.map { " (\($0))" } ?? "") }
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
