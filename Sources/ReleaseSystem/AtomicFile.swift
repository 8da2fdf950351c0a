import CSystemShim
import Foundation

/// Writes that never leave a partial file under a final name: data goes to a temporary
/// sibling (same directory, so the rename stays on one file system), then is renamed.
public enum AtomicFile {
  /// A temporary sibling name for `url`: hidden, unique to this process and call.
  /// Registered with `TemporaryFiles`, so an interrupted run removes it.
  public static func temporarySibling(of url: URL) -> URL {
    let name = ".\(url.lastPathComponent).tmp-\(getpid())-\(UUID().uuidString.prefix(8))"
    let temporary = url.deletingLastPathComponent().appendingPathComponent(name)
    TemporaryFiles.shared.register(temporary)
    return temporary
  }

  /// Removes the temporaries (`temporarySibling` names) that processes which no longer exist
  /// left in `directory`, as a SIGKILL or a power cut does; those of live processes stay. With
  /// `of`, only the temporaries of that file name. Returns what was removed.
  @discardableResult
  public static func removeAbandonedTemporaries(in directory: URL, of fileName: String? = nil) -> [URL] {
    guard let names = try? FileManager.default.contentsOfDirectory(atPath: directory.path) else { return [] }
    var removed: [URL] = []
    for name in names.sorted() {
      if let fileName, !name.hasPrefix(".\(fileName).tmp-") { continue }
      guard let owner = temporaryOwner(name), owner != getpid(), kill(owner, 0) != 0, errno == ESRCH else {
        continue
      }
      let url = directory.appendingPathComponent(name)
      if (try? FileManager.default.removeItem(at: url)) != nil { removed.append(url) }
    }
    return removed
  }

  /// The pid in a `temporarySibling` name (`.<name>.tmp-<pid>-<8 characters>`), nil for any
  /// other name.
  static func temporaryOwner(_ name: String) -> pid_t? {
    guard name.hasPrefix("."), let marker = name.range(of: ".tmp-", options: .backwards) else { return nil }
    let parts = name[marker.upperBound...].split(separator: "-", omittingEmptySubsequences: false)
    guard parts.count == 2, parts[1].count == 8, let pid = pid_t(parts[0]), pid > 0 else { return nil }
    return pid
  }

  /// `durable`: fsync before and after the rename (see `rename`). Scratch files (generated
  /// packages, diffs) pass false: they are remade after a crash, and syncing each costs time.
  public static func write(_ data: Data, to url: URL, durable: Bool = true) throws {
    try createDirectory(url.deletingLastPathComponent())
    let temporary = temporarySibling(of: url)
    do {
      try data.write(to: temporary)
      try rename(temporary, to: url, durable: durable)
    } catch let error as SystemError {
      try? FileManager.default.removeItem(at: temporary)
      throw error
    } catch {
      try? FileManager.default.removeItem(at: temporary)
      throw SystemError.cannotWrite(path: url.path, reason: SystemError.reason(error))
    }
  }

  public static func write(_ string: String, to url: URL, durable: Bool = true) throws {
    try write(Data(string.utf8), to: url, durable: durable)
  }

  /// Produces a file through `body`, which writes to the temporary URL it is given;
  /// the result appears under `url` only if `body` returns.
  public static func produce<T>(_ url: URL, durable: Bool = true, _ body: (URL) throws -> T) throws -> T {
    try createDirectory(url.deletingLastPathComponent())
    let temporary = temporarySibling(of: url)
    do {
      let result = try body(temporary)
      try rename(temporary, to: url, durable: durable)
      return result
    } catch {
      try? FileManager.default.removeItem(at: temporary)
      throw error
    }
  }

  /// Atomic replace (POSIX rename): the destination is either the old or the new file. The
  /// source's bytes reach the disk first and the directory entry after, so a power cut never
  /// leaves a final name pointing at a file whose blocks were not written.
  public static func rename(_ source: URL, to destination: URL, durable: Bool = true) throws {
    if durable { sync(source) }
    if Foundation.rename(source.path, destination.path) != 0 {
      throw SystemError.cannotWrite(path: destination.path, reason: String(cString: strerror(errno)))
    }
    if durable { syncEntries(of: destination.deletingLastPathComponent()) }
  }

