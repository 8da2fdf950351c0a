import Foundation
import ReleaseJSON
import ReleaseModels

// `customers.json` is read in two steps: decoding turns each entry into a draft that keeps
// what could be read and where it stands (every problem of form reported on the way), and
// `ManifestValidator` checks the drafts against each other, the model store and the feature
// catalog. All problems are then reported in document order.

/// A value read from the manifest, with where it stands.
struct Located<Value> {
  var value: Value
  var path: String
  var position: SourcePosition
}

extension JSONValueDecoder {
  func located<Value>(_ value: Value?) -> Located<Value>? {
    value.map { Located(value: $0, path: path, position: position) }
  }

  /// The members whose keys the format knows; reports unknown and missing ones.
  fileprivate func manifestObject(
    expected: String, fields: (required: [String], optional: [String])
  ) -> JSONObjectDecoder? {
    guard let object = object(expected: expected) else { return nil }
    let knownKeys = fields.required + fields.optional
    object.refuseUnknownKeys(known: knownKeys) { member, _ in
      if let suggestion = ManifestRules.closestMatch(to: member.key, among: knownKeys) {
        report(
          "unknown field \(member.key.quotedForMessage) (did you mean \(suggestion.quotedForMessage)?)",
          at: member.keyPosition)
      } else {
        report(
          "unknown field \(member.key.quotedForMessage) (expected one of: \(knownKeys.sorted().joined(separator: ", ")))",
          at: member.keyPosition)
      }
    }
    for key in fields.required where object[key] == nil {
      report("missing required field \(key.quotedForMessage)")
    }
    return object
  }

  /// A positive integer, else nil after reporting.
  fileprivate var positiveInteger: Int? {
    guard let integer = integer(expected: "a positive integer") else { return nil }
    if integer <= 0 {
      report("expected a positive integer, found \(integer)")
      return nil
    }
    return integer
  }

  /// The elements of a non-empty array, else nil after reporting.
  fileprivate func nonEmptyArray(of noun: String, empty: String) -> [JSONValueDecoder]? {
    guard let elements = array(expected: "an array of \(noun)") else { return nil }
    if elements.isEmpty {
      report(empty)
      return nil
    }
    return elements
  }
}

/// One entry of `customers.json` as far as it could be decoded: a field with problems is nil.
struct CustomerDraft: JSONValueDecodable {
  static let fields = (
    required: ["bundle_identifiers", "app_id", "customModels"], optional: ["id", "name", "features"]
  )

  var position: SourcePosition
  var path: String
  /// The keys the entry has (known ones), whether or not their values are usable.
  var keys: Set<String>
  var id: Located<String>?
  var name: String?
  var appID: Located<String>?
  /// The valid identifiers of a non-empty array.
  var bundleIdentifiers: [Located<String>]?
  /// The models that are objects; nil when the value is no non-empty array.
  var customModels: [ModelDraft]?
  /// Each element of an array of names, nil where it is not a valid one; nil when the value is
  /// no array. An empty list is the validator's to refuse (its message names the catalog).
  var features: Located<[Located<String>?]>?

  init?(from decoder: JSONValueDecoder) {
    guard let object = decoder.manifestObject(expected: "a customer object", fields: Self.fields) else {
      return nil
    }
    position = decoder.position
    path = decoder.path
    keys = Set(object.keys).intersection(Self.fields.required + Self.fields.optional)
    id = object["id"].flatMap {
      $0.located($0.string(expected: "a string", rule: ManifestRules.problem(withID:)))
    }
    name = object["name"]?.string(expected: "a string", rule: ManifestRules.problem(withName:))
    appID = object["app_id"].flatMap {
      $0.located($0.string(expected: "a string", rule: ManifestRules.problem(withAppID:)))
    }
    bundleIdentifiers = object["bundle_identifiers"]?.nonEmptyArray(
      of: "bundle identifiers", empty: "expected at least one bundle identifier, found an empty array"
    )?.compactMap {
      $0.located($0.string(expected: "a string", rule: ManifestRules.problem(withBundleIdentifier:)))
    }
    customModels = object["customModels"]?.nonEmptyArray(
      of: "models", empty: "expected at least one model, found an empty array (nothing to ship)"
    )?.compactMap { $0.decode(ModelDraft.self) }
    if let field = object["features"], let elements = field.array(expected: "an array of feature names") {
      features = field.located(
        elements.map {
          $0.located($0.string(expected: "a string", rule: ManifestRules.problem(withFeatureName:)))
        })
    }
  }
}

/// One element of `customModels` as far as it could be decoded: a field with problems is nil.
struct ModelDraft: JSONValueDecodable {
  static let fields = (required: ["flowId", "flowName", "modelVersion"], optional: [String]())

  var path: String
  var flowId: Located<Int>?
  var flowName: Located<String>?
  var modelVersion: Located<Int>?

  init?(from decoder: JSONValueDecoder) {
    guard
      let object = decoder.manifestObject(
        expected: "a model object with flowId, flowName and modelVersion", fields: Self.fields)
    else { return nil }
    path = decoder.path
    flowId = object["flowId"].flatMap { $0.located($0.positiveInteger) }
    flowName = object["flowName"].flatMap {
      $0.located($0.string(expected: "a string", rule: ManifestRules.problem(withFlowName:)))
    }
    modelVersion = object["modelVersion"].flatMap { $0.located($0.positiveInteger) }
  }
}

