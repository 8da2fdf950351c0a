@_exported import ContextSDKCore
import Foundation

/// The SDK's entry point in the customer's app. This file is the same for every customer;
/// `CustomerRegistry.swift` (which also re-exports the customer's feature modules, each adding
/// its own API to this type) and the bundled models differ.
public enum ContextSDK: CustomerBuild {
  public static var configuration: CustomerConfiguration { CustomerRegistry.configuration }

  /// The model file shipped in this package for a flow, or `nil` when this customer's build
  /// has no model for it.
  public static func bundledModelURL(forFlow flowName: String) -> URL? {
    guard let model = configuration.model(forFlow: flowName) else { return nil }
    // `Bundle.module` is generated per target, so the lookup has to happen in this target,
    // which owns the `Models` resource folder.
    return Bundle.module.url(forResource: model.resourceName, withExtension: nil, subdirectory: "Models")
  }

  /// Follows this build's over-the-air manifest once: downloads the models the rollout rule
  /// picks for this device into `downloadsDirectory` (where `resolveModel` looks) and removes
  /// retracted ones. Call it at launch or in the background; the bundled models stay the
  /// fallback whatever happens. The install id that places this device in rollouts is kept in
  /// `installIDDirectory`.
  public static func updateModels(downloadsDirectory: URL, installIDDirectory: URL) async -> ModelUpdateReport {
    guard let text = configuration.modelManifestURL, let url = URL(string: text) else {
      return ModelUpdateReport(error: "this build has no over-the-air manifest URL")
    }
    let installID: String
    do { installID = try InstallID.load(from: installIDDirectory) } catch {
      return ModelUpdateReport(error: "no install id: \(error)")
    }
    return await ModelUpdater(
      manifestURL: url, configuration: configuration, downloadsDirectory: downloadsDirectory, installID: installID
    ).update()
  }

  public static func isAllowed(bundleIdentifier: String?) -> Bool {
    configuration.bundleIdentifierCheck.isAllowed(bundleIdentifier: bundleIdentifier)
  }

  /// Whether the app (or extension) this code runs in is one of the customer's.
  public static var isRunningAppAllowed: Bool {
    configuration.bundleIdentifierCheck.isRunningAppAllowed()
  }
}
