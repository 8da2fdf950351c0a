import Foundation

/// The model file a flow runs, and where it came from: the decision's `attribution` (flow,
/// model version, bundled or downloaded) is what the app records with the decision's outcome.
public struct ResolvedModel: Equatable, Sendable {
  /// Where the model came from; its raw value is the one in `Attribution`'s forms.
  public enum Source: String, Equatable, Sendable {
    /// The model shipped inside this package.
    case bundled
    /// A newer model downloaded over the air.
    case downloaded
  }

  /// The flow this model decides.
  public let flowName: String
  public let url: URL
  public let modelVersion: Int
  public let source: Source

  init(flowName: String, url: URL, modelVersion: Int, source: Source) {
    self.flowName = flowName
    self.url = url
    self.modelVersion = modelVersion
    self.source = source
  }

  /// Which model makes this flow's decisions, to record with each outcome event.
  public var attribution: Attribution {
    Attribution(flowName: flowName, modelVersion: modelVersion, source: source)
  }
}

/// What the updater recorded of a download it verified, `<flowName>/<modelVersion>.verified`
/// beside the model: the resolver uses a download only with this record, the file's SHA-256
/// equal to it, and a minimum SDK version this SDK meets.
struct VerifiedDownload: Codable, Equatable, Sendable {
  let modelVersion: Int
  /// Lower-case hex SHA-256 of the model file, as the manifest gave it.
  let sha256: String
  let minimumSDKVersion: String

  init(modelVersion: Int, sha256: String, minimumSDKVersion: String) {
    self.modelVersion = modelVersion
    self.sha256 = sha256
    self.minimumSDKVersion = minimumSDKVersion
  }

  static func url(forVersion version: Int, in flowDirectory: URL) -> URL {
    flowDirectory.appendingPathComponent("\(version).verified")
  }

  /// The record of `version`; nil when there is none or it cannot be read.
  static func read(forVersion version: Int, in flowDirectory: URL) -> VerifiedDownload? {
    guard let data = try? Data(contentsOf: url(forVersion: version, in: flowDirectory)),
      let record = try? JSONDecoder().decode(VerifiedDownload.self, from: data), record.modelVersion == version
    else { return nil }
    return record
  }

  func write(in flowDirectory: URL) throws {
    try JSONEncoder().encode(self).write(to: Self.url(forVersion: modelVersion, in: flowDirectory), options: .atomic)
  }
}

/// Chooses between a flow's bundled model and the over-the-air downloads, which live in
/// `<downloadsDirectory>/<flowName>/<modelVersion>.mlmodel` (the server names files by
/// version id). The newest download that is newer than the bundled model, that the updater
/// recorded as verified (`VerifiedDownload`) and that this SDK supports wins; otherwise the
/// bundled model is used, so a missing, broken, dropped-in or too new download never leaves a
/// flow without a model, nor runs.
struct ModelResolver: Sendable {
  /// Core ML 4 (iOS 14, macOS 11, tvOS 14, watchOS 7: this package's deployment targets)
  /// reads models up to specification version 5 on every supported device.
  static let supportedSpecificationVersion = 5

  let maximumSpecificationVersion: Int
  let sdkVersion: String

  init(
    maximumSpecificationVersion: Int = ModelResolver.supportedSpecificationVersion,
    sdkVersion: String = contextSDKVersion
  ) {
    self.maximumSpecificationVersion = maximumSpecificationVersion
    self.sdkVersion = sdkVersion
  }

  /// Only reads: it deletes nothing, so asking is safe at any time and from any thread.
  /// Downloads it passes over (outdated, not a Core ML model, too new for this SDK) stay where
  /// they are until `ModelUpdater` tidies the folder on its next update.
  func resolve(_ model: FlowModel, bundledModelURL: URL, downloadsDirectory: URL) -> ResolvedModel {
    let flowDirectory = downloadsDirectory.appendingPathComponent(model.flowName, isDirectory: true)
    for download in Self.downloadedModels(in: flowDirectory) where download.version > model.modelVersion {
      // A file the updater did not verify (dropped into the folder, changed since), one left by
      // a newer SDK, one that cannot be read as a Core ML model or one too new for this SDK is
      // passed over.
      guard let record = VerifiedDownload.read(forVersion: download.version, in: flowDirectory),
        SemanticVersionOrder.isAtMost(record.minimumSDKVersion, sdkVersion),
        (try? SHA256Digest.hex(ofFileAt: download.url)) == record.sha256,
        let specificationVersion = try? CoreMLModelHeader.specificationVersion(ofModelAt: download.url),
        specificationVersion <= maximumSpecificationVersion
      else { continue }
      return ResolvedModel(
        flowName: model.flowName, url: download.url, modelVersion: download.version, source: .downloaded)
    }
    return ResolvedModel(
      flowName: model.flowName, url: bundledModelURL, modelVersion: model.modelVersion, source: .bundled)
  }

  private struct DownloadedModel {
    let version: Int
    let url: URL
  }

  /// Regular files named `<version>.mlmodel` with a canonical positive integer version,
  /// newest first. Anything else in the folder is not the resolver's and is left alone.
  private static func downloadedModels(in flowDirectory: URL) -> [DownloadedModel] {
    let entries =
      (try? FileManager.default.contentsOfDirectory(
        at: flowDirectory, includingPropertiesForKeys: [.isRegularFileKey])) ?? []
    return entries.compactMap { url -> DownloadedModel? in
      guard url.pathExtension == "mlmodel",
        let version = Int(url.deletingPathExtension().lastPathComponent), version > 0,
        String(version) == url.deletingPathExtension().lastPathComponent,
        (try? url.resourceValues(forKeys: [.isRegularFileKey]).isRegularFile) == true
      else { return nil }
      return DownloadedModel(version: version, url: url)
    }
    .sorted { $0.version > $1.version }
  }
}
