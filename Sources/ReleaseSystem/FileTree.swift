import Foundation

#if canImport(Glibc)
  import Glibc
#elseif canImport(Darwin)
  import Darwin
#endif

/// Copies that share the bytes where they can: a file is hard-linked when source and
/// destination are on one file system, and copied otherwise. A merge of shards puts hundreds
/// of release directories in place this way without writing their bytes again (on 120
/// customers, copying was about half of `release merge`). The tool never changes a file in
/// place (every write is a rename of a new file), so a link shares nothing it will change.
public enum FileTree {
  /// Makes `destination` (which must not exist) a copy of the directory `source`. Anything in
  /// it but directories and regular files (a symbolic link, a FIFO) is refused by name.
  public static func linkOrCopy(directory source: URL, to destination: URL) throws {
    try create(destination)
    let names: [String]
    do {
      names = try FileManager.default.contentsOfDirectory(atPath: source.path).sorted()
    } catch {
      throw SystemError.cannotRead(path: source.path, reason: SystemError.reason(error))
    }
    for name in names {
      let from = source.appendingPathComponent(name)
      var status = stat()
      guard lstat(from.path, &status) == 0 else {
        throw SystemError.cannotRead(path: from.path, reason: String(cString: strerror(errno)))
      }
      switch status.st_mode & S_IFMT {
      case S_IFDIR: try linkOrCopy(directory: from, to: destination.appendingPathComponent(name))
      case S_IFREG: try linkOrCopy(file: from, to: destination.appendingPathComponent(name))
      default: throw SystemError.notARegularFile(path: from.path, kind: RegularFile.kind(of: status.st_mode))
      }
    }
  }

  /// Makes `destination` (which must not exist) a copy of the regular file `source`.
  public static func linkOrCopy(file source: URL, to destination: URL) throws {
    if link(source.path, destination.path) == 0 { return }
    do {
      try FileManager.default.copyItem(at: source, to: destination)
    } catch {
      throw SystemError.cannotWrite(path: destination.path, reason: SystemError.reason(error))
    }
  }

  private static func create(_ directory: URL) throws {
    guard mkdir(directory.path, 0o755) == 0 else {
      throw SystemError.cannotWrite(path: directory.path, reason: String(cString: strerror(errno)))
    }
  }
}
