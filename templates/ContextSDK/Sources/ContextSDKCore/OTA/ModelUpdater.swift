import Foundation

#if canImport(FoundationNetworking)
  import FoundationNetworking
#endif

/// What one update did, per flow, for the app's logs and the package's tests.
public struct ModelUpdateReport: Equatable, Sendable {
  public struct FlowResult: Equatable, Sendable {
    /// The downloaded version the flow now runs; nil: the bundled model.
    public var version: Int?
    public var downloaded: Int?
    public var deleted: [Int] = []
    /// Why the chosen model could not be installed; the flow keeps what it had.
    public var error: String?

    public init(version: Int? = nil, downloaded: Int? = nil, deleted: [Int] = [], error: String? = nil) {
      self.version = version
      self.downloaded = downloaded
      self.deleted = deleted
      self.error = error
    }
  }

  /// Why nothing was changed at all (no manifest, a bad manifest, no network).
  public var error: String?
  /// The manifest's revision that was followed.
  public var revision: Int?
  public var flows: [String: FlowResult] = [:]

  public init(error: String? = nil, revision: Int? = nil, flows: [String: FlowResult] = [:]) {
    self.error = error
    self.revision = revision
    self.flows = flows
  }
}

/// Follows the customer's over-the-air manifest (see `RolloutRule` for the device rule): for
/// each of this build's flows it downloads the model the rule picks into
/// `<downloads>/<flowName>/<modelVersion>.mlmodel`, where `ModelResolver` looks, and removes
/// downloads the rule no longer picks and every retracted one.
///
/// It never leaves a flow without a model: a download goes to a temporary file beside its final
/// name and is renamed into place only with the published size and SHA-256; the model in use
/// is removed only after its replacement is in place, or when it is retracted; the bundled
/// model is never touched. No network, a bad manifest, a wrong digest or a full disk leave
/// everything as it was.
public struct ModelUpdater: Sendable {
  public let manifestURL: URL
  public let configuration: CustomerConfiguration
  public let downloadsDirectory: URL
  public let installID: String
  public let sdkVersion: String
  public let maximumSpecificationVersion: Int
  /// Seconds the server may stay silent during a request.
  public let timeout: TimeInterval
  /// Seconds one transfer (the manifest, or one model) may take in all.
  public let resourceTimeout: TimeInterval

  public init(
    manifestURL: URL, configuration: CustomerConfiguration, downloadsDirectory: URL, installID: String,
    sdkVersion: String = contextSDKVersion,
    maximumSpecificationVersion: Int = ModelResolver.supportedSpecificationVersion, timeout: TimeInterval = 15,
    resourceTimeout: TimeInterval = 300
  ) {
    self.manifestURL = manifestURL
    self.configuration = configuration
    self.downloadsDirectory = downloadsDirectory
    self.installID = installID
    self.sdkVersion = sdkVersion
    self.maximumSpecificationVersion = maximumSpecificationVersion
    self.timeout = timeout
    self.resourceTimeout = resourceTimeout
  }

  public func update() async -> ModelUpdateReport {
    var report = ModelUpdateReport()
    let manifest: ModelManifest
    do {
      let data = try await BoundedDownload.get(
        manifestURL, limit: ModelManifest.maximumManifestSize, timeout: timeout, resourceTimeout: resourceTimeout)
      manifest = try JSONDecoder().decode(ModelManifest.self, from: data)
    } catch {
      report.error = "manifest \(manifestURL.absoluteString): \(error)"
      return report
    }
    if let problem = manifest.problem(forAppID: configuration.appID) {
      report.error = "manifest \(manifestURL.absoluteString): \(problem)"
      return report
    }
    report.revision = manifest.revision
    for bundled in configuration.models {
      guard let flow = manifest.flows[bundled.flowName] else { continue }
      report.flows[bundled.flowName] = await follow(flow, bundled: bundled)
    }
    return report
  }

