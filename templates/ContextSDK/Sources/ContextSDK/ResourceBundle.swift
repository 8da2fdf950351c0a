import Foundation

/// This target's resource bundle (`customer.json`, the models, the privacy manifest), found
/// without SwiftPM's generated `Bundle.module`, which stops the app when the bundle is not
/// where it looks (an app that repackages the SDK as a binary framework, some previews and
/// test hosts). A missing bundle is reported as a configuration error instead
/// (`CustomerConfigurationError.resourceBundleMissing`).
enum ResourceBundle {
  /// `<package>_<target>`: SwiftPM's name for the `ContextSDK` target's bundle; `.bundle` on
  /// Apple platforms, `.resources` elsewhere.
  static let name = "ContextSDK_ContextSDK"
  static let fileNames = [name + ".bundle", name + ".resources"]

  /// The bundle, looked for once.
  static let bundle: Bundle? = find()

  private final class Marker {}

  /// Beside or inside the app's bundle, then beside or inside the bundle holding this code
  /// (a framework, a test bundle).
  private static func find() -> Bundle? {
    let code = Bundle(for: Marker.self)
    let directories = [
      Bundle.main.resourceURL, Bundle.main.bundleURL, code.resourceURL, code.bundleURL,
      code.bundleURL.deletingLastPathComponent(),
    ]
    for directory in directories.compactMap({ $0 }) {
      for fileName in fileNames {
        let candidate = directory.appendingPathComponent(fileName, isDirectory: true)
        var isDirectory: ObjCBool = false
        if FileManager.default.fileExists(atPath: candidate.path, isDirectory: &isDirectory),
          isDirectory.boolValue,
          let bundle = Bundle(url: candidate)
        {
          return bundle
        }
      }
    }
    return nil
  }
}
