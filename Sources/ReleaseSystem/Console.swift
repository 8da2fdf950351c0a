import Foundation

/// Where the tool's human and machine output goes. Writes are whole lines under a lock,
/// so parallel customer jobs never interleave mid-line.
public protocol OutputStreaming: AnyObject, Sendable {
  func write(line: String, to stream: OutputStream)
}

public enum OutputStream: Sendable { case standardOutput, standardError }

public final class StandardOutput: OutputStreaming {
  /// Held while a line is written, so lines from parallel jobs never interleave; true once the
  /// reader of standard output went away.
  private let writing = Locked(false)
  public init() {}

  /// With SIGPIPE ignored (`Interrupts.install`), a write to a pipe nobody reads fails with
  /// EPIPE instead of ending the process: from then on standard output is dropped, the run
  /// goes on (it may be half-way through publishing), and `readerWentAway` says so.
  public func write(line: String, to stream: OutputStream) {
    writing.withLock { readerGone in
      if stream == .standardOutput && readerGone { return }
      let descriptor = stream == .standardOutput ? STDOUT_FILENO : STDERR_FILENO
      let bytes = Array((line + "\n").utf8)
      var written = 0
      while written < bytes.count {
        let count = bytes[written...].withUnsafeBytes {
          Foundation.write(descriptor, $0.baseAddress, $0.count)
        }
        if count > 0 {
          written += count
        } else if count < 0 && errno == EINTR {
          continue
        } else {
          if stream == .standardOutput { readerGone = true }
          return
        }
      }
    }
  }

  /// Whether standard output's reader went away during the run (`release … | head -1`).
  public var readerWentAway: Bool { writing.value }

  /// Whether standard output is a terminal (enables the live status view).
  public var isTerminal: Bool { isatty(STDOUT_FILENO) == 1 }
}

/// Captures output in memory; for tests.
public final class CapturedOutput: OutputStreaming {
  private let captured = Locked<[(OutputStream, String)]>([])
  public init() {}

  public func write(line: String, to stream: OutputStream) {
    captured.withLock { $0.append((stream, line)) }
  }

  public var standardOutput: [String] { lines(of: .standardOutput) }
  public var standardError: [String] { lines(of: .standardError) }

  private func lines(of stream: OutputStream) -> [String] {
    captured.withLock { $0.filter { $0.0 == stream }.map(\.1) }
  }
}