  /// fsync of a directory's entries only, after a rename into it: its files were synced when
  /// they were written (syncing them all again after each rename made a merge of 120
  /// customers' logs cost 7,260 fsyncs).
  private static func syncEntries(of directory: URL) {
    syncDescriptor(directory.path, O_RDONLY | O_DIRECTORY)
  }

  /// fsync of a file, or of a directory and with it its entries (and, for a directory being
  /// renamed into place, each file in it). Best effort: a file system without fsync still
  /// gets the rename.
  public static func sync(_ url: URL) {
    var status = stat()
    guard lstat(url.path, &status) == 0 else { return }
    if status.st_mode & S_IFMT == S_IFDIR,
      let names = try? FileManager.default.contentsOfDirectory(atPath: url.path)
    {
      for name in names {
        var entry = stat()
        let path = url.appendingPathComponent(name).path
        if lstat(path, &entry) == 0, entry.st_mode & S_IFMT == S_IFREG { syncDescriptor(path, O_RDONLY) }
      }
      syncDescriptor(url.path, O_RDONLY | O_DIRECTORY)
    } else if status.st_mode & S_IFMT == S_IFREG {
      syncDescriptor(url.path, O_RDONLY)
    }
  }

  private static func syncDescriptor(_ path: String, _ flags: Int32) {
    let descriptor = open(path, flags | O_CLOEXEC)
    guard descriptor >= 0 else { return }
    _ = fsync(descriptor)
    close(descriptor)
  }

  /// Puts `source` (a complete directory or file) under `destination`, which may exist: swapped
  /// in one step (renameat2 RENAME_EXCHANGE / renamex_np RENAME_SWAP), so a reader finds the
  /// old or the new one at every moment, never nothing; the old one is then removed. Where the
  /// file system cannot swap, the old one is moved aside first (a moment without it).
  public static func replace(_ destination: URL, with source: URL) throws {
    sync(source)
    if csystem_exchange(source.path, destination.path) == 0 {
      syncEntries(of: destination.deletingLastPathComponent())
      try? FileManager.default.removeItem(at: source)
      return
    }
    if errno == ENOENT, !FileManager.default.fileExists(atPath: destination.path) {
      try rename(source, to: destination)
      return
    }
    let aside = temporarySibling(of: destination)
    try rename(destination, to: aside)
    try rename(source, to: destination)
    try? FileManager.default.removeItem(at: aside)
  }

  /// Moves a file to `destination`, which is either the old or the new file at any moment, also
  /// across file systems (where rename(2) fails with EXDEV: the bytes are copied to a temporary
  /// sibling of `destination`, which is renamed, and then the source is removed).
  public static func move(_ source: URL, to destination: URL) throws {
    if Foundation.rename(source.path, destination.path) == 0 { return }
    let code = errno
    guard code == EXDEV else {
      throw SystemError.cannotWrite(path: destination.path, reason: String(cString: strerror(code)))
    }
    try produce(destination) { temporary in
      do {
        try FileManager.default.copyItem(at: source, to: temporary)
      } catch {
        throw SystemError.cannotWrite(path: destination.path, reason: SystemError.reason(error))
      }
    }
    try? FileManager.default.removeItem(at: source)
  }

  public static func createDirectory(_ url: URL) throws {
    var isDirectory: ObjCBool = false
    if FileManager.default.fileExists(atPath: url.path, isDirectory: &isDirectory), !isDirectory.boolValue {
      throw SystemError.cannotWrite(path: url.path, reason: "it is a file, expected a directory")
    }
    do {
      try FileManager.default.createDirectory(at: url, withIntermediateDirectories: true)
    } catch {
      throw SystemError.cannotWrite(path: url.path, reason: SystemError.reason(error))
    }
  }
}
