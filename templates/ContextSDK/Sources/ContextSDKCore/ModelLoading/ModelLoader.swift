import Foundation

/// A model file a flow may run, with its SHA-256 (the compiled copy's key).
struct ModelSource: Equatable, Sendable {
  let resolved: ResolvedModel
  /// Lower-case hex SHA-256 of the model file: `customer.json`'s for a bundled model, the
  /// updater's verified record for a download.
  let sha256: String

  init(resolved: ResolvedModel, sha256: String) {
    self.resolved = resolved
    self.sha256 = sha256
  }
}

/// The model a flow runs now (bundled or downloaded), and the bundled one to fall back on.
struct FlowModelSources: Equatable, Sendable {
  let current: ModelSource
  let bundled: ModelSource

  init(current: ModelSource, bundled: ModelSource) {
    self.current = current
    self.bundled = bundled
  }
}

/// Compiles a model file into the form the platform runs, and loads a compiled model: Core ML
/// on Apple platforms (`CoreMLModelCompiler`); a stand-in in tests.
protocol ModelCompiling: Sendable {
  associatedtype Model
  /// Compiles the model file at `source` and returns where the compiled model was written: a
  /// temporary location the loader moves into its cache.
  func compile(_ source: URL) throws -> URL
  /// Loads a compiled model the loader keeps in its cache.
  func load(_ compiled: URL) throws -> Model
}

/// A loaded model, ready for predictions, and which model it is.
public struct LoadedModel<Model>: @unchecked Sendable {
  /// Core ML's `MLModel` makes predictions from any thread; the loader never changes it.
  public let model: Model
  /// Which model makes the decisions: record it with each outcome (see `Attribution`).
  public let attribution: Attribution
  /// Set when the flow's downloaded model could not be compiled or loaded, twice, and the
  /// bundled model runs instead: which model failed and why.
  public let fallback: ModelFallback?
}

/// A downloaded model that failed, replaced by the bundled one for this launch.
public struct ModelFallback: Equatable, Sendable {
  public let failed: Attribution
  public let reason: String
}

/// Why no model could be handed out for a flow.
public enum ModelLoadError: Error, Equatable, Sendable, CustomStringConvertible, LocalizedError {
  /// This build has no model for the flow, or its configuration could not be read (see
  /// `ContextSDK.configurationError`): make no decision with a model.
  case noModel(flowName: String)
  /// The flow's bundled model could not be compiled or loaded, twice.
  case unusable(Attribution, reason: String)

  public var description: String {
    switch self {
    case .noModel(let flowName): "no model for flow \(flowName) in this build"
    case .unusable(let attribution, let reason): "\(attribution) cannot be loaded: \(reason)"
    }
  }

  public var errorDescription: String? { description }
}

