import Foundation
import ReleaseManifest
import ReleaseSystem

/// The package's privacy manifest, `Sources/ContextSDK/Resources/PrivacyInfo.xcprivacy`: the
/// property list Xcode merges into the app's privacy report, and without which App Store
/// Connect rejects an app whose SDKs call required-reason APIs (ITMS-91053). The SDK tracks
/// no one and collects nothing (decisions are made on the device; outcomes are recorded by the
/// app's own analytics), so only the required-reason APIs vary: those of the core and of the
/// customer's features, as `features.json` declares them (`FeatureCatalog.privacy(of:)`).
/// Apple's reference: https://developer.apple.com/documentation/bundleresources/privacy-manifest-files
public enum PrivacyManifest {
  /// Relative to the package root; a resource of the `ContextSDK` target.
  public static let file = PackageGenerator.resourcesDirectory + "/PrivacyInfo.xcprivacy"

  /// An XML property list, categories in the order of their names: the same declarations
  /// always make the same bytes.
  public static func render(_ declarations: PrivacyDeclarations) -> String {
    let types = declarations.keys.sorted { $0.rawValue < $1.rawValue }.map { category in
      let reasons = declarations[category]!.map { "\t\t\t\t<string>\(XMLText.escaped($0))</string>" }
      return [
        "\t\t<dict>",
        "\t\t\t<key>NSPrivacyAccessedAPIType</key>",
        "\t\t\t<string>\(XMLText.escaped(category.rawValue))</string>",
        "\t\t\t<key>NSPrivacyAccessedAPITypeReasons</key>",
        "\t\t\t<array>",
      ] + reasons + ["\t\t\t</array>", "\t\t</dict>"]
    }
    let lines =
      [
        #"<?xml version="1.0" encoding="UTF-8"?>"#,
        #"<!DOCTYPE plist PUBLIC "-//Apple//DTD PLIST 1.0//EN" "http://www.apple.com/DTDs/PropertyList-1.0.dtd">"#,
        #"<plist version="1.0">"#,
        "<dict>",
        "\t<key>NSPrivacyAccessedAPITypes</key>",
        types.isEmpty ? "\t<array/>" : "\t<array>",
      ] + types.flatMap { $0 } + (types.isEmpty ? [] : ["\t</array>"])
      + [
        "\t<key>NSPrivacyCollectedDataTypes</key>",
        "\t<array/>",
        "\t<key>NSPrivacyTracking</key>",
        "\t<false/>",
        "\t<key>NSPrivacyTrackingDomains</key>",
        "\t<array/>",
        "</dict>",
        "</plist>",
      ]
    return lines.joined(separator: "\n") + "\n"
  }
}