/// Checks decoded `customers.json` entries across customers, and against the model store and
/// the feature catalog: duplicates, derived ids, consistent flow ids, models that exist and
/// flows the customer's features serve.
struct ManifestValidator {
  /// How many store flows an "unknown flow" message lists before summarising the rest.
  static let listedFlowLimit = 20

  let store: ModelStore
  /// The template's features; without them `features` lists are checked only for their form.
  let catalog: FeatureCatalog?
  /// Where problems go: the decoding run of the manifest, so they are reported together.
  private let problems: JSONValueDecoder

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
  private var flowsOfCustomer: [Located<String>] = []

  init(store: ModelStore, catalog: FeatureCatalog? = nil, reportingTo problems: JSONValueDecoder) {
    self.store = store
    self.catalog = catalog
    self.problems = problems
  }

  /// Decodes and checks the manifest at `root`. Throws `ValidationFailure` with every problem
  /// found, in document order, or the store's own error when the store cannot be read (not the
  /// manifest's fault).
  static func customers(
    of root: JSONValue, file: String, store: ModelStore, catalog: FeatureCatalog?
  ) throws -> [Customer] {
    let decoder = JSONValueDecoder(root, file: file)
    guard let entries = decoder.array(expected: "a top-level array of customers", elementPrefix: "customers")
    else { return try decoder.finish(nil) }
    if entries.isEmpty { decoder.report("expected at least one customer, found an empty array") }
    let drafts = entries.enumerated().compactMap { index, entry in
      entry.decode(CustomerDraft.self).map { (index, $0) }
    }
    var validator = ManifestValidator(store: store, catalog: catalog, reportingTo: decoder)
    var customers: [Customer] = []
    for (index, draft) in drafts {
      if let customer = try validator.validate(draft, index: index) { customers.append(customer) }
    }
    return try decoder.finish(customers, inDocumentOrder: true)
  }

  private func report(_ path: String, at position: SourcePosition, _ message: String) {
    problems.report(message, path: path, at: position)
  }

  // MARK: - Customers

  /// The customer, when its draft is complete (a run with problems throws before it is used).
  private mutating func validate(_ draft: CustomerDraft, index: Int) throws -> Customer? {
    let label = CustomerLabel(index: index, id: effectiveID(draft))
    checkUniqueness(draft, of: label)
    flowsOfCustomer = []
    var customModels: [CustomModel]?
    if let models = draft.customModels {
      var firstPathOfFlow: [String: String] = [:]
      customModels = []
      for model in models {
        if let model = try validate(model, customer: label, firstPathOfFlow: &firstPathOfFlow) {
          customModels?.append(model)
        }
      }
    }
    let features = checkedFeatures(draft.features)
    // An unusable list has been reported; its flows are then checked as if it were absent.
    checkFlowsAreLicensed(features: features)

    guard let id = label.id, let appID = draft.appID, let bundleIdentifiers = draft.bundleIdentifiers,
      let customModels
    else { return nil }
    return Customer(
      id: id, name: draft.name, appID: appID.value, bundleIdentifiers: bundleIdentifiers.map(\.value),
      customModels: customModels, features: features, index: index, line: draft.position.line)
  }

  /// The explicit id, or the one `Customer.derivedID` gives when the entry has none. Nil when it
  /// cannot be known yet (the fields it comes from have problems of their own).
  private func effectiveID(_ draft: CustomerDraft) -> String? {
    if draft.keys.contains("id") { return draft.id?.value }
    if draft.keys.contains("name") && draft.name == nil { return nil }
    let slugOfName = draft.name.map(Customer.slugify) ?? ""
    guard !slugOfName.isEmpty || draft.appID != nil else { return nil }
    let derived = Customer.derivedID(name: draft.name, appID: draft.appID?.value ?? "")
    if !Customer.isValidID(derived) {
      report(
        draft.path, at: draft.position,
        "the id derived from \"\(Self.derivationSource(draft))\" is \(derived.quotedForMessage), which is not a "
          + "valid id; add an \"id\"")
      return nil
    }
    return derived
  }

  /// The field `Customer.derivedID` takes the id from.
  private static func derivationSource(_ draft: CustomerDraft) -> String {
    draft.name.map(Customer.slugify)?.isEmpty == false ? "name" : "app_id"
  }

