import Foundation
import ReleaseSystem

/// Timestamped lines, one event each: for logs, CI and pipes.
package final class PlainReporter: Reporter {
  private let output: OutputStreaming
  private let clock: Clock

  package init(output: OutputStreaming, clock: Clock) {
    self.output = output
    self.clock = clock
  }

  private func line(_ text: String, _ stream: ReleaseSystem.OutputStream = .standardOutput) {
    output.write(line: "[\(Self.timeOfDay(clock.now()))] \(text)", to: stream)
  }

  /// `HH:mm:ss` in UTC: computed, not formatted, since a DateFormatter is not safe to share
  /// between the threads that report.
  static func timeOfDay(_ date: Date) -> String {
    let seconds = Int(date.timeIntervalSince1970.rounded(.down))
    let ofDay = ((seconds % 86_400) + 86_400) % 86_400
    return String(format: "%02d:%02d:%02d", ofDay / 3600, ofDay / 60 % 60, ofDay % 60)
  }

  package func report(_ event: ReleaseEvent) {
    switch event {
    case .diagnostics(let diagnostics):
      diagnostics.forEach { output.write(line: "error: \($0)", to: .standardError) }
    case .plan(let customers):
      for customer in customers {
        line("plan \(customer.id) \(customer.version): \(customer.action) (\(customer.reason))")
      }
    case .stepStarted, .customerProgress:
      break
    case .stepSkipped(let step, let reason):
      line("skip \(step): \(reason)")
    case .dryRun(let step, let lines):
      line("dry run: \(step) not run")
      lines.forEach { line("  \($0)") }
    case .customerStarted(let id, let version):
      line("start \(id) \(version)")
    case .customerFinished(let outcome):
      let seconds = String(format: "%.1fs", outcome.seconds)
      if outcome.status == .failed {
        line(
          "FAIL \(outcome.id) \(outcome.version) in \(outcome.failedStep ?? "?") after \(seconds): \(outcome.reason ?? "")",
          .standardError)
        if let log = outcome.logFile { line("  log: \(log)", .standardError) }
      } else {
        let tested = outcome.testedBy.map { " (tested by \($0))" } ?? ""
        line(
          "done \(outcome.id) \(outcome.version) \(outcome.status) in \(seconds) -> \(outcome.artifact ?? "-")\(tested)"
        )
      }
    case .customerLogTail(let id, let lines):
      lines.forEach { output.write(line: "  \(id) | \($0)", to: .standardError) }
    case .info(let text):
      line(text)
    case .summary(let outcomes, let seconds):
      for row in SummaryTable.rows(outcomes) { output.write(line: row, to: .standardOutput) }
      if let shipping = SummaryTable.shipping(outcomes) { line(shipping) }
      line(String(format: "finished in %.1fs", seconds))
    case .failure(let lines):
      output.write(lines: ["error: \(lines.first ?? "")"] + lines.dropFirst(), to: .standardError)
    }
  }
}

extension SummaryTable {
  /// `shipped 5 of 6: acme, …; not shipped: cobalt (failed in build and test)`, when some
  /// customers shipped and others did not; nil otherwise (the table says it all).
  static func shipping(_ outcomes: [ReleaseEvent.CustomerOutcome]) -> String? {
    let shipped = outcomes.filter { $0.shipped == true }
    let held = outcomes.filter { $0.shipped == false }
    guard !shipped.isEmpty, !held.isEmpty else { return nil }
    let why = held.map { outcome -> String in
      let reason =
        outcome.status == .failed ? "failed in \(outcome.failedStep ?? "?")" : outcome.status.rawValue
      return "\(outcome.id) (\(reason))"
    }
    return
      "shipped \(shipped.count) of \(outcomes.count): \(shipped.map(\.id).joined(separator: ", ")); not shipped: "
      + why.joined(separator: ", ")
  }
}

/// The end-of-run table: customer, version, status, time, artifact.
enum SummaryTable {
  static func rows(_ outcomes: [ReleaseEvent.CustomerOutcome]) -> [String] {
    guard !outcomes.isEmpty else { return [] }
    let header = ["CUSTOMER", "VERSION", "STATUS", "TIME", "ARTIFACT"]
    let body = outcomes.map {
      [$0.id, $0.version, $0.status.rawValue, String(format: "%.1fs", $0.seconds), $0.artifact ?? "-"]
    }
    let widths = (0..<header.count).map { column in
      ([header] + body).map { $0[column].count }.max() ?? 0
    }
    return ([header] + body).map { cells in
      zip(cells, widths).map { $0.padding(toLength: $1, withPad: " ", startingAt: 0) }.joined(separator: "  ")
        .trimmingCharacters(in: .whitespaces)
    }
  }
}

/// Only the errors, as plain lines on stderr (beside `--json` events on stdout).
package final class ErrorLinesReporter: Reporter {
  private let output: OutputStreaming
  package init(output: OutputStreaming) { self.output = output }

  package func report(_ event: ReleaseEvent) {
    switch event {
    case .diagnostics(let diagnostics):
      diagnostics.forEach { output.write(line: "error: \($0)", to: .standardError) }
    case .failure(let lines):
      output.write(lines: ["error: \(lines.first ?? "")"] + lines.dropFirst(), to: .standardError)
    default:
      break
    }
  }
}
