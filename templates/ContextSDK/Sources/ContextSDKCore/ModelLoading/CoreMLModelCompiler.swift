#if canImport(CoreML)
  import CoreML

  /// Core ML's two calls, and nothing else: the logic around them is `ModelLoader`'s.
  public struct CoreMLModelCompiler: ModelCompiling {
    public init() {}

    /// Synchronous, so the iOS 11 overload is called (the async one needs iOS 16).
    public func compile(_ source: URL) throws -> URL {
      try MLModel.compileModel(at: source)
    }

    public func load(_ compiled: URL) throws -> MLModel {
      try MLModel(contentsOf: compiled, configuration: MLModelConfiguration())
    }
  }
#endif
