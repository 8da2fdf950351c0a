import Foundation
import ReleaseModels

/// One model a customer ships: a flow (decision point) at a numbered model version.
public struct CustomModel: Equatable, Hashable, Sendable {
  public var flowId: Int
  public var flowName: String
  public var modelVersion: Int

  public init(flowId: Int, flowName: String, modelVersion: Int) {
    self.flowId = flowId
    self.flowName = flowName
    self.modelVersion = modelVersion
  }

  public var reference: ModelReference { ModelReference(flowName: flowName, version: modelVersion) }
}

/// One entry of `customers.json`, validated.
public struct Customer: Equatable, Sendable {
  /// Short slug used in names, paths, tags and `release customer <id>`.
  public var id: String
  public var name: String?
  public var appID: String
  public var bundleIdentifiers: [String]
  public var customModels: [CustomModel]
  /// The features the customer licenses, as `customers.json` lists them; nil when it lists
  /// none, and then the customer gets the features its flows need
  /// (`FeatureCatalog.features(of:)`).
  public var features: [String]?
  /// Position in the manifest's array (for messages: `customers[3]`).
  public var index: Int
  /// 1-based line of the entry's opening brace in the manifest (for CI annotations).
  public var line: Int

  public init(
    id: String, name: String?, appID: String, bundleIdentifiers: [String],
    customModels: [CustomModel], features: [String]? = nil, index: Int, line: Int
  ) {
    self.id = id
    self.name = name
    self.appID = appID
    self.bundleIdentifiers = bundleIdentifiers
    self.customModels = customModels
    self.features = features
    self.index = index
    self.line = line
  }

  /// The generated Swift package's name: `acme` -> `ContextSDK_Acme`, `fjord-travel` ->
  /// `ContextSDK_FjordTravel`. Ids are validated slugs, so the result is a valid identifier.
  public var packageName: String { Self.packageName(ofID: id) }

  /// Dashes drop out, so two ids can give one package name (`acme-2`, `acme2`): the manifest
  /// validation refuses that, since packages, archives and dependencies are named by it.
  public static func packageName(ofID id: String) -> String {
    let words = id.split(whereSeparator: { $0 == "-" || $0 == "_" }).map { word in
      word.prefix(1).uppercased() + word.dropFirst()
    }
    return "ContextSDK_" + words.joined()
  }

  /// The id used when the entry has none: the slug of `name`, else `app-` and the first
  /// eight hex digits of the app id. Deterministic, so paths and tags stay stable.
  public static func derivedID(name: String?, appID: String) -> String {
    if let name {
      let slug = slugify(name)
      if !slug.isEmpty { return slug }
    }
    return "app-" + appID.lowercased().filter(\.isHexDigit).prefix(8)
  }

  static func slugify(_ text: String) -> String {
    var slug = ""
    for scalar in text.lowercased().unicodeScalars {
      if ("a"..."z").contains(scalar) || ("0"..."9").contains(scalar) {
        slug.unicodeScalars.append(scalar)
      } else if !slug.isEmpty && !slug.hasSuffix("-") {
        slug.append("-")
      }
    }
    slug = String(slug.prefix(40))
    while slug.hasSuffix("-") { slug.removeLast() }
    return slug
  }

  /// Ids are lower-case slugs: safe in paths, git tag names, URLs and Swift identifiers.
  public static func isValidID(_ id: String) -> Bool {
    guard (1...40).contains(id.count), let first = id.unicodeScalars.first,
      let last = id.unicodeScalars.last
    else { return false }
    let allowed = { (s: Unicode.Scalar) in ("a"..."z").contains(s) || ("0"..."9").contains(s) || s == "-" }
    return id.unicodeScalars.allSatisfy(allowed) && first != "-" && last != "-" && !id.contains("--")
  }
}

/// A validated `customers.json`.
public struct Manifest: Equatable, Sendable {
  /// The file as given on the command line (used verbatim in messages).
  public var path: String
  public var customers: [Customer]

  public init(path: String, customers: [Customer]) {
    self.path = path
    self.customers = customers
  }

  /// Finds a customer by slug or by app id (case-insensitive for the UUID).
  public func customer(matching key: String) -> Customer? {
    customers.first { $0.id == key } ?? customers.first { $0.appID.lowercased() == key.lowercased() }
  }
}
