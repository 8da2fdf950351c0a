import Foundation

/// Failures of the machine around the tool: files, processes, locks. Each renders as one line.
public enum SystemError: Error, CustomStringConvertible, Equatable {
  case cannotRead(path: String, reason: String)
  case cannotWrite(path: String, reason: String)
  /// A FIFO, a device or a socket where a regular file was expected (`RegularFile`).
  case notARegularFile(path: String, kind: String)
  case programNotFound(name: String)
  case processFailed(command: String, exitCode: Int32, logPath: String?)
  case locked(path: String, holder: String)
  /// A download sent more bytes than it may: stopped as soon as they arrived.
  case tooLarge(location: String, limit: Int64)
  /// A child printed more on a captured stream than the tool reads; it was stopped.
  case outputTooLarge(command: String, stream: String, limit: Int)
  /// The child wrote more below a directory than its `WriteLimit`; it was stopped.
  case wroteTooMuch(command: String, directory: String, written: Int64, limit: Int64)
  /// The child ran past its time limit and was stopped, with everything it started.
  case timedOut(command: String, seconds: Double, option: String?)

  /// The operating system's reason for a Foundation error ("No space left on device"), found
  /// in its chain of underlying errors, rather than Foundation's sentence and user info dump.
  public static func reason(_ error: Error) -> String {
    var current: Error? = error
    for _ in 0..<8 {
      guard let next = current else { break }
      if let posix = next as? POSIXError { return String(cString: strerror(posix.code.rawValue)) }
      let nsError = next as NSError
      if nsError.domain == NSPOSIXErrorDomain { return String(cString: strerror(Int32(nsError.code))) }
      current = nsError.userInfo[NSUnderlyingErrorKey] as? Error
    }
    return error.localizedDescription
  }

  public var description: String {
    switch self {
    case .cannotRead(let path, let reason): return "\(path): cannot read: \(reason)"
    case .cannotWrite(let path, let reason): return "\(path): cannot write: \(reason)"
    case .notARegularFile(let path, let kind): return "\(path): \(kind), not a regular file"
    case .programNotFound(let name):
      return "\(name): program not found on PATH (install it, or put it on PATH)"
    case .processFailed(let command, let exitCode, let logPath):
      return "\(command): exited with status \(exitCode)" + (logPath.map { " (log: \($0))" } ?? "")
    case .tooLarge(let location, let limit):
      return "\(location): more than \(limit) bytes, the most it may have; the transfer was stopped"
    case .outputTooLarge(let command, let stream, let limit):
      return "\(command): printed more than \(limit) bytes on \(stream), more than the tool reads; stopped"
    case .wroteTooMuch(let command, let directory, let written, let limit):
      return
        "\(command): wrote \(written) bytes below \(directory), more than the \(limit) it may; stopped with everything it started"
    case .timedOut(let command, let seconds, let option):
      let limit = seconds.truncatingRemainder(dividingBy: 1) == 0 ? "\(Int(seconds))s" : "\(seconds)s"
      return "\(command): still running after \(limit), stopped with everything it started"
        + (option.map { " (raise the limit with \($0))" } ?? "")
    case .locked(let path, let holder):
      // flock(2) locks die with their process, so a held lock is never stale: removing the
      // file would only let a third run start beside the holder.
      return
        "\(path): another release is running (\(holder)); wait for it to finish (the lock is freed when it exits)"
    }
  }
}
