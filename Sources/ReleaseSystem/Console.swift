import Foundation

/// Where the tool's human and machine output goes. Writes are whole lines under a lock,
/// so parallel customer jobs never interleave mid-line.
/// Every line the tool prints goes through `write(line:to:)`, which shows control and format
/// characters escaped (`TerminalText`): text from outside (S3 error messages, git's stderr, log
/// tails, store names, release.json fields) can neither move the cursor, clear the screen, set
/// the window title nor reorder what follows it. The live view's own cursor movements go
/// through `writeControl`.
public protocol OutputStreaming: AnyObject, Sendable {
  func write(line: String, to stream: OutputStream)
  /// Writes `line` as it is, escape sequences included: only for text the tool itself composed.
  func writeControl(line: String, to stream: OutputStream)
}

/// Text as it may reach a terminal: C0 controls but tab and line feed, DEL, C1 controls and
/// Unicode format characters (bidi overrides and isolates, zero-width characters, BOM) become
/// `\u{…}`.
public enum TerminalText {
  public static func escaped(_ text: String) -> String {
    guard text.unicodeScalars.contains(where: needsEscape) else { return text }
    var shown = ""
    for scalar in text.unicodeScalars {
      if needsEscape(scalar) {
        shown += "\\u{\(String(scalar.value, radix: 16, uppercase: true))}"
      } else {
        shown.unicodeScalars.append(scalar)
      }
    }
    return shown
  }

  public static func needsEscape(_ scalar: Unicode.Scalar) -> Bool {
    if scalar == "\t" || scalar == "\n" { return false }
    return scalar.value < 0x20 || (0x7F...0x9F).contains(scalar.value)
      || scalar.properties.generalCategory == .format
  }
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
    writeControl(line: TerminalText.escaped(line), to: stream)
  }

  public func writeControl(line: String, to stream: OutputStream) {
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
    writeControl(line: TerminalText.escaped(line), to: stream)
  }

  public func writeControl(line: String, to stream: OutputStream) {
    captured.withLock { $0.append((stream, line)) }
  }

  public var standardOutput: [String] { lines(of: .standardOutput) }
  public var standardError: [String] { lines(of: .standardError) }

  private func lines(of stream: OutputStream) -> [String] {
    captured.withLock { $0.filter { $0.0 == stream }.map(\.1) }
  }
}
