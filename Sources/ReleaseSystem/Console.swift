import Foundation

/// Where the tool's human and machine output goes. Writes are whole lines under a lock,
/// so parallel customer jobs never interleave mid-line.
/// Every line the tool prints goes through `write(line:to:)`, which shows control and format
/// characters escaped (`TerminalText`): text from outside (S3 error messages, git's stderr, log
/// tails, store names, release.json fields) can neither move the cursor, clear the screen, set
/// the window title nor reorder what follows it — nor, with its line breaks escaped too, start
/// a line of its own that a CI runner reads as a command. Text of several lines is written one
/// line at a time (`write(lines:)`). The live view's own cursor movements go through
/// `writeControl`, GitHub workflow commands the tool composed through `writeWorkflowCommand`.
public protocol OutputStreaming: AnyObject, Sendable {
  func write(line: String, to stream: OutputStream)
  /// Writes `line` as it is, escape sequences included: only for text the tool itself composed.
  func writeControl(line: String, to stream: OutputStream)
  /// A workflow command the tool composed (`::error …`, `::group::`, a fence), escaped like any
  /// line but exempt from the neutralising of `::` that guards every other line.
  func writeWorkflowCommand(line: String, to stream: OutputStream)
}

extension OutputStreaming {
  /// Several lines, each escaped on its own.
  public func write(lines: [String], to stream: OutputStream) {
    for line in lines { write(line: line, to: stream) }
  }

  /// Text of several lines the tool composed (help, a diff): one line per line of it, without
  /// the empty line a final line break would make.
  public func write(linesOf text: String, to stream: OutputStream) {
    var lines = text.split(separator: "\n", omittingEmptySubsequences: false).map(String.init)
    if lines.count > 1 && lines.last == "" { lines.removeLast() }
    write(lines: lines, to: stream)
  }
}

/// Text as it may reach a terminal: C0 controls but tab, DEL, C1 controls and Unicode format
/// characters (bidi overrides and isolates, zero-width characters, BOM) become `\u{…}`. Line
/// feed and carriage return are controls too: one printed line is one line wherever it goes.
public enum TerminalText {
  /// A line as printed: escaped, and when a GitHub Actions runner reads the output, with a
  /// leading `::` (after white space, which the runner trims) shown as `\u{3A}:`, so no text
  /// the tool did not compose as a command can run as one, fenced or not.
  public static func printed(_ line: String, workflowCommands: Bool) -> String {
    let shown = escaped(line)
    guard workflowCommands else { return shown }
    let body = shown.drop { $0 == " " || $0 == "\t" }
    guard body.hasPrefix("::") else { return shown }
    return shown[..<body.startIndex] + "\\u{3A}" + body.dropFirst()
  }

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
    if scalar == "\t" { return false }
    return scalar.value < 0x20 || (0x7F...0x9F).contains(scalar.value)
      || scalar.properties.generalCategory == .format
  }
}

public enum OutputStream: Sendable { case standardOutput, standardError }

public final class StandardOutput: OutputStreaming {
  /// Held while a line is written, so lines from parallel jobs never interleave; true once the
  /// reader of standard output went away.
  private let writing = Locked(false)
  /// Whether a GitHub Actions runner reads this output (`GITHUB_ACTIONS=true`).
  private let workflowCommands: Bool
  public init(workflowCommands: Bool = false) { self.workflowCommands = workflowCommands }

  /// With SIGPIPE ignored (`Interrupts.install`), a write to a pipe nobody reads fails with
  /// EPIPE instead of ending the process: from then on standard output is dropped, the run
  /// goes on (it may be half-way through publishing), and `readerWentAway` says so.
  public func write(line: String, to stream: OutputStream) {
    writeControl(line: TerminalText.printed(line, workflowCommands: workflowCommands), to: stream)
  }

  public func writeWorkflowCommand(line: String, to stream: OutputStream) {
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
  private let workflowCommands: Bool
  public init(workflowCommands: Bool = false) { self.workflowCommands = workflowCommands }

  public func write(line: String, to stream: OutputStream) {
    writeControl(line: TerminalText.printed(line, workflowCommands: workflowCommands), to: stream)
  }

  public func writeWorkflowCommand(line: String, to stream: OutputStream) {
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
