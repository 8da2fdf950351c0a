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
    /// Versions the flow stopped using (outdated, retracted, or its flow left the manifest):
    /// never resolved again, their files deleted by an update in a later launch.
    public var retired: [Int] = []
    /// Why the chosen model could not be installed (`ModelUpdateError.model`); the flow keeps
    /// what it had.
    public var error: ModelUpdateError?

    init(version: Int? = nil, downloaded: Int? = nil, retired: [Int] = [], error: ModelUpdateError? = nil) {
      self.version = version
      self.downloaded = downloaded
      self.retired = retired
      self.error = error
    }
  }

  /// How the manifest was checked.
  public enum Check: Equatable, Sendable {
    /// Not checked: the last check was less than `minimumCheckInterval` ago; the next one is
    /// due at `until`. Nothing was changed.
    case notDue(until: Date)
    /// The server sent the manifest.
    case fetched
    /// The server answered that the manifest did not change (304 to `If-None-Match`): the
    /// one this device holds was checked and followed again.
    case notModified
  }

  /// Why nothing was changed at all (no configuration, no manifest, a bad manifest, no network).
  public var error: ModelUpdateError?
  /// Nil when the manifest could not be fetched.
  public var check: Check?
  /// The manifest's revision that was followed.
  public var revision: Int?
  public var flows: [String: FlowResult] = [:]

  init(error: ModelUpdateError? = nil, check: Check? = nil, revision: Int? = nil, flows: [String: FlowResult] = [:]) {
    self.error = error
    self.check = check
    self.revision = revision
    self.flows = flows
  }
}

/// Why an update changed nothing, or why one flow's chosen model was not installed. Either way
/// the device keeps the models it had, and the bundled models stay the fallback.
public enum ModelUpdateError: Error, Equatable, Sendable, CustomStringConvertible, LocalizedError {
  /// The build's `customer.json` could not be read: it knows no flows to update.
  case configuration(CustomerConfigurationError)
  /// The build has no over-the-air channel: no signed manifest URL with keys to check it (or,
  /// for a package that pins no keys, no legacy manifest URL).
  case noChannel
  /// The install id that places this device in rollouts could not be read or made.
  case installID(InstallIDError)
  /// The file beside the install id that keeps the highest revision accepted cannot be read
  /// or written; the manifest is not followed.
  case revisionState(path: String, reason: String)
  /// The manifest could not be fetched: no network, a status other than 200, too large.
  case manifestNotFetched(url: URL, ModelTransferError)
  /// The manifest is not JSON in the manifest's format.
  case manifestNotDecoded(url: URL, reason: String)
  /// The manifest cannot be followed: not signed by a pinned key, for another customer or app,
  /// expired, older than one accepted, of another format, or with a bad entry.
  case manifestRejected(url: URL, ManifestProblem)
  /// A root document of the channel (`root-<n>.json`) was refused (`RootChain`).
  case rootRejected(url: URL, reason: String)
  /// A flow's chosen model could not be downloaded or installed.
  case model(flowName: String, modelVersion: Int, ModelTransferError)

