import Foundation
import ReleaseSystem

/// The model store as a directory: `<root>/<flowName>/<version>.mlmodel`, as in the repo's
/// `models/`. Anything else there (`index.json`, hidden files, a `README`, `72.mlmodel.bak`)
/// is ignored, so the directory can carry notes and tooling output beside the models.
///
/// A store is input the tool did not make: a model is only ever a regular file (or a symbolic
/// link to one inside the store) within the size limit. Anything else under a model's name —
/// a FIFO that blocks a reader forever, a link to `/dev/zero` that never ends, a link out of
/// the store — is refused, naming the entry, before a byte of it is read.
public struct DirectoryModelStore: ModelStore {
  /// 512 MiB: well above a real on-device model (and the 200 MB one `Scripts/bench` uses).
  public static let defaultMaximumModelSize: Int64 = 512 * 1024 * 1024

  let root: URL
  /// The root as the user gave it (`models`), for messages.
  public let displayName: String
  /// Bytes a model may have (`--max-model-size`).
  let maximumModelSize: Int64

  public init(root: URL, displayName: String? = nil, maximumModelSize: Int64 = defaultMaximumModelSize) {
    self.root = root
    self.displayName = displayName ?? root.path
    self.maximumModelSize = maximumModelSize
  }

  public func flowNames() throws -> [String] {
    try checkRoot()
    return try entries(of: root).sorted().filter { name in
      guard Self.isFlowName(name), isDirectory(root.appendingPathComponent(name)) else { return false }
      return try !versions(of: name).isEmpty
    }.sorted()
  }

  public func versions(of flowName: String) throws -> [Int] {
    guard Self.isFlowName(flowName) else { return [] }
    let directory = root.appendingPathComponent(flowName)
    guard isDirectory(directory) else { return [] }
    // In name order, so the first refused entry is the same on every machine.
    return try entries(of: directory).sorted().compactMap { name in
      guard let version = Self.version(fromFileName: name) else { return nil }
      // Every entry with a model's name is checked, not skipped: a special file there is a
      // mistake or an attack, and must be reported rather than passed over or read.
      return try isModelFile(directory.appendingPathComponent(name), relativePath: "\(flowName)/\(name)")
        ? version : nil
    }.sorted()
  }

  public func localFile(for reference: ModelReference) throws -> URL {
    let file = root.appendingPathComponent(reference.relativePath)
    guard Self.isFlowName(reference.flowName), reference.version >= 0,
      try isModelFile(file, relativePath: reference.relativePath)
    else {
      try checkRoot()
      throw DirectoryModelStoreError.modelNotFound(
        store: displayName, reference: reference, available: try versions(of: reference.flowName),
        flows: try flowNames())
    }
    return file
  }

  /// Whether the entry under a model's name is a model file: false when there is none, or a
  /// directory (an `.mlpackage` renamed, say: not a model file, simply absent); throws for
  /// anything else that is not a regular file inside the store within the size limit. Uses
  /// lstat/stat only: nothing is opened, so nothing can block. What is at the path may change
  /// after this check: every reader of a model opens it with `RegularFile`, which checks again
  /// on the descriptor it reads.
  private func isModelFile(_ file: URL, relativePath: String) throws -> Bool {
    let display = DirectoryModelStoreError.join(displayName, relativePath)
    var status = stat()
    guard lstat(file.path, &status) == 0 else {
      if errno == ENOENT { return false }
      throw DirectoryModelStoreError.unreadable(path: display, reason: String(cString: strerror(errno)))
    }
    // Wherever a link sits (the file, or a flow directory), the model must really be inside
    // the store: a link out of it would ship whatever it points at.
    let isLink = status.st_mode & S_IFMT == S_IFLNK
    guard let resolved = realpath(file.path, nil) else {
      let target = (try? FileManager.default.destinationOfSymbolicLink(atPath: file.path)) ?? "?"
      throw DirectoryModelStoreError.notAModelFile(
        path: display, kind: "a symbolic link to \(target), which does not resolve")
    }
    let resolvedPath = String(cString: resolved)
    free(resolved)
    guard let storeRoot = realpath(root.path, nil) else {
      throw DirectoryModelStoreError.rootNotFound(store: displayName)
    }
    let storePrefix = String(cString: storeRoot) + "/"
    free(storeRoot)
    guard resolvedPath.hasPrefix(storePrefix) else {
      let target =
        isLink
        ? ((try? FileManager.default.destinationOfSymbolicLink(atPath: file.path)) ?? resolvedPath)
        : resolvedPath
      throw DirectoryModelStoreError.notAModelFile(
        path: display,
        kind: "a symbolic link to \(target), outside the model store; only regular files inside it are models"
      )
    }
    if isLink, stat(resolvedPath, &status) != 0 {
      throw DirectoryModelStoreError.unreadable(path: display, reason: String(cString: strerror(errno)))
    }
    if status.st_mode & S_IFMT == S_IFDIR { return false }
    guard status.st_mode & S_IFMT == S_IFREG else {
      throw DirectoryModelStoreError.notAModelFile(
        path: display,
        kind: "\(RegularFile.kind(of: status.st_mode)), not a regular file; only regular files are models")
    }
    let size = Int64(status.st_size)
    if size > maximumModelSize {
      throw DirectoryModelStoreError.tooLarge(path: display, size: size, limit: maximumModelSize)
    }
    return true
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

}

public enum DirectoryModelStoreError: Error, CustomStringConvertible, Equatable, Sendable {
  case rootNotFound(store: String)
  case rootNotDirectory(store: String)
  case unreadable(path: String, reason: String)
  /// `available`: the flow's versions in the store; `flows`: every flow, for when the flow
  /// itself is unknown.
  case modelNotFound(store: String, reference: ModelReference, available: [Int], flows: [String])
  /// Something other than a regular file inside the store under a model's name.
  case notAModelFile(path: String, kind: String)
  case tooLarge(path: String, size: Int64, limit: Int64)

  public var description: String {
    switch self {
    case .rootNotFound(let store):
      return "\(store): model store directory not found; expected <flowName>/<version>.mlmodel files there"
    case .rootNotDirectory(let store):
      return "\(store): model store is not a directory; expected <flowName>/<version>.mlmodel files there"
    case .unreadable(let path, let reason):
      return "\(path): cannot list: \(reason)"
    case .notAModelFile(let path, let kind):
      return "\(path): \(kind)"
    case .tooLarge(let path, let size, let limit):
      return "\(path): \(size) bytes, over the limit of \(limit) bytes per model (--max-model-size)"
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
  static func join(_ store: String, _ relativePath: String) -> String {
    store.hasSuffix("/") ? store + relativePath : store + "/" + relativePath
  }
}
