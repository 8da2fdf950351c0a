import Foundation

#if canImport(Glibc)
  import Glibc
#elseif canImport(Darwin)
  import Darwin
#endif

/// The most a child process may write below one directory (`ProcessInvocation.writeLimit`): a
/// child whose input comes from elsewhere (`git clone` of a repository someone else can push
/// to) would otherwise fill the disk.
public struct WriteLimit: Equatable, Sendable {
  public var directory: URL
  public var bytes: Int64

  public init(directory: URL, bytes: Int64) {
    self.directory = directory
    self.bytes = bytes
  }

  /// The sizes of every file below `directory` added up (symbolic links not followed, as
  /// links); 0 while it does not exist. Files that vanish during the walk (a child renaming its
  /// temporaries) are not counted.
  public func written() -> Int64 {
    guard let paths = FileManager.default.enumerator(atPath: directory.path) else { return 0 }
    var total: Int64 = 0
    for case let path as String in paths {
      var status = stat()
      guard lstat(directory.appendingPathComponent(path).path, &status) == 0 else { continue }
      if status.st_mode & S_IFMT == S_IFREG { total += Int64(status.st_size) }
    }
    return total
  }
}
