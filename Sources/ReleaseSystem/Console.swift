import Foundation

/// Where the tool's human and machine output goes. Writes are whole lines under a lock,
/// so parallel customer jobs never interleave mid-line.
public protocol OutputStreaming: AnyObject, Sendable {
  func write(line: String, to stream: OutputStream)
}

public enum OutputStream: Sendable { case standardOutput, standardError }

public final class StandardOutput: OutputStreaming, @unchecked Sendable {
  private let lock = NSLock()
  public init() {}

  public func write(line: String, to stream: OutputStream) {
    lock.lock()
    defer { lock.unlock() }
    let handle = stream == .standardOutput ? FileHandle.standardOutput : FileHandle.standardError
    handle.write(Data((line + "\n").utf8))
  }

  /// Whether standard output is a terminal (enables the live status view).
  public var isTerminal: Bool { isatty(STDOUT_FILENO) == 1 }
}

/// Captures output in memory; for tests.
public final class CapturedOutput: OutputStreaming, @unchecked Sendable {
  private let lock = NSLock()
  private var captured: [(OutputStream, String)] = []
  public init() {}

  public func write(line: String, to stream: OutputStream) {
    lock.lock()
    captured.append((stream, line))
    lock.unlock()
  }

  public var standardOutput: [String] { lines(of: .standardOutput) }
  public var standardError: [String] { lines(of: .standardError) }

  private func lines(of stream: OutputStream) -> [String] {
    lock.lock()
    defer { lock.unlock() }
    return captured.filter { $0.0 == stream }.map(\.1)
  }
}
