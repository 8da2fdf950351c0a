import Foundation
import ReleaseSystem

/// `--json`: one JSON object per line on stdout, for other tools. Every object has `event`
/// and `time` (ISO 8601, UTC); fields are stable and documented in the README.
package final class JSONReporter: Reporter {
  private let output: OutputStreaming
  private let clock: Clock

  package init(output: OutputStreaming, clock: Clock) {
    self.output = output
    self.clock = clock
  }

  package func report(_ event: ReleaseEvent) {
    guard var object = Self.object(for: event) else { return }
    object["time"] = clock.now().ISO8601Format()
    guard let data = try? JSONSerialization.data(withJSONObject: object, options: [.sortedKeys]) else {
      return
    }
    output.write(
      line: Self.escapingFormatCharacters(String(decoding: data, as: UTF8.self)), to: .standardOutput)
  }

  /// JSON's own `\uXXXX` for the characters the output stream would otherwise show as
  /// `\u{…}` (inside a JSON string that would not be JSON): format characters and DEL/C1,
  /// which JSONSerialization leaves as they are. The line stays valid JSON with the same value.
  static func escapingFormatCharacters(_ json: String) -> String {
    guard json.unicodeScalars.contains(where: TerminalText.needsEscape) else { return json }
    var escaped = ""
    for scalar in json.unicodeScalars {
      if TerminalText.needsEscape(scalar) {
        // Beyond the BMP (tag characters), JSON escapes the UTF-16 surrogate pair.
        for unit in String(scalar).utf16 { escaped += String(format: "\\u%04X", unit) }
      } else {
        escaped.unicodeScalars.append(scalar)
      }
    }
    return escaped
  }

  static func object(for event: ReleaseEvent) -> [String: Any]? {
    switch event {
    case .diagnostics(let diagnostics):
      return [
        "event": "invalid_input",
        "errors": diagnostics.map { diagnostic -> [String: Any] in
          var entry: [String: Any] = [
            "file": diagnostic.file, "path": diagnostic.path, "message": diagnostic.message,
            "text": diagnostic.description,
          ]
          if let line = diagnostic.line { entry["line"] = line }
          return entry
        },
      ]
    case .plan(let customers):
      return [
        "event": "plan",
        "customers": customers.map {
          ["id": $0.id, "version": $0.version, "action": $0.action.rawValue, "reason": $0.reason]
        },
      ]
    case .stepStarted(let step): return ["event": "step_started", "step": step]
    case .stepSkipped(let step, let reason): return ["event": "step_skipped", "step": step, "reason": reason]
    case .dryRun(let step, let lines): return ["event": "dry_run", "step": step, "actions": lines]
    case .customerStarted(let id, let version):
      return ["event": "customer_started", "id": id, "version": version]
    case .customerProgress(let id, let step): return ["event": "customer_step", "id": id, "step": step]
    case .customerFinished(let outcome):
      let name: String
      switch outcome.status {
      case .failed: name = "customer_failed"
      case .upToDate: name = "customer_skipped"
      case .cancelled: name = "customer_cancelled"
      case .pending, .built: name = "customer_finished"
      }
      return ["event": name].merging(outcomeObject(outcome)) { a, _ in a }
    case .customerLogTail(let id, let lines): return ["event": "customer_log_tail", "id": id, "lines": lines]
    case .info(let text): return ["event": "info", "message": text]
    case .summary(let outcomes, let seconds):
      return [
        "event": "summary", "seconds": rounded(seconds),
        "built": outcomes.filter { $0.status == .built }.count,
        "up_to_date": outcomes.filter { $0.status == .upToDate }.count,
        "failed": outcomes.filter { $0.status == .failed || $0.status == .cancelled }.count,
        "customers": outcomes.map(outcomeObject),
      ]
    case .failure(let lines): return ["event": "error", "message": lines.joined(separator: "\n")]
    }
  }

  private static func outcomeObject(_ outcome: ReleaseEvent.CustomerOutcome) -> [String: Any] {
    var object: [String: Any] = [
      "id": outcome.id, "version": outcome.version, "status": outcome.status.rawValue,
      "seconds": rounded(outcome.seconds),
    ]
    object["artifact"] = outcome.artifact
    object["sha256"] = outcome.sha256
    object["tests"] = outcome.testCount
    object["tested_by"] = outcome.testedBy?.description
    object["failed_step"] = outcome.failedStep
    object["reason"] = outcome.reason
    object["log"] = outcome.logFile
    object["shipped"] = outcome.shipped
    return object
  }

  private static func rounded(_ seconds: Double) -> Double { (seconds * 1000).rounded() / 1000 }
}
