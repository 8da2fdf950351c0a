import Foundation
import ReleaseSystem

#if canImport(Glibc)
  import Glibc
#elseif canImport(Darwin)
  import Darwin
#endif

/// SHA-256 digests of a directory store's model files, kept in the run's cache directory
/// (`<cache>/model-digests.json`), so the foreign-model scan of every run does not read every
/// model of the store again: a file whose path, device, inode, size, modification and change
/// time are those recorded is not read; any other is, and recorded.
///
/// Why a wrong digest in it cannot let anything ship: the cache is input the tool did not
/// check (anyone who can write the cache directory can edit it), so it is used only for
/// models the run does not embed — the scan's list of *other* models of the store. The
/// models a release embeds are hashed from their files every run (`known` digests, from
/// loading the inputs), and every archive is compared file by file with the package the
/// template makes from those (ReproductionCheck). A wrong cached digest therefore can only
/// (a) name a model that is not there, or miss naming one that is — an archive holding any
/// file that is not exactly the template's package is refused anyway — or (b) make the
/// release.json check refuse a model entry: a false refusal. An unreadable cache is ignored.
public final class ModelDigestCache {
  static let fileName = "model-digests.json"

  struct Key: Codable, Equatable {
    var device: UInt64
    var inode: UInt64
    var size: Int64
    var modified: [Int64]
    var changed: [Int64]
  }

  private struct Entry: Codable {
    var key: Key
    var sha256: String
  }

  private struct File: Codable {
    var entries: [String: Entry]
  }

  let url: URL
  private var recorded: [String: Entry]
  /// What this run found, written back by `save` (entries of files gone are dropped).
  private var current: [String: Entry] = [:]
  /// Files read because the cache had no digest for them as they are.
  private(set) var filesRead = 0

  public init(directory: URL) {
    url = directory.appendingPathComponent(Self.fileName)
    recorded =
      (try? Data(contentsOf: url)).flatMap { try? JSONDecoder().decode(File.self, from: $0) }?.entries ?? [:]
  }

  /// The digest of the model file at `file`: recorded when the file is as it was, read (from a
  /// descriptor checked to be a regular file) otherwise.
  public func sha256(of file: URL) throws -> String {
    var status = stat()
    if stat(file.path, &status) == 0, let entry = recorded[file.path], entry.key == Self.key(status),
      entry.sha256.count == 64
    {
      current[file.path] = entry
      return entry.sha256
    }
    let (descriptor, _) = try RegularFile.descriptor(file)
    defer { close(descriptor) }
    // The key of what is read: the descriptor's own status, taken before reading it.
    guard fstat(descriptor, &status) == 0 else {
      throw SystemError.cannotRead(path: file.path, reason: String(cString: strerror(errno)))
    }
    let key = Self.key(status)
    let sha256 = try SHA256Digest.hexAndSize(
      of: FileHandle(fileDescriptor: descriptor, closeOnDealloc: false)
    )
    .sha256
    filesRead += 1
    current[file.path] = Entry(key: key, sha256: sha256)
    return sha256
  }

  /// Writes what this run found; a cache that cannot be written only costs the next run reads.
  public func save() throws {
    try AtomicFile.write(
      try JSONEncoder().encode(File(entries: current)), to: url, durable: false)
  }

  private static func key(_ status: stat) -> Key {
    #if canImport(Darwin)
      let modified = status.st_mtimespec
      let changed = status.st_ctimespec
    #else
      let modified = status.st_mtim
      let changed = status.st_ctim
    #endif
    return Key(
      device: UInt64(status.st_dev), inode: UInt64(status.st_ino), size: Int64(status.st_size),
      modified: [Int64(modified.tv_sec), Int64(modified.tv_nsec)],
      changed: [Int64(changed.tv_sec), Int64(changed.tv_nsec)])
  }
}
