import Foundation

/// One customer's build of the SDK: its configuration and its bundled models. The package's
/// `ContextSDK` enum is the one conforming type. Each feature module adds its API to it through
/// an extension of this protocol, so a package without a feature has none of that feature's
/// API: calling it does not compile, rather than failing in the app.
public protocol CustomerBuild {
  /// The build's configuration; `CustomerConfiguration.unavailable` (no models, no allowed
  /// apps) when it could not be read, and then `configurationError` says why.
  static var configuration: CustomerConfiguration { get }

  /// Why the build's configuration could not be read; nil when it was.
  static var configurationError: CustomerConfigurationError? { get }

  /// The model file shipped in this package for a flow, or `nil` when this build has no model
  /// for it.
  static func bundledModelURL(forFlow flowName: String) -> URL?
}

extension CustomerBuild {
  /// A build whose configuration is given in code has nothing to read.
  public static var configurationError: CustomerConfigurationError? { nil }

  /// The bundled model or a newer over-the-air one from `downloadsDirectory` (see
  /// `ModelResolver`; by default where `updateModels()` puts them); `nil` when this build has
  /// no model for the flow, or when its configuration could not be read (see
  /// `configurationError`): then the app makes no decision with a model, e.g. it does not show
  /// the prompt. Only reads files.
  public static func resolveModel(
    forFlow flowName: String, downloadsDirectory: URL = ModelUpdateConfiguration.defaultModelsDirectory
  ) -> ResolvedModel? {
    guard let model = configuration.model(forFlow: flowName),
      let bundledURL = bundledModelURL(forFlow: flowName)
    else { return nil }
    return ModelResolver().resolve(model, bundledModelURL: bundledURL, downloadsDirectory: downloadsDirectory)
  }

  /// Follows this build's over-the-air manifest once: downloads the models the rollout rule
  /// picks for this device into `configuration.modelsDirectory` (where `model(forFlow:)` and
  /// `resolveModel(forFlow:)` look) and retires retracted and outdated ones. Call it at launch
  /// or in the background (cancelling the task stops it at once); the bundled models stay the
  /// fallback whatever happens, and a call sooner than `minimumCheckInterval` after the last
  /// check does nothing. The install id that places this device in rollouts is kept in
  /// `configuration.stateDirectory`, with the highest manifest revision this install accepted.
  /// The report's `error` says why nothing was changed, if so: a manifest not signed by a key
  /// this build pins, for another customer or app, expired or older than one accepted changes
  /// nothing.
  public static func updateModels(
    _ configuration: ModelUpdateConfiguration = ModelUpdateConfiguration()
  ) async -> ModelUpdateReport {
    await updateModels(configuration, backup: .system)
  }

  static func updateModels(
    _ settings: ModelUpdateConfiguration, backup: BackupExclusion
  ) async -> ModelUpdateReport {
    if let configurationError { return ModelUpdateReport(error: .configuration(configurationError)) }
    guard let channel = configuration.channel else { return ModelUpdateReport(error: .noChannel) }
    let installID: String
    do throws(InstallID.Unreadable) {
      installID = try InstallID.load(from: settings.stateDirectory)
    } catch {
      return ModelUpdateReport(error: .installID(error))
    }
    // Best effort: a folder that cannot be excluded is still the right place for the id.
    try? backup.exclude(settings.stateDirectory)
    return await ModelUpdater(
      channel: channel, configuration: configuration, installID: installID, settings: settings
    ).update()
  }

  /// Whether `bundleIdentifier` is one of the customer's apps; false when the configuration
  /// could not be read.
  public static func isAllowed(bundleIdentifier: String?) -> Bool {
    configuration.bundleIdentifierCheck.isAllowed(bundleIdentifier: bundleIdentifier)
  }

  /// Whether the app (or extension) this code runs in is one of the customer's; false when the
  /// configuration could not be read.
  public static var isRunningAppAllowed: Bool {
    configuration.bundleIdentifierCheck.isRunningAppAllowed()
  }
}
