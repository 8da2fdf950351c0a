import Foundation

#if canImport(Glibc)
  import Glibc
#elseif canImport(Darwin)
  import Darwin
#endif

/// Reading a file that someone else may have replaced since it was checked: a model store's
/// entry is checked with lstat/stat, and read later, so a FIFO or a device put under its name
/// in between would block open(2) forever (a FIFO without a writer) or never end (/dev/zero).
///
/// The file is opened without blocking, and what was opened is checked on the descriptor itself
/// (fstat), so there is no window left: anything but a regular file is refused, naming what it
/// is. Symbolic links are followed (a store may link a model to another file inside it; the
/// store checks where links lead): the descriptor's own type is what decides.
public enum RegularFile {
  /// A read-only descriptor of the regular file at `url` (close-on-exec, blocking reads), and
  /// its size. The caller closes it.
  public static func descriptor(_ url: URL) throws -> (descriptor: Int32, size: Int64) {
    let descriptor = open(url.path, O_RDONLY | O_NONBLOCK | O_CLOEXEC)
    guard descriptor >= 0 else {
      throw SystemError.cannotRead(path: url.path, reason: String(cString: strerror(errno)))
    }
    var status = stat()
    guard fstat(descriptor, &status) == 0 else {
      let reason = String(cString: strerror(errno))
      close(descriptor)
      throw SystemError.cannotRead(path: url.path, reason: reason)
    }
    guard status.st_mode & S_IFMT == S_IFREG else {
      close(descriptor)
      throw SystemError.notARegularFile(path: url.path, kind: kind(of: status.st_mode))
    }
    // Regular files never block; clear the flag anyway, so reads behave as usual everywhere.
    _ = fcntl(descriptor, F_SETFL, fcntl(descriptor, F_GETFL) & ~O_NONBLOCK)
    return (descriptor, Int64(status.st_size))
  }

  /// A handle for reading the regular file at `url`, closed when released.
  public static func handle(_ url: URL) throws -> FileHandle {
    FileHandle(fileDescriptor: try descriptor(url).descriptor, closeOnDealloc: true)
  }

  /// The regular file's bytes, memory-mapped from the descriptor that was checked: pages are
  /// read only when touched, so a large file costs little memory.
  public static func mapped(_ url: URL) throws -> Data {
    let (descriptor, size) = try descriptor(url)
    defer { close(descriptor) }
    guard size > 0 else { return Data() }
    guard let address = mmap(nil, Int(size), PROT_READ, MAP_PRIVATE, descriptor, 0), address != MAP_FAILED
    else {
      throw SystemError.cannotRead(path: url.path, reason: String(cString: strerror(errno)))
    }
    return Data(bytesNoCopy: address, count: Int(size), deallocator: .custom { munmap($0, $1) })
  }

  /// What a file that is not a regular one is, for messages.
  public static func kind(of mode: mode_t) -> String {
    switch mode & S_IFMT {
    case S_IFIFO: return "a FIFO"
    case S_IFCHR: return "a character device"
    case S_IFBLK: return "a block device"
    case S_IFSOCK: return "a socket"
    case S_IFDIR: return "a directory"
    case S_IFLNK: return "a symbolic link"
    default: return "a special file"
    }
  }
}