  /// Ids, app ids and bundle identifiers each belong to one customer.
  private mutating func checkUniqueness(_ draft: CustomerDraft, of label: CustomerLabel) {
    let path = draft.path
    if let id = label.id {
      if let owner = idOwners[id] {
        if let explicit = draft.id {
          report(explicit.path, at: explicit.position, "id \(id.quotedForMessage) is also used by \(owner)")
        } else {
          report(
            path, at: draft.position,
            "id \(id.quotedForMessage) (derived from \"\(Self.derivationSource(draft))\") is also used by \(owner); "
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
            draft.id?.path ?? path, at: draft.id?.position ?? draft.position,
            "id \(id.quotedForMessage) gives the package name \(packageName), \(clash); choose an id that differs in more than its dashes"
          )
        } else {
          packageNameOwners[packageName.lowercased()] = (label, packageName)
        }
      }
    }
    if let appID = draft.appID {
      if let owner = appIDOwners[appID.value.lowercased()] {
        report(
          appID.path, at: appID.position, "app id \(appID.value.quotedForMessage) is also used by \(owner)")
      } else {
        appIDOwners[appID.value.lowercased()] = label
      }
    }
    for entry in draft.bundleIdentifiers ?? [] {
      let key = entry.value.lowercased()
      if let (owner, firstPath) = bundleIdentifierOwners[key] {
        let other =
          owner.index == label.index ? "listed twice (first at \(firstPath))" : "also used by \(owner)"
        report(
          entry.path, at: entry.position, "bundle identifier \(entry.value.quotedForMessage) is \(other)")
      } else {
        bundleIdentifierOwners[key] = (label, entry.path)
      }
    }
  }

  // MARK: - Features

  /// The names of a non-empty list of distinct feature names (known ones, when the catalog is
  /// at hand); nil when the list is absent or not such a list. Every element is checked.
  private func checkedFeatures(_ list: Located<[Located<String>?]>?) -> [String]? {
    guard let list else { return nil }
    if list.value.isEmpty {
      let known = catalog.map { " (one or more of: \($0.names.joined(separator: ", ")))" } ?? ""
      report(list.path, at: list.position, "expected at least one feature\(known), found an empty array")
      return nil
    }
    var features: [Located<String>] = []
    var valid = true
    for element in list.value {
      guard let element else {
        valid = false
        continue
      }
      let name = element.value
      if let first = features.first(where: { $0.value == name }) {
        report(
          element.path, at: element.position,
          "feature \(name.quotedForMessage) is listed twice (first at \(first.path))")
        valid = false
        continue
      }
      if let catalog, catalog.feature(named: name) == nil {
        let suggestion = ManifestRules.closestMatch(to: name, among: catalog.names).map {
          "did you mean \($0.quotedForMessage)? "
        }
        report(
          element.path, at: element.position,
          "unknown feature \(name.quotedForMessage) (\(suggestion ?? "")expected one of: "
            + "\(catalog.names.joined(separator: ", ")) from \(catalog.displayPath))")
        valid = false
        continue
      }
      features.append(element)
    }
    return valid ? features.map(\.value) : nil
  }

  /// Every flow of the customer is served by a feature, and by one it has: a model of a feature
  /// the customer does not license has no code to run it in its package.
  /// - Parameter features: the customer's list; nil when it lists none (it gets what its flows need).
  private func checkFlowsAreLicensed(features: [String]?) {
    guard let catalog else { return }
    for flow in flowsOfCustomer {
      guard let feature = catalog.feature(servingFlow: flow.value) else {
        report(
          flow.path, at: flow.position,
          "flow \(flow.value.quotedForMessage) is served by no feature of \(catalog.displayPath) "
            + "(expected a flow of one: \(catalog.flowSummary))")
        continue
      }
      if let features, !features.contains(feature.name) {
        report(
          flow.path, at: flow.position,
          "flow \(flow.value.quotedForMessage) belongs to feature \(feature.name.quotedForMessage), which "
            + "this customer's features (\(features.joined(separator: ", "))) do not include; add it or remove the model"
        )
      }
    }
  }

  // MARK: - Models

  private mutating func validate(
    _ model: ModelDraft, customer: CustomerLabel, firstPathOfFlow: inout [String: String]
  ) throws -> CustomModel? {
    if let flowName = model.flowName {
      if let firstPath = firstPathOfFlow[flowName.value] {
        // The first entry of this flow is checked in full; repeating those checks adds only noise.
        report(
          flowName.path, at: flowName.position,
          "flow \(flowName.value.quotedForMessage) is listed twice for this customer (first at \(firstPath))")
        return nil
      }
      firstPathOfFlow[flowName.value] = model.path
      if let flowId = model.flowId {
        checkFlowConsistency(
          flowId: flowId.value, flowName: flowName.value, at: flowId.position, path: flowId.path,
          customer: customer)
      }
      try checkStore(
        flowName: flowName.value, at: flowName.position, modelVersion: model.modelVersion?.value,
        versionPosition: model.modelVersion?.position, path: model.path)
      // A flow the store does not have is reported as such; the feature checks take the others.
      if try !versionsInStore(of: flowName.value).isEmpty { flowsOfCustomer.append(flowName) }
    }
    guard let flowId = model.flowId, let flowName = model.flowName, let modelVersion = model.modelVersion
    else { return nil }
    return CustomModel(flowId: flowId.value, flowName: flowName.value, modelVersion: modelVersion.value)
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

}

/// How messages name another customer: `customers[0] (acme)`, or `customers[0]` while its id
/// is unknown.
struct CustomerLabel: CustomStringConvertible {
  var index: Int
  var id: String?

  var description: String { "customers[\(index)]" + (id.map { " (\($0))" } ?? "") }
}
