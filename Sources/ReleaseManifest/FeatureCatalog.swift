import Foundation
import ReleaseJSON

/// One part of the SDK a customer can license: its own module (with its tests), the flows it
/// decides and the signals it computes for their models.
public struct Feature: Equatable, Hashable, Sendable {
  /// The name `customers.json` uses in `features` (`att`, `conversion`).
  public var name: String
  /// The Swift module, `Sources/<module>` in the template; its tests are `Tests/<module>Tests`.
  public var module: String
  /// One line for the package's README.
  public var summary: String
  /// The flows whose models this feature runs; a flow belongs to exactly one feature.
  public var flows: [String]
  /// The signals this feature computes: every input of its flows' models must be one of them.
  public var signals: [String]
  /// The required-reason APIs its module uses, for the package's privacy manifest.
  public var privacy: PrivacyDeclarations

  public init(
    name: String, module: String, summary: String, flows: [String], signals: [String],
    privacy: PrivacyDeclarations = [:]
  ) {
    self.name = name
    self.module = module
    self.summary = summary
    self.flows = flows
    self.signals = signals
    self.privacy = privacy
  }

  /// The template directories that are this feature's and nothing else's: without the feature,
  /// none of their files is in the package.
  public var directories: [String] { ["Sources/\(module)", "Tests/\(module)Tests"] }

  /// Whether `relativePath` (a path in the template or the package) is a file of this feature.
  public func owns(_ relativePath: String) -> Bool {
    directories.contains { relativePath.hasPrefix($0 + "/") }
  }
}

/// `templates/ContextSDK/features.json`: the parts of the SDK sold separately.
///
/// ```json
/// {"core": {"privacy": {"NSPrivacyAccessedAPICategoryFileTimestamp": ["C617.1"]}},
///  "features": {"att": {"module": "ContextSDKATT", "summary": "…",
///   "flows": ["tracking_permission"], "signals": ["app_launches", …], "privacy": {…}}, …}}
/// ```
///
/// `privacy` (optional, the core's and each feature's) lists the required-reason APIs that
/// part's code uses (`RequiredReasonAPI`): every package's privacy manifest declares the core's
/// and its features' own.
///
/// A customer's package holds the shared core and only the modules of its features, so the
/// catalog decides which template files a package gets, which flows a customer may have models
/// for, and which signals a model of a flow may read.
public struct FeatureCatalog: Equatable, Sendable {
  public static let fileName = "features.json"

  /// Sorted by name.
  public let features: [Feature]
  /// How messages name the file (`templates/ContextSDK/features.json`).
  public let displayPath: String
  /// The required-reason APIs the shared core uses (`core.privacy`).
  public let corePrivacy: PrivacyDeclarations

  public init(features: [Feature], displayPath: String, corePrivacy: PrivacyDeclarations = [:]) {
    self.features = features.sorted { $0.name < $1.name }
    self.displayPath = displayPath
    self.corePrivacy = corePrivacy
  }

  /// What a package with `features` declares: the core's categories and those features', each
  /// category's reasons in the order first declared, without repeats.
  public func privacy(of features: [Feature]) -> PrivacyDeclarations {
    var merged = corePrivacy
    for feature in features {
      for (category, reasons) in feature.privacy {
        let known = merged[category] ?? []
        merged[category] = known + reasons.filter { !known.contains($0) }
      }
    }
    return merged
  }

  public var names: [String] { features.map(\.name) }

  public func feature(named name: String) -> Feature? { features.first { $0.name == name } }

  /// The feature whose module runs `flowName`'s models; nil for a flow no feature serves.
  public func feature(servingFlow flowName: String) -> Feature? {
    features.first { $0.flows.contains(flowName) }
  }

  /// The feature a template or package file belongs to; nil for the shared core's files.
  public func owner(of relativePath: String) -> Feature? { features.first { $0.owns(relativePath) } }

  /// What a customer without a `features` list gets: the features its flows need, by name.
  public func features(serving flows: [String]) -> [String] {
    Set(flows.compactMap { feature(servingFlow: $0)?.name }).sorted()
  }

