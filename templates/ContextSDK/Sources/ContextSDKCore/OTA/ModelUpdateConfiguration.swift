import Foundation

#if canImport(FoundationNetworking)
  import FoundationNetworking
#endif

/// How and where `updateModels` follows the over-the-air channel. Every value has a default:
/// `ContextSDK.updateModels()` is the whole call for most apps.
public struct ModelUpdateConfiguration: Equatable, Sendable {
  /// Where downloaded models are kept (`<flowName>/<modelVersion>.mlmodel`), with the last
  /// manifest for conditional requests: by default `Library/Caches/ContextSDK/Models`. The
  /// system may empty it when the device runs out of space; the flows then run their bundled
  /// models until the next update downloads them again.
  public var modelsDirectory: URL
  /// Where the install id (which places this device in rollouts) and the highest manifest
  /// revision accepted are kept: by default `Library/Application Support/ContextSDK`, which
  /// the system never empties. It is excluded from backups, so a restored or migrated device
  /// draws an id of its own.
  public var stateDirectory: URL
  /// Whether models may be downloaded over a network the system calls expensive (cellular, a
  /// personal hotspot). Nothing is downloaded in Low Data Mode, whatever this says.
  public var allowsExpensiveNetworkAccess: Bool
  /// The least time between two manifest checks: an update called sooner does nothing (its
  /// report says when the next check is due).
  public var minimumCheckInterval: TimeInterval
  /// Seconds the server may stay silent during a request.
  public var requestTimeout: TimeInterval
  /// Seconds one transfer (the manifest, or one model) may take in all.
  public var transferTimeout: TimeInterval

  public init(
    modelsDirectory: URL = ModelUpdateConfiguration.defaultModelsDirectory,
    stateDirectory: URL = ModelUpdateConfiguration.defaultStateDirectory,
    allowsExpensiveNetworkAccess: Bool = true, minimumCheckInterval: TimeInterval = 60 * 60,
    requestTimeout: TimeInterval = 15, transferTimeout: TimeInterval = 300
  ) {
    self.modelsDirectory = modelsDirectory
    self.stateDirectory = stateDirectory
    self.allowsExpensiveNetworkAccess = allowsExpensiveNetworkAccess
    self.minimumCheckInterval = minimumCheckInterval
    self.requestTimeout = requestTimeout
    self.transferTimeout = transferTimeout
  }

  /// `Library/Caches/ContextSDK/Models` of the app's container.
  public static var defaultModelsDirectory: URL {
    directory(.cachesDirectory).appendingPathComponent("ContextSDK/Models", isDirectory: true)
  }

  /// `Library/Application Support/ContextSDK` of the app's container.
  public static var defaultStateDirectory: URL {
    directory(.applicationSupportDirectory).appendingPathComponent("ContextSDK", isDirectory: true)
  }

  private static func directory(_ directory: FileManager.SearchPathDirectory) -> URL {
    FileManager.default.urls(for: directory, in: .userDomainMask).first
      ?? FileManager.default.temporaryDirectory
  }

  /// The same folders inside the container of the App Group `identifier`
  /// (`Library/Caches/ContextSDK/Models`, `Library/Application Support/ContextSDK`), so the app
  /// and its extensions share one install id and one set of models. Nil when this app is not
  /// in that group (see its entitlements).
  public static func appGroup(_ identifier: String) -> ModelUpdateConfiguration? {
    #if canImport(Darwin)
      guard
        let container = FileManager.default.containerURL(forSecurityApplicationGroupIdentifier: identifier)
      else { return nil }
      return inContainer(container)
    #else
      return nil
    #endif
  }

  /// The default folders inside `container`.
  static func inContainer(_ container: URL) -> ModelUpdateConfiguration {
    let library = container.appendingPathComponent("Library", isDirectory: true)
    return ModelUpdateConfiguration(
      modelsDirectory: library.appendingPathComponent("Caches/ContextSDK/Models", isDirectory: true),
      stateDirectory: library.appendingPathComponent("Application Support/ContextSDK", isDirectory: true))
  }

  var transferPolicy: TransferPolicy {
    TransferPolicy(
      requestTimeout: requestTimeout, transferTimeout: transferTimeout,
      allowsExpensiveNetworkAccess: allowsExpensiveNetworkAccess)
  }
}

/// What every request of one update may do: its timeouts, and the networks it may use.
struct TransferPolicy: Equatable, Sendable {
  var requestTimeout: TimeInterval
  var transferTimeout: TimeInterval
  var allowsExpensiveNetworkAccess: Bool
  /// Low Data Mode: never.
  var allowsConstrainedNetworkAccess: Bool { false }

  /// Sets the request's network access (Apple platforms; swift-corelibs-foundation has no such
  /// properties, and Linux no Low Data Mode).
  func applyNetworkAccess(_ request: inout URLRequest) {
    #if canImport(Darwin)
      request.allowsConstrainedNetworkAccess = allowsConstrainedNetworkAccess
      request.allowsExpensiveNetworkAccess = allowsExpensiveNetworkAccess
    #endif
  }
}

/// Keeps a folder out of iCloud and device backups: the Apple call, injected so the logic
/// that decides what is excluded runs in tests on any platform.
struct BackupExclusion: Sendable {
  let exclude: @Sendable (URL) throws -> Void

  static let system = BackupExclusion { url in
    #if canImport(Darwin)
      var values = URLResourceValues()
      values.isExcludedFromBackup = true
      var url = url
      try url.setResourceValues(values)
    #endif
  }
}
