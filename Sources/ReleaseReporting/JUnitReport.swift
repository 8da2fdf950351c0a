import Foundation
import ReleaseSystem

/// `dist/report.xml`: JUnit XML with one test case per customer, so CI systems show a run
/// natively. A failed customer is a `<failure>` with its step, reason and log tail; an
/// up-to-date one is a passing case marked as skipped work in its system-out.
enum JUnitReport {
  static func xml(_ outcomes: [ReleaseEvent.CustomerOutcome], logTails: [String: [String]], seconds: Double)
    -> String
  {
    let failures = outcomes.filter { $0.status == .failed }.count
    let cancelled = outcomes.filter { $0.status == .cancelled }.count
    var lines = [
      #"<?xml version="1.0" encoding="UTF-8"?>"#,
      #"<testsuites name="release" tests="\#(outcomes.count)" failures="\#(failures)" time="\#(format(seconds))">"#,
      #"  <testsuite name="customers" tests="\#(outcomes.count)" failures="\#(failures)" skipped="\#(cancelled)" time="\#(format(seconds))">"#,
    ]
    for outcome in outcomes { lines += testcase(outcome, logTail: logTails[outcome.id] ?? []) }
    lines.append("  </testsuite>")
    lines.append("</testsuites>")
    return lines.joined(separator: "\n") + "\n"
  }

  /// One customer's `<testcase>`: its properties, then what its status says.
  private static func testcase(_ outcome: ReleaseEvent.CustomerOutcome, logTail: [String]) -> [String] {
    let name = XMLText.escaped("\(outcome.id) \(outcome.version)")
    var lines = [
      #"    <testcase classname="release.customers" name="\#(name)" time="\#(format(outcome.seconds))">"#
    ]
    var properties = [("status", outcome.status.rawValue)]
    if let tests = outcome.testCount { properties.append(("swift_test_count", String(tests))) }
    if let method = outcome.testedBy { properties.append(("tested_by", method.description)) }
    if let artifact = outcome.artifact { properties.append(("artifact", artifact)) }
    if let sha256 = outcome.sha256 { properties.append(("sha256", sha256)) }
    if let shipped = outcome.shipped { properties.append(("shipped", String(shipped))) }
    lines.append("      <properties>")
    for (key, value) in properties {
      lines.append(#"        <property name="\#(key)" value="\#(XMLText.escaped(value))"/>"#)
    }
    lines.append("      </properties>")
    lines += statusLines(outcome, logTail: logTail)
    lines.append("    </testcase>")
    return lines
  }

  /// A failure with the log's tail, a skip, or what ran.
  private static func statusLines(_ outcome: ReleaseEvent.CustomerOutcome, logTail: [String]) -> [String] {
    switch outcome.status {
    case .failed:
      let message = XMLText.escaped("\(outcome.failedStep ?? "?"): \(outcome.reason ?? "")")
      let tail = XMLText.escaped(logTail.joined(separator: "\n"))
      return [
        #"      <failure message="\#(message)" type="\#(XMLText.escaped(outcome.failedStep ?? "failure"))">\#(tail)</failure>"#
      ]
    case .cancelled:
      return [#"      <skipped message="not started: --fail-fast stopped the run"/>"#]
    case .upToDate:
      return ["      <system-out>up to date: dist/ holds a verified build of the same inputs</system-out>"]
    default:
      guard let tests = outcome.testCount else { return [] }
      switch outcome.testedBy ?? .swiftTest {
      case .swiftTest: return ["      <system-out>swift test ran \(tests) tests</system-out>"]
      case .testBinary(let key):
        return [
          "      <system-out>\(tests) tests: those of the customer's data run on the test binary of compile key \(key), the others once for the key</system-out>"
        ]
      }
    }
  }

  private static func format(_ seconds: Double) -> String { String(format: "%.3f", seconds) }
}

/// Collects the summary and log tails, and writes `dist/report.xml` (atomically) at the end.
package final class JUnitReporter: Reporter {
  private struct Collected: Sendable {
    var logTails: [String: [String]] = [:]
    var summary: (outcomes: [ReleaseEvent.CustomerOutcome], seconds: Double)?
  }
  private let destination: URL
  private let collected = Locked(Collected())

  package init(destination: URL) { self.destination = destination }

  package func report(_ event: ReleaseEvent) {
    collected.withLock { collected in
      switch event {
      case .customerLogTail(let id, let lines): collected.logTails[id] = lines
      case .summary(let outcomes, let seconds): collected.summary = (outcomes, seconds)
      default: break
      }
    }
  }

  package func finish() {
    let collected = collected.value
    guard let (outcomes, seconds) = collected.summary, !outcomes.isEmpty else { return }
    try? AtomicFile.write(
      JUnitReport.xml(outcomes, logTails: collected.logTails, seconds: seconds), to: destination)
  }
}