  public var description: String {
    switch self {
    case .configuration(let error): "\(error)"
    case .noChannel: "this build has no over-the-air channel (no signed manifest URL and trusted keys)"
    case .installID(let error): "no install id: \(error)"
    case .revisionState(let path, let reason): "\(path): \(reason)"
    case .manifestNotFetched(let url, let error): "manifest \(url.absoluteString): \(error)"
    case .manifestNotDecoded(let url, let reason): "manifest \(url.absoluteString): \(reason)"
    case .manifestRejected(let url, let problem): "manifest \(url.absoluteString): \(problem)"
    case .rootRejected(let url, let reason): "root \(url.absoluteString): \(reason)"
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
  /// The request failed: no network (or only one the configuration does not allow), a
  /// timeout, the server went away.
  case network(String)
  /// The task awaiting the update was cancelled; the transfer was stopped.
  case cancelled
  /// The URL is not `https://` (nor `http://` to this device itself).
  case insecureURL
  /// The server redirected to another origin (scheme, host or port); not followed.
  case redirectRefused(to: String)
  /// This model's download failed its size or digest recently; it is tried again after `until`
  /// (`YYYY-MM-DDTHH:MM:SSZ`).
  case backingOff(until: String)

  public var description: String {
    switch self {
    case .status(let status): "HTTP status \(status)"
    case .badURL: "not a URL"
    case .size(let found, let expected): "\(found) bytes, the manifest says \(expected)"
    case .digest(let found, let expected): "sha256 \(found), the manifest says \(expected)"
    case .install(let reason): "cannot install: \(reason)"
    case .tooLarge(let limit): "more than \(limit) bytes, the most the manifest allows; cut off"
    case .network(let reason): reason
    case .cancelled: "cancelled"
    case .insecureURL: "not an https URL"
    case .redirectRefused(let target): "redirect to another origin refused: \(target.prefix(200))"
    case .backingOff(let until): "failed its size or digest recently, not fetched again before \(until)"
    }
  }

  public var errorDescription: String? { description }
}

/// Follows the customer's over-the-air manifest (see `RolloutRule` for the device rule): for
/// each of this build's flows it downloads the model the rule picks into
/// `<models>/<flowName>/<modelVersion>.mlmodel`, where `ModelResolver` looks, and retires
/// downloads the rule no longer picks, retracted ones and those of flows that left the
/// manifest (see `DownloadsFolder`).
///
/// It never leaves a flow without a model: a download goes to a temporary file beside its final
/// name and is renamed into place only with the published size and SHA-256; the model in use
/// is retired only after its replacement is in place, or when it is retracted, and its file is
/// kept until a later launch; the bundled model is never touched. No network, a bad manifest,
/// a wrong digest or a full disk leave everything as it was.
struct ModelUpdater: Sendable {
  let channel: ModelChannel
  let configuration: CustomerConfiguration
  let installID: String
  /// Where the models go, where the revision floor is kept, and how transfers run.
  let settings: ModelUpdateConfiguration
  let sdkVersion: String
  let maximumSpecificationVersion: Int
  /// This launch of the app: a model it retires is deleted by an update of a later one.
  let launchID: String
  /// The time, for expiry, back-off and the check interval.
  let now: @Sendable () -> Date

  /// How long a model whose download did not match the manifest's size or SHA-256 is not
  /// fetched again.
  static let failedDownloadBackoff: TimeInterval = 24 * 60 * 60
  /// The file in `stateDirectory` with the highest revision accepted.
  static let revisionFileName = "ota-revision"
  /// The file in `stateDirectory` with the SHA-256 of the accepted revision's payload: the
  /// same revision served again with other content is refused.
  static let payloadFileName = "ota-revision-payload"
  /// This process's launch.
  static let currentLaunch = UUID().uuidString

  var manifestURL: URL { channel.manifestURL }
  var downloadsDirectory: URL { settings.modelsDirectory }
  /// Where the highest manifest revision this install has accepted is kept (`ota-revision`),
  /// beside the install id.
  var stateDirectory: URL { settings.stateDirectory }
  private var folder: DownloadsFolder { DownloadsFolder(directory: downloadsDirectory, launchID: launchID) }

  init(
    channel: ModelChannel, configuration: CustomerConfiguration, installID: String,
    settings: ModelUpdateConfiguration = ModelUpdateConfiguration(), sdkVersion: String = contextSDKVersion,
    maximumSpecificationVersion: Int = ModelResolver.supportedSpecificationVersion,
    launchID: String = ModelUpdater.currentLaunch, now: @escaping @Sendable () -> Date = { Date() }
  ) {
    self.channel = channel
    self.configuration = configuration
    self.installID = installID
    self.settings = settings
    self.sdkVersion = sdkVersion
    self.maximumSpecificationVersion = maximumSpecificationVersion
    self.launchID = launchID
    self.now = now
  }

  func update() async -> ModelUpdateReport {
    folder.deleteRetired(keepingFlows: Set(configuration.models.map(\.flowName)))
    let cache = ManifestCache.read(in: downloadsDirectory, for: manifestURL)
    if let due = cache?.nextCheck(interval: settings.minimumCheckInterval, now: now()) {
      return ModelUpdateReport(check: .notDue(until: due))
    }
    var report = ModelUpdateReport()
    let root: TrustedRoot?
    do throws(ModelUpdateError) { root = try await RootChain.current(for: self) } catch {
      report.error = error
      return report
    }
    let response: BoundedDownload.Response
    do throws(ModelTransferError) {
      response = try await BoundedDownload.get(
        manifestURL, limit: ModelManifest.maximumManifestSize, policy: settings.transferPolicy,
        ifNoneMatch: cache?.conditionalTag)
    } catch {
      report.error = .manifestNotFetched(url: manifestURL, error)
      return report
    }
    let notModified = response.status == 304
    report.check = notModified ? .notModified : .fetched
    let data = notModified ? cache?.manifest ?? Data() : response.body
    var answered = ManifestCache(url: manifestURL.absoluteString, checkedAt: now().timeIntervalSince1970)
    let manifest: ModelManifest
    do throws(ModelUpdateError) { manifest = try accept(data, root: root) } catch {
      // Nothing changes on the device, the cache included: the next update checks again.
      report.error = error
      return report
    }
    (answered.entityTag, answered.manifest) = (notModified ? cache?.entityTag : response.entityTag, data)
    report.revision = manifest.revision
    sweepTemporaryFiles()
    report.flows = await follow(manifest)
    if !report.flows.values.contains(where: \.isInterrupted) { answered.write(in: downloadsDirectory) }
    return report
  }

  /// Each flow of this build: the manifest's rule, or, for a flow the manifest no longer
  /// lists, its bundled model. Stops at a cancellation.
  private func follow(_ manifest: ModelManifest) async -> [String: ModelUpdateReport.FlowResult] {
    var results: [String: ModelUpdateReport.FlowResult] = [:]
    for bundled in configuration.models {
      if Task.isCancelled {
        results[bundled.flowName] = ModelUpdateReport.FlowResult(
          error: .model(flowName: bundled.flowName, modelVersion: bundled.modelVersion, .cancelled))
        continue
      }
      guard let flow = manifest.flows[bundled.flowName] else {
        let retired = folder.versions(ofFlow: bundled.flowName).filter { folder.retire($0, ofFlow: bundled.flowName) }
        if !retired.isEmpty { results[bundled.flowName] = ModelUpdateReport.FlowResult(retired: retired) }
        continue
      }
      results[bundled.flowName] = await follow(flow, bundled: bundled)
    }
    return results
  }

  /// The manifest in `data`, once every check of the channel passed; for the signed channel
  /// its revision is then recorded as accepted. Nothing on the device changes before.
  private func accept(_ data: Data, root: TrustedRoot?) throws(ModelUpdateError) -> ModelManifest {
    switch channel {
    case .legacyUnsigned:
      let manifest = try decode(data)
      if let problem = manifest.problem(
        forAppID: configuration.appID, schemaVersion: ModelManifest.legacySchemaVersion)
      {
        throw .manifestRejected(url: manifestURL, problem)
      }
      return manifest
    case .signed(_, let customer, let pinnedKeys):
      let trustedKeys = root?.manifest.keys ?? pinnedKeys
      let payload: Data
      do throws(ModelManifest.Problem) {
        payload = try SignedManifest.verifiedPayload(of: data, trustedKeys: trustedKeys)
      } catch { throw .manifestRejected(url: manifestURL, error) }
      if let root, !root.meetsManifestThreshold(data) {
        throw .manifestRejected(url: manifestURL, .untrustedKeys)
      }
      let manifest = try decode(payload)
      if let problem = manifest.problem(forAppID: configuration.appID, customer: customer) {
        throw .manifestRejected(url: manifestURL, problem)
      }
      guard (1...ModelManifest.maximumRevision).contains(manifest.revision) else {
        throw .manifestRejected(url: manifestURL, .revisionOutOfRange)
      }
      try checkExpiry(of: manifest)
      let digest = SHA256Digest.hex(of: payload)
      let accepted = try acceptedRevision()
      guard manifest.revision >= accepted.revision else {
        throw .manifestRejected(
          url: manifestURL, .revisionRolledBack(found: manifest.revision, accepted: accepted.revision))
      }
      if manifest.revision == accepted.revision, let known = accepted.payloadSHA256, known != digest {
        throw .manifestRejected(url: manifestURL, .revisionContentChanged(revision: manifest.revision))
      }
      if manifest.revision > accepted.revision || accepted.payloadSHA256 == nil {
        try recordAccepted(AcceptedRevision(revision: manifest.revision, payloadSHA256: digest))
      }
      RevisionSigners.record(manifest.revision, of: data, keys: trustedKeys, in: stateDirectory)
      return manifest
    }
  }

  /// A signed manifest is believed until `expires`, give or take `ModelManifest.clockSkew` of
  /// this device's clock, and never one that expires more than `maximumLifetime` ahead.
  private func checkExpiry(of manifest: ModelManifest) throws(ModelUpdateError) {
    guard let expires = manifest.expires, let expiry = ManifestExpiry.date(expires) else {
      throw .manifestRejected(url: manifestURL, .badExpiry)
    }
    let left = expiry.timeIntervalSince(now())
    guard left > -ModelManifest.clockSkew else {
      throw .manifestRejected(url: manifestURL, .expired(expires: expires))
    }
    guard left <= ModelManifest.maximumLifetime else {
      throw .manifestRejected(url: manifestURL, .expiresTooFarAhead(expires: expires))
    }
  }

  private func decode(_ data: Data) throws(ModelUpdateError) -> ModelManifest {
    do { return try JSONDecoder().decode(ModelManifest.self, from: data) } catch {
      throw .manifestNotDecoded(url: manifestURL, reason: "\(error)")
    }
  }

  private var revisionFile: URL { stateDirectory.appendingPathComponent(Self.revisionFileName) }

  private var payloadFile: URL { stateDirectory.appendingPathComponent(Self.payloadFileName) }

  /// The highest revision accepted and its payload's digest; revision 0 before the first.
  private func acceptedRevision() throws(ModelUpdateError) -> AcceptedRevision {
    let file = revisionFile
    let data: Data
    do { data = try Data(contentsOf: file) } catch {
      if !FileManager.default.fileExists(atPath: file.path) {
        return AcceptedRevision(revision: 0, payloadSHA256: nil)
      }
      throw .revisionState(path: file.path, reason: error.localizedDescription)
    }
    guard let accepted = AcceptedRevision(revision: data, payload: try? Data(contentsOf: payloadFile)) else {
      throw .revisionState(path: file.path, reason: "holds no revision (\(data.count) bytes)")
    }
    return accepted
  }

  /// Each file written in full under a temporary name, then renamed over the old one, the
  /// payload's digest first (it names its revision, so a digest without its revision is never
  /// believed); never lowered (an update running at the same time may have accepted a newer
  /// one since).
  private func recordAccepted(_ accepted: AcceptedRevision) throws(ModelUpdateError) {
    let current = try acceptedRevision()
    guard current.revision < accepted.revision || current.payloadSHA256 == nil else { return }
    var file = payloadFile
    do {
      try FileManager.default.createDirectory(at: stateDirectory, withIntermediateDirectories: true)
      try accepted.payloadRecord.write(to: file, options: .atomic)
      file = revisionFile
      try Data(String(accepted.revision).utf8).write(to: file, options: .atomic)
    } catch { throw .revisionState(path: file.path, reason: error.localizedDescription) }
  }

  /// Temporary downloads left by an app that was stopped mid-transfer: any older than a
  /// transfer may last (so not another update's, running now).
  private func sweepTemporaryFiles() {
    let fileManager = FileManager.default
    let cutoff = now().addingTimeInterval(-settings.transferTimeout)
    for bundled in configuration.models {
      let directory = downloadsDirectory.appendingPathComponent(bundled.flowName, isDirectory: true)
      for name in (try? fileManager.contentsOfDirectory(atPath: directory.path)) ?? []
      where name.hasPrefix(".") && name.hasSuffix(".download") {
        let file = directory.appendingPathComponent(name)
        guard
          let modified = (try? fileManager.attributesOfItem(atPath: file.path))?[.modificationDate] as? Date,
          modified < cutoff
        else { continue }
        try? fileManager.removeItem(at: file)
      }
    }
  }

  private func follow(_ flow: ModelManifest.Flow, bundled: FlowModel) async -> ModelUpdateReport.FlowResult {
    let name = bundled.flowName
    var result = ModelUpdateReport.FlowResult()
    // Retracted models go first, whatever else happens.
    for model in flow.models where model.status == .retracted {
      if folder.retire(model.modelVersion, ofFlow: name) { result.retired.append(model.modelVersion) }
    }
    let present = folder.versions(ofFlow: name).filter { !folder.isRetired($0, ofFlow: name) }
    if flow.paused {
      // Nothing new; the device keeps what it runs, and retires downloads no newer than the
      // bundled model, which the resolver would never choose.
      for version in present where version <= bundled.modelVersion {
        if folder.retire(version, ofFlow: name) { result.retired.append(version) }
      }
      result.retired.sort()
      result.version = present.filter { $0 > bundled.modelVersion }.max()
      return result
    }
    let choice = RolloutRule.choice(
      for: flow, bundledVersion: bundled.modelVersion, sdkVersion: sdkVersion,
      maximumSpecificationVersion: maximumSpecificationVersion, installID: installID)
    if let choice {
      do throws(ModelTransferError) {
        result.downloaded = try await install(choice, flowName: name)
      } catch {
        result.error = .model(flowName: name, modelVersion: choice.modelVersion, error)
        result.version = present.filter { $0 > bundled.modelVersion && $0 != choice.modelVersion }.max()
        return result
      }
      result.version = choice.modelVersion
    }
    // Only now that the chosen model is in place (or the bundled one is chosen): the rest is
    // retired, outdated downloads and files that are not the chosen model's bytes alike. This
    // is the one place downloads are retired; `ModelResolver` only reads.
    for version in folder.versions(ofFlow: name) where version != choice?.modelVersion {
      if folder.retire(version, ofFlow: name) { result.retired.append(version) }
    }
    result.retired.sort()
    return result
  }

  /// Puts `choice` in place with its verified record, downloading it unless its file holds the
  /// published bytes already; the downloaded version, if it was downloaded. A download that
  /// failed its size or digest is not fetched again for `failedDownloadBackoff`.
  private func install(_ choice: ModelManifest.Model, flowName: String) async throws(ModelTransferError) -> Int? {
    let directory = folder.flowDirectory(flowName)
    let file = directory.appendingPathComponent("\(choice.modelVersion).mlmodel")
    var downloaded: Int?
    if (try? SHA256Digest.hex(ofFileAt: file)) != choice.sha256 {
      if let failure = FailedDownload.read(forVersion: choice.modelVersion, in: directory),
        failure.sha256 == choice.sha256,
        now().timeIntervalSince1970 < failure.failedAt + Self.failedDownloadBackoff
      {
        throw .backingOff(until: FailedDownload.timestamp(failure.failedAt + Self.failedDownloadBackoff))
      }
      do throws(ModelTransferError) { try await download(choice, to: file) } catch {
        switch error {
        case .digest, .size:
          FailedDownload(sha256: choice.sha256, failedAt: now().timeIntervalSince1970).write(
            forVersion: choice.modelVersion, in: directory)
        default: break
        }
        throw error
      }
      downloaded = choice.modelVersion
    }
    try? FileManager.default.removeItem(at: FailedDownload.url(forVersion: choice.modelVersion, in: directory))
    folder.reinstate(choice.modelVersion, ofFlow: flowName)
    let record = VerifiedDownload(
      modelVersion: choice.modelVersion, sha256: choice.sha256, minimumSDKVersion: choice.minimumSDKVersion)
    if VerifiedDownload.read(forVersion: choice.modelVersion, in: directory) != record {
      do { try record.write(in: directory) } catch { throw .install(error.localizedDescription) }
    }
    return downloaded
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
    do { handle = try FileHandle(forWritingTo: temporary) } catch {
      throw .install(error.localizedDescription)
    }
    do throws(ModelTransferError) {
      _ = try await BoundedDownload.get(url, limit: model.size, policy: settings.transferPolicy, into: handle)
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
    do { digest = try SHA256Digest.hex(ofFileAt: temporary) } catch {
      throw .install(error.localizedDescription)
    }
    guard digest == model.sha256 else { throw .digest(found: digest, expected: model.sha256) }
    if rename(temporary.path, file.path) != 0 { throw .install(String(cString: strerror(errno))) }
  }
}

extension ModelUpdateReport.FlowResult {
  /// Whether the flow's transfer was cut short (cancelled, no network): the next update tries
  /// again without waiting for the check interval.
  var isInterrupted: Bool {
    guard case .model(_, _, let error) = error else { return false }
    switch error {
    case .cancelled, .network: return true
    default: return false
    }
  }
}

/// The highest revision accepted (`ota-revision`: the number alone, as every SDK writes it) and
/// the SHA-256 of its payload (`ota-revision-payload`: `<revision> <hex>`, believed only for the
/// revision it names; absent where an older SDK accepted it).
struct AcceptedRevision: Equatable {
  let revision: Int
  let payloadSHA256: String?

  init(revision: Int, payloadSHA256: String?) {
    self.revision = revision
    self.payloadSHA256 = payloadSHA256
  }

  /// Nil when `revision` holds no revision. One above `ModelManifest.maximumRevision` (only a
  /// leaked key could have signed it, and an older SDK accepted it) counts as none, so the
  /// device follows the channel again instead of refusing every later manifest.
  init?(revision data: Data, payload: Data?) {
    guard let text = String(data: data, encoding: .utf8), let revision = Int(text), revision >= 0 else {
      return nil
    }
    guard revision <= ModelManifest.maximumRevision else {
      self.init(revision: 0, payloadSHA256: nil)
      return
    }
    let fields = payload.flatMap { String(data: $0, encoding: .utf8) }?.split(separator: " ") ?? []
    let digest = fields.count == 2 && fields[0] == String(revision) ? String(fields[1]) : nil
    let isDigest =
      digest.map { $0.utf8.count == 64 && $0.allSatisfy { $0.isHexDigit && !$0.isUppercase } } ?? false
    self.init(revision: revision, payloadSHA256: isDigest ? digest : nil)
  }

  /// `ota-revision-payload`'s bytes.
  var payloadRecord: Data { Data("\(revision) \(payloadSHA256 ?? "")".utf8) }
}

/// A download whose size or SHA-256 was not the manifest's, and when: the same bytes are not
/// fetched again for `ModelUpdater.failedDownloadBackoff`. `<flow>/<version>.failed`.
struct FailedDownload: Codable, Equatable {
  let sha256: String
  /// Seconds since 1970.
  let failedAt: Double

  static func url(forVersion version: Int, in flowDirectory: URL) -> URL {
    flowDirectory.appendingPathComponent("\(version).failed")
  }

  static func read(forVersion version: Int, in flowDirectory: URL) -> FailedDownload? {
    guard let data = try? Data(contentsOf: url(forVersion: version, in: flowDirectory)) else { return nil }
    return try? JSONDecoder().decode(FailedDownload.self, from: data)
  }

  func write(forVersion version: Int, in flowDirectory: URL) {
    guard let data = try? JSONEncoder().encode(self) else { return }
    try? data.write(to: Self.url(forVersion: version, in: flowDirectory), options: .atomic)
  }

  static func timestamp(_ seconds: Double) -> String {
    let formatter = ISO8601DateFormatter()
    formatter.formatOptions = [.withInternetDateTime]
    return formatter.string(from: Date(timeIntervalSince1970: seconds))
  }
}
