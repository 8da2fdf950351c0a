import Foundation

/// Whether an app may run this customer's build: its models were trained on that customer's
/// data, so other apps (including ones that copied the package) get no decisions from it.
struct BundleIdentifierCheck: Equatable, Sendable {
  let allowedBundleIdentifiers: [String]

  init(allowedBundleIdentifiers: [String]) {
    self.allowedBundleIdentifiers = allowedBundleIdentifiers
  }

  /// Exact comparison; a process without a bundle identifier (`nil`) is never allowed.
  func isAllowed(bundleIdentifier: String?) -> Bool {
    guard let bundleIdentifier else { return false }
    return allowedBundleIdentifiers.contains(bundleIdentifier)
  }

  /// Checks the running app (or extension) through its main bundle.
  func isRunningAppAllowed(mainBundle: Bundle = .main) -> Bool {
    isAllowed(bundleIdentifier: mainBundle.bundleIdentifier)
  }
}
