import Foundation
import ReleaseSystem

/// A flat key → bytes store that releases are published to: a directory (the default) or
/// S3-compatible object storage. Keys use unreserved characters and `/` only.
package protocol ObjectStore: Sendable {
  /// For messages: `dist/published`, `s3://bucket/prefix`.
  var displayName: String { get }
  /// The URL a customer downloads `key` from (written into manifests).
  func publicURL(for key: String) -> String
  /// SHA-256 and size of the object's bytes, read back from the store (streamed), reading at
  /// most `maximumSize` bytes: a bigger object is an error (`SystemError.tooLarge`).
  func digest(of key: String, maximumSize: Int64) throws -> (sha256: String, size: Int64)?
  /// Creates the object only if the key is free; `false` when it already exists (nothing
  /// is changed then). Published versions are immutable this way.
  func createOnly(_ key: String, from file: URL, contentType: String) throws -> Bool
  /// A small mutable object (an index, a manifest pointer) as it is now, with the tag a
  /// conditional replace compares: nil when there is none. Only "no such object" is nil;
  /// anything the store cannot read is an error, never "empty". At most
  /// `ObjectStoreLimits.mutableObject` bytes are read: a bigger object is an error.
  func read(_ key: String) throws -> StoredObject?
  /// Replaces `key` with `data` only if it still holds what was read (`expected`, its tag; nil:
  /// only if there is none). False when another publisher changed it in between: read it
  /// again and merge, rather than overwrite their change.
  func replace(_ key: String, with data: Data, contentType: String, ifUnchanged expected: String?) throws
    -> Bool
}

/// How much is read back from a destination at most: whoever can write it must not make a
/// publish read gigabytes.
package enum ObjectStoreLimits {
  /// An index or a manifest pointer (`ObjectStore.read`): far more than any the tool writes.
  package static let mutableObject: Int64 = 16 * 1024 * 1024
  /// An object whose size the reader does not know beforehand (`digest(of:)`): the most a
  /// model (`--max-model-size` defaults to 512 MB) or a release archive is expected to be.
  package static let object: Int64 = 2 * 1024 * 1024 * 1024
}

extension ObjectStore {
  /// `digest(of:maximumSize:)` with `ObjectStoreLimits.object`.
  package func digest(of key: String) throws -> (sha256: String, size: Int64)? {
    try digest(of: key, maximumSize: ObjectStoreLimits.object)
  }

  /// Uploads `file` under `key` create-only, then reads back what the store holds there: the
  /// object this call created, which must have `sha256` and `size`, or (a concurrent publisher
  /// or a lost answer got there first) the one that was there, returned for the caller to
  /// judge. Whether this call created it, and what the store holds.
  package func createOnlyReadBack(
    _ key: String, from file: URL, contentType: String, sha256: String, size: Int64
  )
    throws -> (created: Bool, remote: (sha256: String, size: Int64))
  {
    let created = try createOnly(key, from: file, contentType: contentType)
    let location = "\(displayName)/\(key)"
    // One byte more than expected is enough to tell it differs.
    guard let remote = try digest(of: key, maximumSize: size + 1) else {
      throw PublishError.readBackMismatch(
        location: location, expected: "\(size) bytes", found: "no object")
    }
    if created, remote.sha256 != sha256 || remote.size != size {
      throw PublishError.readBackMismatch(
        location: location, expected: "sha256 \(sha256) (\(size) bytes)",
        found: "sha256 \(remote.sha256) (\(remote.size) bytes)")
    }
    return (created, remote)
  }
}

/// A mutable object as read: its bytes and the tag that names this version of it (the ETag on
/// S3, the SHA-256 of the bytes in a directory).
package struct StoredObject: Sendable {
  package var data: Data
  package var tag: String
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

  func digest(of key: String, maximumSize: Int64) throws -> (sha256: String, size: Int64)? {
    let url = root.appendingPathComponent(key)
    guard FileManager.default.fileExists(atPath: url.path) else { return nil }
    try refuseLarger(url, key: key, than: maximumSize)
    return try SHA256Digest.hexAndSize(ofFileAt: url)
  }

  /// Throws `tooLarge` for a file over `limit` bytes (by its size, before any byte is read).
  private func refuseLarger(_ url: URL, key: String, than limit: Int64) throws {
    var status = stat()
    if stat(url.path, &status) == 0, Int64(status.st_size) > limit {
      throw SystemError.tooLarge(location: "\(displayName)/\(key)", limit: limit)
    }
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

  /// Compare and replace under a lock file in the destination, shared by every publisher
  /// writing into it (other runs, other machines on a shared file system).
  func replace(_ key: String, with data: Data, contentType: String, ifUnchanged expected: String?) throws
    -> Bool
  {
    let lock = try FileLock(root.appendingPathComponent(".release-publish.lock"), timeout: 60)
    return try withExtendedLifetime(lock) {
      guard try read(key)?.tag == expected else { return false }
      try AtomicFile.write(data, to: root.appendingPathComponent(key))
      return true
    }
  }

  func read(_ key: String) throws -> StoredObject? {
    let url = root.appendingPathComponent(key)
    var status = stat()
    if lstat(url.path, &status) != 0 {
      // Only "no such file" means there is none yet; a directory on the way, a permission
      // or I/O error stops the publish rather than pass for an empty index.
      if errno == ENOENT { return nil }
      throw SystemError.cannotRead(path: url.path, reason: String(cString: strerror(errno)))
    }
    // A FIFO or device in the index's place is named as such (and never blocks the read).
    let handle = try RegularFile.handle(url)
    defer { try? handle.close() }
    let limit = ObjectStoreLimits.mutableObject
    let data: Data
    do { data = try handle.read(upToCount: Int(limit) + 1) ?? Data() } catch {
      throw SystemError.cannotRead(path: url.path, reason: SystemError.reason(error))
    }
    guard data.count <= limit else {
      throw SystemError.tooLarge(location: "\(displayName)/\(key)", limit: limit)
    }
    return StoredObject(data: data, tag: SHA256Digest.hex(of: data))
  }
}
