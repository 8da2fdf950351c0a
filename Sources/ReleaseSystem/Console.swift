import Foundation

/// Where the tool's human and machine output goes. Writes are whole lines under a lock,
/// so parallel customer jobs never interleave mid-line.
public protocol OutputStreaming: AnyObject, Sendable {
  func write(line: String, to stream: OutputStream)
}

public enum OutputStream: Sendable { case standardOutput, standardError }

public final class StandardOutput: OutputStreaming {
  /// Held while a line is written, so lines from parallel jobs never interleave.
  private let writing = Locked(())
  public init() {}

  public func write(line: String, to stream: OutputStream) {
    writing.withLock { _ in
      let handle = stream == .standardOutput ? FileHandle.standardOutput : FileHandle.standardError
      handle.write(Data((line + "\n").utf8))
    }
  }

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
