import Foundation
import ReleaseSystem

/// A flat key → bytes store that releases are published to: a directory (the default) or
/// S3-compatible object storage. Keys use unreserved characters and `/` only.
protocol ObjectStore: Sendable {
  /// For messages: `dist/published`, `s3://bucket/prefix`.
  var displayName: String { get }
  /// The URL a customer downloads `key` from (written into manifests).
  func publicURL(for key: String) -> String
  /// SHA-256 and size of the object's bytes, read back from the store (streamed).
  func digest(of key: String) throws -> (sha256: String, size: Int64)?
  /// Creates the object only if the key is free; `false` when it already exists (nothing
  /// is changed then). Published versions are immutable this way.
  func createOnly(_ key: String, from file: URL, contentType: String) throws -> Bool
  /// Writes or replaces a small mutable object (manifests, indexes).
  func replace(_ key: String, with data: Data, contentType: String) throws
  func read(_ key: String) throws -> Data?
}

/// A directory as an object store: files under `root`, written through temporary names.
struct DirectoryObjectStore: ObjectStore {
  let root: URL
  let displayName: String
  let baseURL: String?

  func publicURL(for key: String) -> String {
    if let baseURL { return baseURL.hasSuffix("/") ? baseURL + key : baseURL + "/" + key }
    return root.appendingPathComponent(key).absoluteString
  }

  func digest(of key: String) throws -> (sha256: String, size: Int64)? {
    let url = root.appendingPathComponent(key)
    guard FileManager.default.fileExists(atPath: url.path) else { return nil }
    return try SHA256Digest.hexAndSize(ofFileAt: url)
  }

  func createOnly(_ key: String, from file: URL, contentType: String) throws -> Bool {
    let destination = root.appendingPathComponent(key)
    try AtomicFile.createDirectory(destination.deletingLastPathComponent())
    let temporary = AtomicFile.temporarySibling(of: destination)
    defer { try? FileManager.default.removeItem(at: temporary) }
    do { try FileManager.default.copyItem(at: file, to: temporary) } catch {
      throw SystemError.cannotWrite(path: destination.path, reason: error.localizedDescription)
    }
    // link(2) publishes the complete copy under the final name and fails if the name is
    // taken: create-only, even against a publisher racing this one.
    if link(temporary.path, destination.path) == 0 { return true }
    if errno == EEXIST { return false }
    throw SystemError.cannotWrite(path: destination.path, reason: String(cString: strerror(errno)))
  }

  func replace(_ key: String, with data: Data, contentType: String) throws {
    try AtomicFile.write(data, to: root.appendingPathComponent(key))
  }

  func read(_ key: String) throws -> Data? {
    try? Data(contentsOf: root.appendingPathComponent(key))
  }
}
