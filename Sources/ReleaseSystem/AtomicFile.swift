import Foundation

/// Writes that never leave a partial file under a final name: data goes to a temporary
/// sibling (same directory, so the rename stays on one file system), then is renamed.
public enum AtomicFile {
  /// A temporary sibling name for `url`: hidden, unique to this process and call.
  public static func temporarySibling(of url: URL) -> URL {
    let name = ".\(url.lastPathComponent).tmp-\(getpid())-\(UUID().uuidString.prefix(8))"
    return url.deletingLastPathComponent().appendingPathComponent(name)
  }

  public static func write(_ data: Data, to url: URL) throws {
    try createDirectory(url.deletingLastPathComponent())
    let temporary = temporarySibling(of: url)
    do {
      try data.write(to: temporary)
      try rename(temporary, to: url)
    } catch let error as SystemError {
      try? FileManager.default.removeItem(at: temporary)
      throw error
    } catch {
      try? FileManager.default.removeItem(at: temporary)
      throw SystemError.cannotWrite(path: url.path, reason: error.localizedDescription)
    }
  }

  public static func write(_ string: String, to url: URL) throws {
    try write(Data(string.utf8), to: url)
  }

  /// Produces a file through `body`, which writes to the temporary URL it is given;
  /// the result appears under `url` only if `body` returns.
  public static func produce<T>(_ url: URL, _ body: (URL) throws -> T) throws -> T {
    try createDirectory(url.deletingLastPathComponent())
    let temporary = temporarySibling(of: url)
    do {
      let result = try body(temporary)
      try rename(temporary, to: url)
      return result
    } catch {
      try? FileManager.default.removeItem(at: temporary)
      throw error
    }
  }

  /// Atomic replace (POSIX rename): the destination is either the old or the new file.
  public static func rename(_ source: URL, to destination: URL) throws {
    if Foundation.rename(source.path, destination.path) != 0 {
      throw SystemError.cannotWrite(path: destination.path, reason: String(cString: strerror(errno)))
    }
  }

  public static func createDirectory(_ url: URL) throws {
    do {
      try FileManager.default.createDirectory(at: url, withIntermediateDirectories: true)
    } catch {
      throw SystemError.cannotWrite(path: url.path, reason: error.localizedDescription)
    }
  }
}