/// Hands out each flow's loaded model, compiling a model file at most once per model digest
/// and OS build: the compiled copy is kept in `cacheDirectory`
/// (`<flowName>/<modelVersion>-<digest>-<OS build digest>.mlmodelc`), moved into place
/// atomically, and loaded once per process. A compiled copy that does not load is compiled
/// again; a model that fails twice is not tried again in this process, and a failed download
/// leaves the flow on its bundled model (`LoadedModel.fallback`). Compiled copies of a flow
/// that no model of this process uses are removed when the flow's first model is loaded: an
/// app uses a compiled model until it exits, so only copies of earlier launches go.
actor ModelLoader<Compiler: ModelCompiling> {
  private let compiler: Compiler
  private let cacheDirectory: URL
  /// The OS build's digest: a system update may change what compiling makes.
  private let systemBuildDigest: String
  private var loaded: [String: Compiler.Model] = [:]
  private var failures: [String: String] = [:]
  private var swept: Set<String> = []

  /// - Parameter systemBuild: the OS version and build, e.g.
  ///   `ProcessInfo.processInfo.operatingSystemVersionString`.
  init(compiler: Compiler, cacheDirectory: URL, systemBuild: String) {
    self.compiler = compiler
    self.cacheDirectory = cacheDirectory
    systemBuildDigest = String(SHA256Digest.hex(of: Data(systemBuild.utf8)).prefix(16))
  }

  /// The flow's current model, loaded; its bundled model when the current one (a download)
  /// fails twice.
  func model(_ sources: FlowModelSources) throws(ModelLoadError) -> LoadedModel<Compiler.Model> {
    let current = sources.current
    switch load(current) {
    case .success(let model):
      return LoadedModel(model: model, attribution: current.resolved.attribution, fallback: nil)
    case .failure(let failure):
      guard current != sources.bundled else {
        throw .unusable(current.resolved.attribution, reason: failure.reason)
      }
      switch load(sources.bundled) {
      case .success(let model):
        return LoadedModel(
          model: model, attribution: sources.bundled.resolved.attribution,
          fallback: ModelFallback(failed: current.resolved.attribution, reason: failure.reason))
      case .failure(let bundled):
        throw .unusable(sources.bundled.resolved.attribution, reason: bundled.reason)
      }
    }
  }

  private struct Failure: Error {
    let reason: String
  }

  /// The loaded model of `source`: from memory, else from its compiled copy, else compiled now;
  /// a copy that does not load is compiled once more.
  private func load(_ source: ModelSource) -> Result<Compiler.Model, Failure> {
    let key = cacheKey(source)
    if let model = loaded[key] { return .success(model) }
    if let reason = failures[key] { return .failure(Failure(reason: reason)) }
    let flowDirectory = cacheDirectory.appendingPathComponent(source.resolved.flowName, isDirectory: true)
    let compiled = flowDirectory.appendingPathComponent(key + ".mlmodelc", isDirectory: true)
    var reason = ""
    for attempt in 0..<2 {
      do {
        if attempt > 0 || !FileManager.default.fileExists(atPath: compiled.path) {
          try compile(source.resolved.url, into: compiled, in: flowDirectory)
        }
        let model = try compiler.load(compiled)
        loaded[key] = model
        sweep(flowDirectory, flowName: source.resolved.flowName)
        return .success(model)
      } catch {
        reason = "\(error)"
      }
    }
    failures[key] = reason
    return .failure(Failure(reason: reason))
  }

  /// `<modelVersion>-<first 16 hex of the model's digest>-<OS build digest>`.
  private func cacheKey(_ source: ModelSource) -> String {
    "\(source.resolved.modelVersion)-\(source.sha256.prefix(16))-\(systemBuildDigest)"
  }

  /// Compiles into a staging name beside `destination`, then renames it into place: a reader
  /// finds a whole compiled model or none.
  private func compile(_ source: URL, into destination: URL, in directory: URL) throws {
    let fileManager = FileManager.default
    let output = try compiler.compile(source)
    try fileManager.createDirectory(at: directory, withIntermediateDirectories: true)
    let staging = directory.appendingPathComponent(".staging-\(UUID().uuidString)", isDirectory: true)
    try fileManager.moveItem(at: output, to: staging)
    if fileManager.fileExists(atPath: destination.path) { try fileManager.removeItem(at: destination) }
    try fileManager.moveItem(at: staging, to: destination)
  }

  /// Once per flow and process, after its first model loaded: removes what earlier launches
  /// left in the flow's folder (older models, other OS builds, interrupted staging), keeping
  /// every copy this process loaded.
  private func sweep(_ flowDirectory: URL, flowName: String) {
    guard swept.insert(flowName).inserted else { return }
    let kept = Set(loaded.keys.map { $0 + ".mlmodelc" })
    let entries = (try? FileManager.default.contentsOfDirectory(atPath: flowDirectory.path)) ?? []
    for entry in entries where !kept.contains(entry) {
      try? FileManager.default.removeItem(at: flowDirectory.appendingPathComponent(entry))
    }
  }
}

extension CustomerBuild {
  /// Where a flow's model comes from now and its bundled model, for `ModelLoader`; nil when
  /// this build has no model for the flow or its configuration could not be read.
  static func modelSources(forFlow flowName: String, downloadsDirectory: URL) -> FlowModelSources? {
    guard let model = configuration.model(forFlow: flowName),
      let bundledURL = bundledModelURL(forFlow: flowName)
    else { return nil }
    let bundled = ModelSource(
      resolved: ResolvedModel(
        flowName: flowName, url: bundledURL, modelVersion: model.modelVersion, source: .bundled),
      sha256: model.sha256)
    let resolved = ModelResolver().resolve(
      model, bundledModelURL: bundledURL, downloadsDirectory: downloadsDirectory)
    let flowDirectory = downloadsDirectory.appendingPathComponent(flowName, isDirectory: true)
    guard resolved.source == .downloaded,
      let record = VerifiedDownload.read(forVersion: resolved.modelVersion, in: flowDirectory)
    else { return FlowModelSources(current: bundled, bundled: bundled) }
    return FlowModelSources(current: ModelSource(resolved: resolved, sha256: record.sha256), bundled: bundled)
  }
}
