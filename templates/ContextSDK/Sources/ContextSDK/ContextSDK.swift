@_exported import ContextSDKCore
import Foundation

/// The SDK's entry point in your app. Your features' modules (re-exported by
/// `CustomerRegistry.swift`) each add their own API to this type.
///
/// Nothing here crashes the app: when this package's `customer.json` cannot be read,
/// `configurationError` says why, and the SDK runs with no models and no allowed apps, so every
/// decision falls back to "no model" (do not show the prompt) and no update is attempted.
public enum ContextSDK: CustomerBuild {
  /// This build's configuration, or `CustomerConfiguration.unavailable` when it could not be
  /// read (see `configurationError`).
  public static var configuration: CustomerConfiguration { CustomerRegistry.loaded.configuration }

  /// Why this package's `customer.json` could not be read; nil when it was. Worth logging once
  /// at launch: a package as delivered always has a readable one.
  public static var configurationError: CustomerConfigurationError? { CustomerRegistry.loaded.error }

  /// The model file shipped in this package for a flow, or `nil` when this customer's build
  /// has no model for it.
  public static func bundledModelURL(forFlow flowName: String) -> URL? {
    guard let model = configuration.model(forFlow: flowName) else { return nil }
    return ResourceBundle.bundle?.url(
      forResource: model.resourceName, withExtension: nil, subdirectory: "Models")
  }
}
