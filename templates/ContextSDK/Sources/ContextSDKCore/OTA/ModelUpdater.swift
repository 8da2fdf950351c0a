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
    /// Why the chosen model could not be installed (`ModelUpdateError.model`); the flow keeps
    /// what it had.
    public var error: ModelUpdateError?

    public init(version: Int? = nil, downloaded: Int? = nil, deleted: [Int] = [], error: ModelUpdateError? = nil) {
      self.version = version
      self.downloaded = downloaded
      self.deleted = deleted
      self.error = error
    }
  }

  /// Why nothing was changed at all (no configuration, no manifest, a bad manifest, no network).
  public var error: ModelUpdateError?
  /// The manifest's revision that was followed.
  public var revision: Int?
  public var flows: [String: FlowResult] = [:]

  public init(error: ModelUpdateError? = nil, revision: Int? = nil, flows: [String: FlowResult] = [:]) {
    self.error = error
    self.revision = revision
    self.flows = flows
  }
}

/// Why an update changed nothing, or why one flow's chosen model was not installed. Either way
/// the device keeps the models it had, and the bundled models stay the fallback.
public enum ModelUpdateError: Error, Equatable, Sendable, CustomStringConvertible, LocalizedError {
  /// The build's `customer.json` could not be read: it knows no flows to update.
  case configuration(CustomerConfigurationError)
  /// The build has no over-the-air manifest URL (its release published no models over the air).
  case noManifestURL
  /// The install id that places this device in rollouts could not be read or made.
  case installID(InstallID.Unreadable)
  /// The manifest could not be fetched: no network, a status other than 200, too large.
  case manifestNotFetched(url: URL, ModelTransferError)
  /// The manifest is not JSON in the manifest's format.
  case manifestNotDecoded(url: URL, reason: String)
  /// The manifest cannot be followed: for another app, of another format, or with a bad entry.
  case manifestRejected(url: URL, ModelManifest.Problem)
  /// A flow's chosen model could not be downloaded or installed.
  case model(flowName: String, modelVersion: Int, ModelTransferError)

  public var description: String {
    switch self {
    case .configuration(let error): "\(error)"
    case .noManifestURL: "this build has no over-the-air manifest URL"
    case .installID(let error): "no install id: \(error)"
    case .manifestNotFetched(let url, let error): "manifest \(url.absoluteString): \(error)"
    case .manifestNotDecoded(let url, let reason): "manifest \(url.absoluteString): \(reason)"
    case .manifestRejected(let url, let problem): "manifest \(url.absoluteString): \(problem)"
    case .model(let flowName, let modelVersion, let error): "\(flowName) v\(modelVersion): \(error)"
    }
  }

  public var errorDescription: String? { description }
}

/// Why one transfer (the manifest, or one model) failed; nothing it wrote is kept.
public enum ModelTransferError: Error, Equatable, Sendable, CustomStringConvertible, LocalizedError {
  /// The server answered with a status other than 200.
  case status(Int)
  /// The manifest's URL for the model is not a URL.
  case badURL
  /// The download's size is not the manifest's.
  case size(found: Int64, expected: Int64)
  /// The download's SHA-256 is not the manifest's.
  case digest(found: String, expected: String)
  /// The download could not be written or moved into place (a full disk, a protected folder).
  case install(String)
  /// More than `limit` bytes announced or arrived; the transfer was cut off there.
  case tooLarge(limit: Int64)
  /// The request failed: no network, a timeout, the server went away.
  case network(String)

  public var description: String {
    switch self {
    case .status(let status): "HTTP status \(status)"
    case .badURL: "not a URL"
    case .size(let found, let expected): "\(found) bytes, the manifest says \(expected)"
    case .digest(let found, let expected): "sha256 \(found), the manifest says \(expected)"
    case .install(let reason): "cannot install: \(reason)"
    case .tooLarge(let limit): "more than \(limit) bytes, the most the manifest allows; cut off"
    case .network(let reason): reason
    }
  }

  public var errorDescription: String? { description }
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
    let data: Data
    do throws(ModelTransferError) {
      data = try await BoundedDownload.get(
        manifestURL, limit: ModelManifest.maximumManifestSize, timeout: timeout, resourceTimeout: resourceTimeout)
    } catch {
      report.error = .manifestNotFetched(url: manifestURL, error)
      return report
    }
    let manifest: ModelManifest
    do { manifest = try JSONDecoder().decode(ModelManifest.self, from: data) } catch {
      report.error = .manifestNotDecoded(url: manifestURL, reason: "\(error)")
      return report
    }
    if let problem = manifest.problem(forAppID: configuration.appID) {
      report.error = .manifestRejected(url: manifestURL, problem)
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
      // Nothing new; the device keeps what it runs, and drops downloads no newer than the
      // bundled model, which the resolver would never choose.
      for version in present where version <= bundled.modelVersion {
        if remove(version: version, in: directory) { result.deleted.append(version) }
      }
      result.deleted.sort()
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
        do throws(ModelTransferError) {
          try await download(choice, to: file)
          result.downloaded = choice.modelVersion
        } catch {
          result.error = .model(flowName: bundled.flowName, modelVersion: choice.modelVersion, error)
          result.version = present.filter { $0 > bundled.modelVersion && $0 != choice.modelVersion }.max()
          return result
        }
      }
      result.version = choice.modelVersion
    }
    // Only now that the chosen model is in place (or the bundled one is chosen): the rest goes,
    // outdated downloads and files that are not the chosen model's bytes alike. This is the
    // one place downloads are deleted; `ModelResolver` only reads.
    for version in downloadedVersions(in: directory) where version != choice?.modelVersion {
      if remove(version: version, in: directory) { result.deleted.append(version) }
    }
    result.deleted.sort()
    return result
  }

  /// Downloads to a temporary file beside `file` — cut off as soon as more than the manifest's
  /// size arrives — checks size and SHA-256, and renames it into place.
  private func download(_ model: ModelManifest.Model, to file: URL) async throws(ModelTransferError) {
    guard let url = URL(string: model.url) else { throw .badURL }
    let fileManager = FileManager.default
    let temporary = file.deletingLastPathComponent().appendingPathComponent(".\(UUID().uuidString).download")
    defer { try? fileManager.removeItem(at: temporary) }
    do {
      try fileManager.createDirectory(at: file.deletingLastPathComponent(), withIntermediateDirectories: true)
    } catch {
      throw .install(error.localizedDescription)
    }
    guard fileManager.createFile(atPath: temporary.path, contents: nil) else {
      throw .install("cannot create \(temporary.lastPathComponent)")
    }
    let handle: FileHandle
    do { handle = try FileHandle(forWritingTo: temporary) } catch { throw .install(error.localizedDescription) }
    do throws(ModelTransferError) {
      _ = try await BoundedDownload.get(
        url, limit: model.size, timeout: timeout, resourceTimeout: resourceTimeout, into: handle)
    } catch {
      try? handle.close()
      throw error
    }
    let size: Int64
    do {
      try handle.close()
      size = (try fileManager.attributesOfItem(atPath: temporary.path)[.size] as? NSNumber)?.int64Value ?? -1
    } catch {
      throw .install(error.localizedDescription)
    }
    guard size == model.size else { throw .size(found: size, expected: model.size) }
    let digest: String
    do { digest = try SHA256Digest.hex(ofFileAt: temporary) } catch { throw .install(error.localizedDescription) }
    guard digest == model.sha256 else { throw .digest(found: digest, expected: model.sha256) }
    if rename(temporary.path, file.path) != 0 { throw .install(String(cString: strerror(errno))) }
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
}