  /// The features `customer` gets, sorted by name: those it lists, or else those its flows
  /// need. Names the catalog does not know are left out (the manifest check refuses them).
  public func features(of customer: Customer) -> [Feature] {
    let names = customer.features ?? features(serving: customer.customModels.map(\.flowName))
    return features.filter { names.contains($0.name) }
  }

  /// "att serves tracking_permission; conversion serves onboarding_upsell, …", for messages.
  public var flowSummary: String {
    features.map { "\($0.name) serves \($0.flows.joined(separator: ", "))" }.joined(separator: "; ")
  }

  // MARK: - Reading

  /// Reads and checks the catalog; every problem is reported, each naming its JSON path.
  /// - Parameter templateFiles: the template's file paths, so that a feature's module must exist.
  public static func load(data: Data, displayPath: String, templateFiles: [String]) throws -> FeatureCatalog {
    let root = JSONValueDecoder(try JSONDocument.parse(data, file: displayPath), file: displayPath)
    guard case .object(let members) = root.value.content,
      let featuresMember = members.first(where: { $0.key == "features" }),
      members.allSatisfy({ ["core", "features"].contains($0.key) }),
      case .object(let featureMembers) = featuresMember.value.content
    else {
      root.report(
        "expected {\"core\": {\"privacy\": {…}}, \"features\": {\"<name>\": {…}, …}}, found \(root.found)")
      return try root.finish(nil)
    }
    let corePrivacy = members.first { $0.key == "core" }.flatMap { core in
      root.decoder(for: core).decode(CoreDraft.self)?.privacy
    }
    let entries = JSONObjectDecoder(decoder: root.decoder(for: featuresMember), members: featureMembers)
    if entries.isEmpty { root.report("expected at least one feature, found none", path: "features") }
    var features: [Feature] = []
    var rules = FeatureRules(file: displayPath, templateFiles: templateFiles)
    // Each feature's rules run right after it is decoded, so its problems stay together.
    for (member, entry) in entries.entries {
      if ManifestRules.problem(withFeatureName: member.key) != nil {
        entry.report(
          "not a feature name; expected a lower-case letter, then lower-case letters, digits or '_'",
          at: member.keyPosition)
      }
      guard let draft = entry.decode(FeatureDraft.self) else { continue }
      root.append(rules.problems(of: draft, named: member.key, path: entry.path))
      if let feature = draft.feature(named: member.key) { features.append(feature) }
    }
    return try root.finish(
      FeatureCatalog(features: features, displayPath: displayPath, corePrivacy: corePrivacy ?? [:]))
  }

  /// A Swift identifier naming a module of the SDK: `ContextSDK` followed by more, and not one
  /// of the modules every package has.
  static func isModuleName(_ name: String) -> Bool {
    guard name.hasPrefix("ContextSDK"), name.count > "ContextSDK".count, name != "ContextSDKCore",
      name.count <= 64
    else { return false }
    return name.unicodeScalars.allSatisfy {
      ("a"..."z").contains($0) || ("A"..."Z").contains($0) || ("0"..."9").contains($0)
    }
  }
}

/// One entry of `features.json` as far as it could be decoded: a field with problems is nil.
struct FeatureDraft: JSONValueDecodable {
  static let fields = ["module", "summary", "flows", "signals", "privacy"]

  var module: (text: String, position: SourcePosition)?
  var summary: String?
  var flows: (names: [String], position: SourcePosition)?
  var signals: [String]?
  /// Nil when `privacy` is there with problems; empty when it is not there.
  var privacy: PrivacyDeclarations? = [:]

  init?(from decoder: JSONValueDecoder) {
    let fieldList = Self.fields.joined(separator: ", ")
    guard let object = decoder.object(expected: "an object with \(fieldList)") else { return nil }
    object.refuseUnknownKeys(known: Self.fields) { member, field in
      field.report("unknown key; expected \(fieldList)", at: member.keyPosition)
    }
    func string(_ key: String) -> (text: String, position: SourcePosition)? {
      guard let field = object.required(key, missing: "missing; expected a string"),
        let text = field.string(expected: "a non-empty one-line string", where: Self.isOneLine)
      else { return nil }
      return (text, field.position)
    }
    module = string("module")
    summary = string("summary")?.text
    if let field = object.required("flows", missing: "missing; expected an array of names"),
      let list = field.decode(NameList.self)
    {
      flows = (list.names, field.position)
    }
    signals =
      object.required("signals", missing: "missing; expected an array of names")?
      .decode(NameList.self)?.names
    if let field = object["privacy"] { privacy = field.decode(PrivacyDraft.self)?.declarations }
  }

