import Foundation
import ReleaseGeneration
import ReleaseSystem

/// Extra output when running under GitHub Actions (`GITHUB_ACTIONS=true`): manifest errors
/// as `::error file=…,line=…::` annotations, each customer's build log in a collapsible
/// `::group::`, and a Markdown summary table appended to `$GITHUB_STEP_SUMMARY`.
package final class GitHubActionsReporter: Reporter {
  private let output: OutputStreaming
  private let stepSummary: URL?
  /// The run's outcomes, once the summary arrives.
  private let summary = Locked<[ReleaseEvent.CustomerOutcome]?>(nil)
  /// Held while one customer's log group is written, so parallel customers' logs never mix.
  private let writingGroup = Locked(())
  private let root: URL
  /// Where workflow commands go: stdout, or stderr when stdout carries `--json` events (the
  /// runner reads commands from both).
  private let stream: ReleaseSystem.OutputStream

  package init(
    output: OutputStreaming, stepSummary: URL?, root: URL,
    stream: ReleaseSystem.OutputStream = .standardOutput
  ) {
    self.output = output
    self.stepSummary = stepSummary
    self.root = root
    self.stream = stream
  }

  package func report(_ event: ReleaseEvent) {
    switch event {
    case .diagnostics(let diagnostics):
      for diagnostic in diagnostics {
        var properties = "file=\(Self.escapeProperty(diagnostic.file))"
        if let line = diagnostic.line { properties += ",line=\(line)" }
        output.writeWorkflowCommand(
          line: "::error \(properties)::\(Self.escapeData(diagnostic.description))", to: stream)
      }
    case .customerFinished(let outcome):
      writingGroup.withLock { _ in writeGroup(outcome) }
    case .summary(let outcomes, _):
      summary.set(outcomes)
    default:
      break
    }
  }

  private func writeGroup(_ outcome: ReleaseEvent.CustomerOutcome) {
    if outcome.status == .failed {
      let message =
        "\(outcome.id) \(outcome.version) failed in \(outcome.failedStep ?? "?"): \(outcome.reason ?? "")"
      output.writeWorkflowCommand(
        line: "::error title=\(Self.escapeProperty("release \(outcome.id)"))::\(Self.escapeData(message))",
        to: stream)
    }
    guard let log = outcome.logFile else { return }
    let logURL = log.hasPrefix("/") ? URL(fileURLWithPath: log) : root.appendingPathComponent(log)
    guard let text = try? String(contentsOf: logURL, encoding: .utf8) else { return }
    output.writeWorkflowCommand(
      line: "::group::\(Self.escapeData("\(outcome.id) \(outcome.version) build log (\(outcome.status))"))",
      to: stream)
    Self.writeFenced(
      text.split(separator: "\n", omittingEmptySubsequences: false).map(String.init), output: output,
      stream: stream)
    output.writeWorkflowCommand(line: "::endgroup::", to: stream)
  }

  /// Writes lines from outside (a build log, a log tail) where the runner runs no command in
  /// them. The runner reads commands anywhere in a line after leading white space, and splits
  /// lines on a bare CR: a log must not be able to run one. Between `::stop-commands::<token>`
  /// and `::<token>::` it runs none; the token is fresh, unguessable and not in the lines.
  package static func writeFenced(
    _ lines: [String], output: OutputStreaming, stream: ReleaseSystem.OutputStream
  ) {
    var token = fenceToken()
    while lines.contains(where: { $0.contains(token) }) { token = fenceToken() }
    output.writeWorkflowCommand(line: "::stop-commands::\(token)", to: stream)
    output.write(lines: lines, to: stream)
    output.writeWorkflowCommand(line: "::\(token)::", to: stream)
  }

  package func finish() {
    guard let stepSummary, let outcomes = summary.value else { return }
    Self.appendStepSummary(Self.markdown(outcomes), to: stepSummary)
  }

  /// Appends `markdown` to the step summary file: appending is the documented contract of
  /// $GITHUB_STEP_SUMMARY (other steps write to it). `release ota evaluate` writes its table
  /// through here too.
  package static func appendStepSummary(_ markdown: String, to stepSummary: URL) {
    if let handle = try? FileHandle(forWritingTo: stepSummary) {
      handle.seekToEndOfFile()
      handle.write(Data(markdown.utf8))
      try? handle.close()
    } else {
      _ = FileManager.default.createFile(atPath: stepSummary.path, contents: Data(markdown.utf8))
    }
  }

  static func markdown(_ outcomes: [ReleaseEvent.CustomerOutcome]) -> String {
    var lines = [
      "### release", "", "| Customer | Version | Status | Shipped | Tested by | Time | Artifact |",
      "| --- | --- | --- | --- | --- | --- | --- |",
    ]
    for outcome in outcomes {
      let status =
        outcome.status == .failed
        ? "❌ failed (\(outcome.failedStep ?? "?")): \(outcome.reason?.prefix(120) ?? "")"
        : outcome.status.rawValue
      let cells = [
        outcome.id, outcome.version, status, outcome.shipped.map { $0 ? "yes" : "no" } ?? "-",
        outcome.testedBy?.description ?? "-", String(format: "%.1fs", outcome.seconds),
        outcome.artifact ?? "-",
      ].map { MarkdownText.escaping($0).markdown }
      lines.append("| " + cells.joined(separator: " | ") + " |")
    }
    return lines.joined(separator: "\n") + "\n\n"
  }

  /// 32 random hex digits.
  static func fenceToken() -> String {
    var generator = SystemRandomNumberGenerator()
    return (0..<16).map { _ in String(format: "%02x", UInt8.random(in: 0...255, using: &generator)) }.joined()
  }

  /// Workflow-command escaping (as in @actions/core): data escapes %, CR, LF; properties
  /// also `:` and `,`.
  static func escapeData(_ text: String) -> String {
    text.replacingOccurrences(of: "%", with: "%25").replacingOccurrences(of: "\r", with: "%0D")
      .replacingOccurrences(of: "\n", with: "%0A")
  }

  static func escapeProperty(_ text: String) -> String {
    escapeData(text).replacingOccurrences(of: ":", with: "%3A").replacingOccurrences(of: ",", with: "%2C")
  }
}
