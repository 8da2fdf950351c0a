import Foundation

/// An exclusive advisory lock (flock(2)) on a file, held for the life of the value. The
/// kernel drops it when the process dies, even by SIGKILL, so a crashed run never leaves a
/// stale lock behind; the holder's pid is written into the file for the message.
public final class FileLock: Sendable {
  private let descriptor: Int32
  public let url: URL

  /// Takes the lock, waiting up to `timeout` seconds (polling; 0 = fail at once if held).
  public init(_ url: URL, timeout: Double = 0) throws {
    try AtomicFile.createDirectory(url.deletingLastPathComponent())
    // Close-on-exec: a child must never hold the lock after the run is gone.
    let descriptor = open(url.path, O_RDWR | O_CREAT | O_CLOEXEC, 0o644)
    guard descriptor >= 0 else {
      throw SystemError.cannotWrite(path: url.path, reason: String(cString: strerror(errno)))
    }
    let deadline = Date().addingTimeInterval(timeout)
    while flock(descriptor, LOCK_EX | LOCK_NB) != 0 {
      if Date() >= deadline {
        var buffer = [UInt8](repeating: 0, count: 64)
        let count = pread(descriptor, &buffer, buffer.count, 0)
        let holder = String(decoding: buffer.prefix(max(0, count)), as: UTF8.self)
          .trimmingCharacters(in: .whitespacesAndNewlines)
        close(descriptor)
        throw SystemError.locked(path: url.path, holder: holder.isEmpty ? "unknown process" : holder)
      }
      usleep(100_000)
    }
    let text = "pid \(getpid())\n"
    _ = ftruncate(descriptor, 0)
    _ = text.withCString { pwrite(descriptor, $0, strlen($0), 0) }
    self.descriptor = descriptor
    self.url = url
  }

  deinit {
    flock(descriptor, LOCK_UN)
    close(descriptor)
  }
}
