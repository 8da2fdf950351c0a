import Foundation

/// The model file a flow runs, and where it came from.
public struct ResolvedModel: Equatable, Sendable {
  public enum Source: Equatable, Sendable {
    /// The model shipped inside this package.
    case bundled
    /// A newer model downloaded over the air.
    case downloaded
  }

  public let url: URL
  public let modelVersion: Int
  public let source: Source

  public init(url: URL, modelVersion: Int, source: Source) {
    self.url = url
    self.modelVersion = modelVersion
    self.source = source
  }
}

/// Chooses between a flow's bundled model and the over-the-air downloads, which live in
/// `<downloadsDirectory>/<flowName>/<modelVersion>.mlmodel` (the server names files by
/// version id). The newest download that is newer than the bundled model and that this SDK
/// supports wins; otherwise the bundled model is used, so a missing, broken or too new
/// download never leaves a flow without a model.
public struct ModelResolver: Sendable {
  /// Core ML 4 (iOS 14, macOS 11, tvOS 14, watchOS 7: this package's deployment targets)
  /// reads models up to specification version 5 on every supported device.
  public static let supportedSpecificationVersion = 5

  public let maximumSpecificationVersion: Int

  public init(maximumSpecificationVersion: Int = ModelResolver.supportedSpecificationVersion) {
    self.maximumSpecificationVersion = maximumSpecificationVersion
  }

  /// Only reads: it deletes nothing, so asking is safe at any time and from any thread.
  /// Downloads it passes over (outdated, not a Core ML model, too new for this SDK) stay where
  /// they are until `ModelUpdater` tidies the folder on its next update.
  public func resolve(_ model: FlowModel, bundledModelURL: URL, downloadsDirectory: URL) -> ResolvedModel {
    let flowDirectory = downloadsDirectory.appendingPathComponent(model.flowName, isDirectory: true)
    for download in Self.downloadedModels(in: flowDirectory) where download.version > model.modelVersion {
      // A file that cannot be read as a Core ML model (a failed download), or one too new for
      // this SDK, is passed over.
      guard let specificationVersion = try? CoreMLModelHeader.specificationVersion(ofModelAt: download.url),
        specificationVersion <= maximumSpecificationVersion
      else { continue }
      return ResolvedModel(url: download.url, modelVersion: download.version, source: .downloaded)
    }
    return ResolvedModel(url: bundledModelURL, modelVersion: model.modelVersion, source: .bundled)
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
