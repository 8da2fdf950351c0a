import Foundation

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

  public init(name: String, module: String, summary: String, flows: [String], signals: [String]) {
    self.name = name
    self.module = module
    self.summary = summary
    self.flows = flows
    self.signals = signals
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
/// {"features": {"att": {"module": "ContextSDKATT", "summary": "…",
///   "flows": ["tracking_permission"], "signals": ["app_launches", …]}, …}}
/// ```
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

  public init(features: [Feature], displayPath: String) {
    self.features = features.sorted { $0.name < $1.name }
    self.displayPath = displayPath
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

  static let featureFields = ["module", "summary", "flows", "signals"]

  /// Reads and checks the catalog; every problem is reported, each naming its JSON path.
  /// - Parameter templateFiles: the template's file paths, so that a feature's module must exist.
  public static func load(data: Data, displayPath: String, templateFiles: [String]) throws -> FeatureCatalog {
    var problems: [Diagnostic] = []
    func report(_ path: String, _ message: String, at position: SourcePosition?) {
      problems.append(Diagnostic(file: displayPath, path: path, message: message, line: position?.line))
    }
    let root = try JSONDocument.parse(data, file: displayPath)
    guard case .object(let members) = root.content, members.count == 1, members[0].key == "features",
      case .object(let entries) = members[0].value.content
    else {
      report(
        "", "expected {\"features\": {\"<name>\": {…}, …}}, found \(root.foundDescription)", at: root.position
      )
      throw ValidationFailure(problems)
    }
    if entries.isEmpty { report("features", "expected at least one feature, found none", at: root.position) }

    var features: [Feature] = []
    var flowOwners: [String: String] = [:]
    var moduleOwners: [String: String] = [:]
    for entry in entries {
      let path = "features.\(entry.key)"
      if ManifestRules.problem(withFeatureName: entry.key) != nil {
        report(
          path, "not a feature name; expected a lower-case letter, then lower-case letters, digits or '_'",
          at: entry.keyPosition)
      }
      guard case .object(let fields) = entry.value.content else {
        report(
          path,
          "expected an object with \(featureFields.joined(separator: ", ")), found \(entry.value.foundDescription)",
          at: entry.value.position)
        continue
      }
      var values: [String: JSONValue] = [:]
      for field in fields {
        if featureFields.contains(field.key) {
          values[field.key] = field.value
        } else {
          report(
            "\(path).\(field.key)", "unknown key; expected \(featureFields.joined(separator: ", "))",
            at: field.keyPosition)
        }
      }
      func string(_ key: String) -> String? {
        guard let value = values[key] else {
          report("\(path).\(key)", "missing; expected a string", at: entry.value.position)
          return nil
        }
        guard case .string(let text) = value.content, !text.isEmpty,
          !text.unicodeScalars.contains(where: \.isUnsafeInOneLineMessage)
        else {
          report(
            "\(path).\(key)", "expected a non-empty one-line string, found \(value.foundDescription)",
            at: value.position)
          return nil
        }
        return text
      }
      func names(_ key: String, rule: (String) -> String?) -> [String]? {
        guard let value = values[key] else {
          report("\(path).\(key)", "missing; expected an array of names", at: entry.value.position)
          return nil
        }
        guard case .array(let elements) = value.content, !elements.isEmpty else {
          report(
            "\(path).\(key)", "expected a non-empty array of names, found \(value.foundDescription)",
            at: value.position)
          return nil
        }
        var names: [String] = []
        for (index, element) in elements.enumerated() {
          guard case .string(let name) = element.content, rule(name) == nil else {
            report(
              "\(path).\(key)[\(index)]",
              "expected a name of lower-case letters, digits and '_', found \(element.foundDescription)",
              at: element.position)
            continue
          }
          if names.contains(name) {
            report(
              "\(path).\(key)[\(index)]", "\(name.quotedForMessage) is listed twice", at: element.position)
          }
          names.append(name)
        }
        return names
      }
      let module = string("module")
      let summary = string("summary")
      let flows = names("flows", rule: ManifestRules.problem(withFlowName:))
      let signals = names("signals", rule: ManifestRules.problem(withFeatureName:))
      if let module, let position = values["module"]?.position {
        if !isModuleName(module) {
          report(
            "\(path).module",
            "\(module.quotedForMessage) is not a module name; expected a Swift identifier starting with \"ContextSDK\" (not the core's \"ContextSDKCore\")",
            at: position)
        } else if !templateFiles.contains(where: { $0.hasPrefix("Sources/\(module)/") }) {
          report(
            "\(path).module", "the template has no Sources/\(module)/; expected the feature's module there",
            at: position)
        } else if let owner = moduleOwners[module] {
          report(
            "\(path).module",
            "\(module.quotedForMessage) is already the module of feature \(owner.quotedForMessage)",
            at: position)
        }
        moduleOwners[module] = moduleOwners[module] ?? entry.key
      }
      for flow in flows ?? [] {
        if let owner = flowOwners[flow], owner != entry.key {
          report(
            "\(path).flows",
            "flow \(flow.quotedForMessage) is already served by feature \(owner.quotedForMessage); a flow belongs to one feature",
            at: values["flows"]?.position)
        }
        flowOwners[flow] = flowOwners[flow] ?? entry.key
      }
      if let module, let summary, let flows, let signals {
        features.append(
          Feature(name: entry.key, module: module, summary: summary, flows: flows, signals: signals))
      }
    }
    if !problems.isEmpty { throw ValidationFailure(problems) }
    return FeatureCatalog(features: features, displayPath: displayPath)
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
