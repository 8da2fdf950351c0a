import Foundation
import ReleaseArchive
import ReleaseGeneration
import ReleaseManifest

/// The privacy manifest scan: the package's `PrivacyInfo.xcprivacy` is a property list that
/// tracks no one, collects nothing, and declares exactly the required-reason API categories
/// the package's code uses (`RequiredReasonAPI`), each with reasons Apple accepts for it. The
/// code is every C, Objective-C and Swift file under `Sources/` (tests do not ship in the app),
/// read for the APIs' names as whole identifiers, comments included: a mention is declared
/// like a call rather than let a call slip past. One instance reads one package.
struct PrivacyManifestCheck {
  /// The first use of each category: file, line and the API's name.
  private var uses: [RequiredReasonAPI: (path: String, line: Int, symbol: String)] = [:]
  private var manifest: [UInt8]?

  static let sourceExtensions: Set<String> = ["swift", "c", "h", "m", "mm"]

  /// Takes in one file of the package (`path` relative to its root).
  mutating func add(_ contents: [UInt8], path: String) {
    if path == PrivacyManifest.file { manifest = contents }
    guard path.hasPrefix("Sources/"), Self.sourceExtensions.contains((path as NSString).pathExtension) else {
      return
    }
    var line = 1
    var index = 0
    while index < contents.count {
      guard ForeignCustomerCheck.isWordByte(contents[index]) else {
        if contents[index] == UInt8(ascii: "\n") { line += 1 }
        index += 1
        continue
      }
      var end = index
      while end < contents.count, ForeignCustomerCheck.isWordByte(contents[end]) { end += 1 }
      let word = String(decoding: contents[index..<end], as: UTF8.self)
      if let category = RequiredReasonAPI.category(ofSymbol: word), uses[category] == nil {
        uses[category] = (path, line, word)
      }
      index = end
    }
  }

  /// What is wrong with the package's privacy manifest, after every file was added.
  func problems(archive name: String) -> [String] {
    let file = PrivacyManifest.file
    guard let manifest else { return ["\(name): \(file) is missing; every package declares its privacy"] }
    let declared: [RequiredReasonAPI: [String]]
    switch Self.declarations(in: Data(manifest)) {
    case .failure(let problem): return ["\(name): \(file): \(problem)"]
    case .success(let found): declared = found
    }
    var problems: [String] = []
    for (category, use) in uses.sorted(by: { $0.key.rawValue < $1.key.rawValue })
    where declared[category] == nil {
      problems.append(
        "\(name): \(use.path):\(use.line) uses \(use.symbol) (\(category.rawValue)), which \(file) does not declare; declare it with its reason in features.json (the core's \"core\", a feature's own \"privacy\")"
      )
    }
    for category in declared.keys.sorted(by: { $0.rawValue < $1.rawValue }) where uses[category] == nil {
      problems.append(
        "\(name): \(file) declares \(category.rawValue), which no file under Sources/ uses; remove it from features.json"
      )
    }
    return problems
  }

  private struct Problem: Error, CustomStringConvertible {
    let description: String
  }

  /// The declared categories and reasons; or why the file is no privacy manifest of a package
  /// that tracks no one and collects nothing.
  private static func declarations(in data: Data) -> Result<[RequiredReasonAPI: [String]], Problem> {
    guard let plist = try? PropertyListSerialization.propertyList(from: data, format: nil) as? [String: Any]
    else {
      return .failure(Problem(description: "not a property list with a dictionary at its root"))
    }
    guard plist["NSPrivacyTracking"] as? Bool == false,
      (plist["NSPrivacyTrackingDomains"] as? [Any])?.isEmpty == true,
      (plist["NSPrivacyCollectedDataTypes"] as? [Any])?.isEmpty == true,
      let types = plist["NSPrivacyAccessedAPITypes"] as? [Any]
    else {
      return .failure(
        Problem(
          description:
            "expected NSPrivacyTracking false, NSPrivacyTrackingDomains and NSPrivacyCollectedDataTypes empty, and an NSPrivacyAccessedAPITypes array"
        ))
    }
    var declared: [RequiredReasonAPI: [String]] = [:]
    for (index, entry) in types.enumerated() {
      let entry = entry as? [String: Any]
      guard let category = (entry?["NSPrivacyAccessedAPIType"] as? String).flatMap(RequiredReasonAPI.init),
        let reasons = entry?["NSPrivacyAccessedAPITypeReasons"] as? [String], !reasons.isEmpty,
        reasons.allSatisfy(category.reasons.contains), declared[category] == nil
      else {
        return .failure(
          Problem(
            description:
              "NSPrivacyAccessedAPITypes[\(index)]: expected a category of Apple's list, once, with reasons Apple accepts for it"
          ))
      }
      declared[category] = reasons
    }
    return .success(declared)
  }
}

/// The checks that read every byte of every file of a package: the foreign-customer scan and
/// the privacy manifest scan, in one pass over the archive.
package struct PackageContentScans: Sendable {
  let foreignCustomers: ForeignCustomerCheck

  /// For `customerID`'s package, against every other customer of `manifest`.
  /// - Parameter templateWords: the template's words that are identifiers, read once per run.
  package init(customerID: String, manifest: Manifest, templateWords: TemplateWords) {
    foreignCustomers = ForeignCustomerCheck(
      customerID: customerID, manifest: manifest, templateWords: templateWords.words)
  }

  /// The words of a template that are also an id or name of a customer of the manifest
  /// (`ForeignCustomerCheck`), read once per run.
  package struct TemplateWords: Sendable {
    let words: Set<[UInt8]>

    package init(_ template: PackageTemplate, manifest: Manifest) {
      words = ForeignCustomerCheck.templateWords(template, manifest: manifest)
    }
  }

  /// The problems of the safe archive `archive` (named `name` in messages) whose package is
  /// under `top`.
  func problems(of archive: URL, name: String, top: String) -> [String] {
    var problems: [String] = []
    var privacy = PrivacyManifestCheck()
    do {
      try ZipReader.forEachFile(in: archive) { entry, data in
        var contents: [UInt8] = []
        try data.forEachBlock { contents.append(contentsOf: $0) }
        let path = entry.path.hasPrefix(top + "/") ? String(entry.path.dropFirst(top.count + 1)) : entry.path
        problems += foreignCustomers.problems(in: contents, path: path, archive: name)
        privacy.add(contents, path: path)
      }
    } catch {
      return ["\(name): \(error)"]
    }
    return problems + privacy.problems(archive: name)
  }
}