  static func isOneLine(_ text: String) -> Bool {
    !text.isEmpty && !text.unicodeScalars.contains(where: \.isUnsafeInOneLineMessage)
  }

  func feature(named name: String) -> Feature? {
    guard let module, let summary, let flows, let signals, let privacy else { return nil }
    return Feature(
      name: name, module: module.text, summary: summary, flows: flows.names, signals: signals,
      privacy: privacy)
  }
}

/// `core` of `features.json`: `{"privacy": {…}}`, what the shared core declares.
struct CoreDraft: JSONValueDecodable {
  var privacy: PrivacyDeclarations

  init?(from decoder: JSONValueDecoder) {
    guard let object = decoder.object(expected: "an object with privacy") else { return nil }
    object.refuseUnknownKeys(known: ["privacy"]) { member, field in
      field.report("unknown key; expected privacy", at: member.keyPosition)
    }
    guard let field = object["privacy"] else {
      privacy = [:]
      return
    }
    guard let declarations = field.decode(PrivacyDraft.self)?.declarations else { return nil }
    privacy = declarations
  }
}

/// A non-empty array of distinct names (flow or signal names: both follow the flow-name rule).
/// Each element is checked; the names that are valid are kept.
struct NameList: JSONValueDecodable {
  var names: [String] = []

  init?(from decoder: JSONValueDecoder) {
    guard let elements = decoder.array(expected: "a non-empty array of names") else { return nil }
    guard !elements.isEmpty else {
      decoder.reportMismatch(expected: "a non-empty array of names")
      return nil
    }
    for element in elements {
      guard
        let name = element.string(
          expected: "a name of lower-case letters, digits and '_'",
          where: { ManifestRules.problem(withFlowName: $0) == nil })
      else { continue }
      if names.contains(name) { element.report("\(name.quotedForMessage) is listed twice") }
      names.append(name)
    }
  }
}

/// The rules of `features.json` across features: a module that exists in the template and
/// belongs to one feature, and a flow served by one feature.
struct FeatureRules {
  let file: String
  let templateFiles: [String]
  private var flowOwners: [String: String] = [:]
  private var moduleOwners: [String: String] = [:]

  init(file: String, templateFiles: [String]) {
    self.file = file
    self.templateFiles = templateFiles
  }

  /// The problems of feature `name` (decoded at JSON path `path`), given the features before it.
  mutating func problems(of draft: FeatureDraft, named name: String, path: String) -> [Diagnostic] {
    var problems: [Diagnostic] = []
    func report(_ key: String, _ message: String, at position: SourcePosition) {
      problems.append(Diagnostic(file: file, path: "\(path).\(key)", message: message, line: position.line))
    }
    if let (module, position) = draft.module {
      if !FeatureCatalog.isModuleName(module) {
        report(
          "module",
          "\(module.quotedForMessage) is not a module name; expected a Swift identifier starting with \"ContextSDK\" (not the core's \"ContextSDKCore\")",
          at: position)
      } else if !templateFiles.contains(where: { $0.hasPrefix("Sources/\(module)/") }) {
        report(
          "module", "the template has no Sources/\(module)/; expected the feature's module there",
          at: position)
      } else if let owner = moduleOwners[module] {
        report(
          "module", "\(module.quotedForMessage) is already the module of feature \(owner.quotedForMessage)",
          at: position)
      }
      moduleOwners[module] = moduleOwners[module] ?? name
    }
    if let (flows, position) = draft.flows {
      for flow in flows {
        if let owner = flowOwners[flow], owner != name {
          report(
            "flows",
            "flow \(flow.quotedForMessage) is already served by feature \(owner.quotedForMessage); a flow belongs to one feature",
            at: position)
        }
        flowOwners[flow] = flowOwners[flow] ?? name
      }
    }
    return problems
  }
}
