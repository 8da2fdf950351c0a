// The features of this build are re-exported, so that the app's `import ContextSDK` sees their
// API.
@_exported import ContextSDKATT
@_exported import ContextSDKConversion
import ContextSDKCore
import Foundation

enum CustomerRegistry {
  /// The name of this customer's configuration in the target's resources.
  static let resourceName = "customer.json"

  /// This build's customer, read once from `customer.json` next to the models; or why it
  /// could not be read. A package without it, with one this SDK cannot read, or whose resource
  /// bundle the app does not carry, was changed after it was delivered: the package's own tests
  /// fail on it, and an app gets no decisions from it (see `ContextSDK.configurationError`)
  /// instead of crashing.
  static let loaded: (configuration: CustomerConfiguration, error: CustomerConfigurationError?) = {
    guard let bundle = ResourceBundle.bundle else {
      return (.unavailable, .resourceBundleMissing(name: ResourceBundle.name))
    }
    let file = bundle.url(forResource: resourceName, withExtension: nil)
    return CustomerConfiguration.loadOrUnavailable(from: file)
  }()
}
