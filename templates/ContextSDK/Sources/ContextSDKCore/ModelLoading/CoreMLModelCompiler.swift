#if canImport(CoreML)
  import CoreML
  import Foundation

  /// Core ML's two calls, and nothing else: the logic around them is `ModelLoader`'s.
  struct CoreMLModelCompiler: ModelCompiling {
    init() {}

    /// Synchronous, so the iOS 11 overload is called (the async one needs iOS 16).
    func compile(_ source: URL) throws -> URL {
      try MLModel.compileModel(at: source)
    }

    func load(_ compiled: URL) throws -> MLModel {
      try MLModel(contentsOf: compiled, configuration: MLModelConfiguration())
    }

    /// One loader per app process: each model is compiled once per model and OS build into
    /// the app's Caches folder and loaded once per process.
    static let loader = ModelLoader(
      compiler: CoreMLModelCompiler(),
      cacheDirectory: (FileManager.default.urls(for: .cachesDirectory, in: .userDomainMask).first
        ?? FileManager.default.temporaryDirectory)
        .appendingPathComponent("ContextSDK/CompiledModels", isDirectory: true),
      systemBuild: ProcessInfo.processInfo.operatingSystemVersionString)
  }

  extension CustomerBuild {
    /// The flow's model, compiled and loaded: the newest verified download from
    /// `downloadsDirectory` this SDK supports, else the bundled model. Ask for it at each
    /// decision: it is compiled once and then handed out from memory. A download that cannot
    /// be loaded leaves the flow on its bundled model (`fallback` says so). Throws `.noModel`
    /// when this build has no model for the flow (make no decision with a model).
    public static func model(
      forFlow flowName: String, downloadsDirectory: URL = ModelUpdateConfiguration.defaultModelsDirectory
    ) async throws(ModelLoadError) -> LoadedModel<MLModel> {
      guard let sources = modelSources(forFlow: flowName, downloadsDirectory: downloadsDirectory) else {
        throw .noModel(flowName: flowName)
      }
      return try await CoreMLModelCompiler.loader.model(sources)
    }
  }
#endif
