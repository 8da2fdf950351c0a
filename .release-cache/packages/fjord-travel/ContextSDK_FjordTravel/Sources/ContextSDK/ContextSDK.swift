@_exported import ContextSDKCore
import Foundation

/// The SDK's entry point in the customer's app. This file is the same for every customer;
/// only `CustomerRegistry.swift` and the bundled models differ.
public enum ContextSDK {
  public static var configuration: CustomerConfiguration { CustomerRegistry.configuration }

  /// The model file shipped in this package for a flow, or `nil` when this customer's build
  /// has no model for it.
  public static func bundledModelURL(forFlow flowName: String) -> URL? {
    guard let model = configuration.model(forFlow: flowName) else { return nil }
    // `Bundle.module` is generated per target, so the lookup has to happen in this target,
    // which owns the `Models` resource folder.
    return Bundle.module.url(forResource: model.resourceName, withExtension: nil, subdirectory: "Models")
  }

  /// The bundled model or a newer over-the-air one from `downloadsDirectory` (see
  /// `ModelResolver`); `nil` when this customer's build has no model for the flow.
  public static func resolveModel(forFlow flowName: String, downloadsDirectory: URL) -> ResolvedModel? {
    guard let model = configuration.model(forFlow: flowName),
      let bundledURL = bundledModelURL(forFlow: flowName)
    else { return nil }
    return ModelResolver().resolve(model, bundledModelURL: bundledURL, downloadsDirectory: downloadsDirectory)
  }

  public static func isAllowed(bundleIdentifier: String?) -> Bool {
    configuration.bundleIdentifierCheck.isAllowed(bundleIdentifier: bundleIdentifier)
  }

  /// Whether the app (or extension) this code runs in is one of the customer's.
  public static var isRunningAppAllowed: Bool {
    configuration.bundleIdentifierCheck.isRunningAppAllowed()
  }
}
