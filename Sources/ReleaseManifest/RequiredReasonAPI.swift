import Foundation
import ReleaseJSON

/// Apple's required-reason API categories: an app whose code (its SDKs' included) calls one of
/// these APIs must declare the category with an approved reason in a privacy manifest, or App
/// Store Connect rejects the upload (ITMS-91053). The categories, their reasons and the APIs
/// are Apple's list, "Describing use of required reason API":
/// https://developer.apple.com/documentation/bundleresources/describing-use-of-required-reason-api
public enum RequiredReasonAPI: String, CaseIterable, Sendable {
  case fileTimestamp = "NSPrivacyAccessedAPICategoryFileTimestamp"
  case systemBootTime = "NSPrivacyAccessedAPICategorySystemBootTime"
  case diskSpace = "NSPrivacyAccessedAPICategoryDiskSpace"
  case activeKeyboards = "NSPrivacyAccessedAPICategoryActiveKeyboards"
  case userDefaults = "NSPrivacyAccessedAPICategoryUserDefaults"

  /// The reason codes Apple accepts for the category.
  public var reasons: [String] {
    switch self {
    case .fileTimestamp: return ["DDA9.1", "C617.1", "3B52.1", "0A2A.1"]
    case .systemBootTime: return ["35F9.1", "8FFB.1", "3D61.1"]
    case .diskSpace: return ["85F4.1", "E174.1", "7D9E.1", "B728.1"]
    case .activeKeyboards: return ["3EC4.1", "54BD.1"]
    case .userDefaults: return ["CA92.1", "1C8F.1", "C56D.1", "AC6B.1"]
    }
  }

  /// The names in source code (Swift, C, Objective-C) that use the category, each a whole
  /// identifier: Apple's list of APIs with their Foundation keys and the C functions under them.
  public var symbols: [String] {
    switch self {
    case .fileTimestamp:
      return [
        "creationDate", "modificationDate", "fileModificationDate", "fileCreationDate",
        "contentModificationDateKey", "creationDateKey", "NSFileCreationDate", "NSFileModificationDate",
        "NSURLContentModificationDateKey", "NSURLCreationDateKey", "getattrlist", "getattrlistbulk",
        "fgetattrlist", "getattrlistat", "stat", "fstat", "fstatat", "lstat",
      ]
    case .systemBootTime: return ["systemUptime", "mach_absolute_time"]
    case .diskSpace:
      return [
        "volumeAvailableCapacityKey", "volumeAvailableCapacityForImportantUsageKey",
        "volumeAvailableCapacityForOpportunisticUsageKey", "volumeTotalCapacityKey", "systemFreeSize",
        "systemSize", "NSFileSystemFreeSize", "NSFileSystemSize", "statfs", "statvfs", "fstatfs", "fstatvfs",
      ]
    case .activeKeyboards: return ["activeInputModes"]
    case .userDefaults: return ["UserDefaults", "NSUserDefaults"]
    }
  }

  /// The category whose APIs include `symbol`.
  public static func category(ofSymbol symbol: String) -> RequiredReasonAPI? { bySymbol[symbol] }

  private static let bySymbol: [String: RequiredReasonAPI] = Dictionary(
    uniqueKeysWithValues: allCases.flatMap { category in category.symbols.map { ($0, category) } })
}

/// What a part of the SDK declares in the package's privacy manifest: the required-reason
/// categories its code uses, each with its reasons (`features.json`: a feature's `privacy`, the
/// core's `core.privacy`).
public typealias PrivacyDeclarations = [RequiredReasonAPI: [String]]

/// `{"<category>": ["<reason>", …], …}`: categories of `RequiredReasonAPI`, each with at least
/// one of its reasons.
struct PrivacyDraft: JSONValueDecodable {
  var declarations: PrivacyDeclarations = [:]

  init?(from decoder: JSONValueDecoder) {
    let expected = "an object of required-reason categories, each with an array of reason codes"
    guard let object = decoder.object(expected: expected) else { return nil }
    for (member, entry) in object.entries {
      guard let category = RequiredReasonAPI(rawValue: member.key) else {
        let known = RequiredReasonAPI.allCases.map(\.rawValue).joined(separator: ", ")
        entry.report("not a required-reason category; expected one of \(known)", at: member.keyPosition)
        continue
      }
      let allowed = category.reasons
      let expectedReason = "one of \(allowed.joined(separator: ", "))"
      guard let elements = entry.array(expected: "a non-empty array of reason codes"), !elements.isEmpty
      else {
        if case .array = entry.value.content {
          entry.reportMismatch(expected: "a non-empty array of reason codes")
        }
        continue
      }
      let reasons = elements.compactMap { $0.string(expected: expectedReason, where: allowed.contains) }
      if reasons.count == elements.count { declarations[category] = reasons }
    }
  }
}
