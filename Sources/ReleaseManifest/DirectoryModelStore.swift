import Foundation

/// The model store as a directory: `<root>/<flowName>/<version>.mlmodel`, as in the repo's
/// `models/`. Anything else there (`index.json`, hidden files, a `README`, `72.mlmodel.bak`)
/// is ignored, so the directory can carry notes and tooling output beside the models.
public struct DirectoryModelStore: ModelStore {
  public let root: URL
  /// The root as the user gave it (`models`), for messages.
  public let displayName: String

  public init(root: URL, displayName: String? = nil) {
    self.root = root
    self.displayName = displayName ?? root.path
  }

  public func flowNames() throws -> [String] {
    try checkRoot()
    return try entries(of: root).filter { name in
      guard Self.isFlowName(name), isDirectory(root.appendingPathComponent(name)) else { return false }
      return try !versions(of: name).isEmpty
    }.sorted()
  }

  public func versions(of flowName: String) throws -> [Int] {
    guard Self.isFlowName(flowName) else { return [] }
    let directory = root.appendingPathComponent(flowName)
    guard isDirectory(directory) else { return [] }
    return try entries(of: directory).compactMap { name in
      guard let version = Self.version(fromFileName: name) else { return nil }
      return isRegularFile(directory.appendingPathComponent(name)) ? version : nil
    }.sorted()
  }

  public func localFile(for reference: ModelReference) throws -> URL {
    let file = root.appendingPathComponent(reference.relativePath)
    guard Self.isFlowName(reference.flowName), reference.version >= 0, isRegularFile(file) else {
      try checkRoot()
      throw DirectoryModelStoreError.modelNotFound(
        store: displayName, reference: reference, available: try versions(of: reference.flowName),
        flows: try flowNames())
    }
    return file
  }

  /// `72.mlmodel` -> 72. Plain decimal only: `072.mlmodel` or `+72.mlmodel` would name the
  /// same version as another file, so they do not count as models.
  static func version(fromFileName name: String) -> Int? {
    guard name.hasSuffix(".mlmodel") else { return nil }
    let digits = name.dropLast(".mlmodel".count)
    guard !digits.isEmpty, digits.allSatisfy({ ("0"..."9").contains($0) }),
      digits == "0" || !digits.hasPrefix("0")
    else { return nil }
    return Int(digits)
  }

  /// A directory name that can be a flow: not hidden, not a path.
  private static func isFlowName(_ name: String) -> Bool {
    !name.isEmpty && !name.hasPrefix(".") && !name.contains("/")
  }

  private func checkRoot() throws {
    var directory: ObjCBool = false
    guard FileManager.default.fileExists(atPath: root.path, isDirectory: &directory) else {
      throw DirectoryModelStoreError.rootNotFound(store: displayName)
    }
    guard directory.boolValue else { throw DirectoryModelStoreError.rootNotDirectory(store: displayName) }
  }

  private func entries(of directory: URL) throws -> [String] {
    do {
      return try FileManager.default.contentsOfDirectory(atPath: directory.path)
    } catch {
      throw DirectoryModelStoreError.unreadable(path: directory.path, reason: error.localizedDescription)
    }
  }

  // Both follow symbolic links, so a store may link to models kept elsewhere.
  private func isDirectory(_ url: URL) -> Bool {
    var directory: ObjCBool = false
    return FileManager.default.fileExists(atPath: url.path, isDirectory: &directory) && directory.boolValue
  }

  private func isRegularFile(_ url: URL) -> Bool {
    var directory: ObjCBool = false
    return FileManager.default.fileExists(atPath: url.path, isDirectory: &directory) && !directory.boolValue
  }
}

public enum DirectoryModelStoreError: Error, CustomStringConvertible, Equatable, Sendable {
  case rootNotFound(store: String)
  case rootNotDirectory(store: String)
  case unreadable(path: String, reason: String)
  /// `available`: the flow's versions in the store; `flows`: every flow, for when the flow
  /// itself is unknown.
  case modelNotFound(store: String, reference: ModelReference, available: [Int], flows: [String])

  public var description: String {
    switch self {
    case .rootNotFound(let store):
      return "\(store): model store directory not found; expected <flowName>/<version>.mlmodel files there"
    case .rootNotDirectory(let store):
      return "\(store): model store is not a directory; expected <flowName>/<version>.mlmodel files there"
    case .unreadable(let path, let reason):
      return "\(path): cannot list: \(reason)"
    case .modelNotFound(let store, let reference, let available, let flows):
      let file = Self.join(store, reference.relativePath)
      if !available.isEmpty {
        let versions = available.map(String.init).joined(separator: ", ")
        return "\(file): no such model; \(reference.flowName) has versions \(versions)"
      }
      let known =
        flows.isEmpty ? "the store has no flows" : "flows in the store: " + flows.joined(separator: ", ")
      return "\(file): no such model; the store has no flow \"\(reference.flowName)\" (\(known))"
    }
  }

  /// `models/` + `a/1.mlmodel` without a doubled slash.
  private static func join(_ store: String, _ relativePath: String) -> String {
    store.hasSuffix("/") ? store + relativePath : store + "/" + relativePath
  }
}
