#if canImport(CoreML)
  import CoreML
  import Foundation

  extension ContextSDK {
    /// One loader per app process: each model is compiled once per model and OS build and
    /// loaded once per process (see `ModelLoader`).
    private static let models = ModelLoader(
      compiler: CoreMLModelCompiler(),
      cacheDirectory: (FileManager.default.urls(for: .cachesDirectory, in: .userDomainMask).first
        ?? FileManager.default.temporaryDirectory)
        .appendingPathComponent("ContextSDK/CompiledModels", isDirectory: true),
      systemBuild: ProcessInfo.processInfo.operatingSystemVersionString)

    /// The flow's model, compiled and loaded: the newest verified download from
    /// `downloadsDirectory` this SDK supports, else the bundled model. Ask for it at each
    /// decision: it is compiled once and then handed out from memory. A download that cannot
    /// be loaded leaves the flow on its bundled model (`fallback` says so). Throws
    /// `.noModel` when this build has no model for the flow (make no decision with a model).
    public static func model(forFlow flowName: String, downloadsDirectory: URL) async throws(ModelLoadError)
      -> LoadedModel<MLModel>
    {
      guard let sources = modelSources(forFlow: flowName, downloadsDirectory: downloadsDirectory) else {
        throw .noModel(flowName: flowName)
      }
      return try await models.model(sources)
    }
  }
#endif