  private func follow(_ flow: ModelManifest.Flow, bundled: FlowModel) async -> ModelUpdateReport.FlowResult {
    let directory = downloadsDirectory.appendingPathComponent(bundled.flowName, isDirectory: true)
    var result = ModelUpdateReport.FlowResult()
    // Retracted models go first, whatever else happens.
    for model in flow.models where model.status == "retracted" {
      if remove(version: model.modelVersion, in: directory) { result.deleted.append(model.modelVersion) }
    }
    let present = downloadedVersions(in: directory)
    if flow.paused {
      // Nothing new; the device keeps what it runs.
      result.version = present.filter { $0 > bundled.modelVersion }.max()
      return result
    }
    let choice = RolloutRule.choice(
      for: flow, bundledVersion: bundled.modelVersion, sdkVersion: sdkVersion,
      maximumSpecificationVersion: maximumSpecificationVersion, installID: installID)
    if let choice {
      let file = directory.appendingPathComponent("\(choice.modelVersion).mlmodel")
      let installed = (try? SHA256Digest.hex(ofFileAt: file)) == choice.sha256
      if !installed {
        do {
          try await download(choice, to: file)
          result.downloaded = choice.modelVersion
        } catch {
          result.error = "\(bundled.flowName) v\(choice.modelVersion): \(error)"
          result.version = present.filter { $0 > bundled.modelVersion && $0 != choice.modelVersion }.max()
          return result
        }
      }
      result.version = choice.modelVersion
    }
    // Only now that the chosen model is in place (or the bundled one is chosen): the rest goes.
    for version in downloadedVersions(in: directory) where version != choice?.modelVersion {
      if remove(version: version, in: directory) { result.deleted.append(version) }
    }
    result.deleted.sort()
    return result
  }

  /// Downloads to a temporary file beside `file` — cut off as soon as more than the manifest's
  /// size arrives — checks size and SHA-256, and renames it into place.
  private func download(_ model: ModelManifest.Model, to file: URL) async throws {
    guard let url = URL(string: model.url) else { throw UpdateError.badURL }
    let fileManager = FileManager.default
    try fileManager.createDirectory(at: file.deletingLastPathComponent(), withIntermediateDirectories: true)
    let temporary = file.deletingLastPathComponent().appendingPathComponent(".\(UUID().uuidString).download")
    defer { try? fileManager.removeItem(at: temporary) }
    guard fileManager.createFile(atPath: temporary.path, contents: nil) else {
      throw UpdateError.install("cannot create \(temporary.lastPathComponent)")
    }
    let handle = try FileHandle(forWritingTo: temporary)
    do {
      _ = try await BoundedDownload.get(
        url, limit: model.size, timeout: timeout, resourceTimeout: resourceTimeout, into: handle)
      try handle.close()
    } catch {
      try? handle.close()
      throw error
    }
    let size = (try fileManager.attributesOfItem(atPath: temporary.path)[.size] as? NSNumber)?.int64Value ?? -1
    guard size == model.size else { throw UpdateError.size(found: size, expected: model.size) }
    let digest = try SHA256Digest.hex(ofFileAt: temporary)
    guard digest == model.sha256 else { throw UpdateError.digest(found: digest, expected: model.sha256) }
    if rename(temporary.path, file.path) != 0 { throw UpdateError.install(String(cString: strerror(errno))) }
  }

  /// Downloaded versions of a flow: `<version>.mlmodel` regular files.
  private func downloadedVersions(in directory: URL) -> [Int] {
    let names = (try? FileManager.default.contentsOfDirectory(atPath: directory.path)) ?? []
    return names.compactMap { name in
      guard name.hasSuffix(".mlmodel"), let version = Int(name.dropLast(".mlmodel".count)), version > 0,
        String(version) + ".mlmodel" == name
      else { return nil }
      return version
    }.sorted()
  }

  private func remove(version: Int, in directory: URL) -> Bool {
    let file = directory.appendingPathComponent("\(version).mlmodel")
    return (try? FileManager.default.removeItem(at: file)) != nil
  }

  enum UpdateError: Error, CustomStringConvertible {
    case status(Int)
    case badURL
    case size(found: Int64, expected: Int64)
    case digest(found: String, expected: String)
    case install(String)
    /// More than `limit` bytes announced or arrived; the transfer was cut off there.
    case tooLarge(limit: Int64)

    var description: String {
      switch self {
      case .status(let status): return "HTTP status \(status)"
      case .badURL: return "not a URL"
      case .size(let found, let expected): return "\(found) bytes, the manifest says \(expected)"
      case .digest(let found, let expected): return "sha256 \(found), the manifest says \(expected)"
      case .install(let reason): return "cannot install: \(reason)"
      case .tooLarge(let limit): return "more than \(limit) bytes, the most the manifest allows; cut off"
      }
    }
  }
}
