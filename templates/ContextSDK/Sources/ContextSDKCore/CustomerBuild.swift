import Foundation

/// One customer's build of the SDK: its configuration and its bundled models. The package's
/// `ContextSDK` enum is the one conforming type. Each feature module adds its API to it through
/// an extension of this protocol, so a package without a feature has none of that feature's
/// API: calling it does not compile, rather than failing in the app.
public protocol CustomerBuild {
  static var configuration: CustomerConfiguration { get }

  /// The model file shipped in this package for a flow, or `nil` when this build has no model
  /// for it.
  static func bundledModelURL(forFlow flowName: String) -> URL?
}

extension CustomerBuild {
  /// The bundled model or a newer over-the-air one from `downloadsDirectory` (see
  /// `ModelResolver`); `nil` when this build has no model for the flow.
  public static func resolveModel(forFlow flowName: String, downloadsDirectory: URL) -> ResolvedModel? {
    guard let model = configuration.model(forFlow: flowName),
      let bundledURL = bundledModelURL(forFlow: flowName)
    else { return nil }
    return ModelResolver().resolve(model, bundledModelURL: bundledURL, downloadsDirectory: downloadsDirectory)
  }
}
