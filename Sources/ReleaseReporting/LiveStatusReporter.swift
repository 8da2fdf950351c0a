import Foundation
import ReleaseSystem

/// The terminal view when stdout is a TTY (and `CI` is not set): one line per customer with
/// its current step and elapsed time, redrawn in place; failures and the summary print below.
// @unchecked: every stored `var` (rows, drawnLines, ticker) is read and written only while
// `lock` is held: `report`, `finish` and the ticker's handler each take it first, and the
// private helpers are called only from there.
package final class LiveStatusReporter: Reporter, @unchecked Sendable {
  private struct Row {
    var id: String
    var version: String
    var state: String
    var started: Double?
    var finishedSeconds: Double?
  }

  private let output: OutputStreaming
  private let clock: Clock
  private let plain: PlainReporter
  private let lock = NSLock()
  private var rows: [Row] = []
  private var drawnLines = 0
  private var ticker: DispatchSourceTimer?

  package init(output: OutputStreaming, clock: Clock) {
    self.output = output
    self.clock = clock
    self.plain = PlainReporter(output: output, clock: clock)
  }

  package func report(_ event: ReleaseEvent) {
    lock.lock()
    defer { lock.unlock() }
    switch event {
    case .plan(let customers):
      rows = customers.map {
        Row(
          id: $0.id, version: $0.version,
          state: $0.action == .build ? "waiting" : $0.action == .fail ? "failed" : "up to date")
      }
      startTicker()
      redraw()
    case .customerStarted(let id, _):
      update(id) {
        $0.state = "starting"
        $0.started = clock.monotonicSeconds()
      }
    case .customerProgress(let id, let step):
      update(id) { $0.state = step }
    case .customerFinished(let outcome):
      update(id: outcome.id, outcome: outcome)
    case .stepStarted, .stepSkipped, .info:
      break
    case .customerLogTail:
      // A failure's log tail mid-run: printed below the view, which then starts afresh under
      // it and keeps ticking for the customers still running.
      plain.report(event)
      drawnLines = 0
      redraw()
    case .summary, .failure, .diagnostics, .dryRun:
      stopTicker()
      plain.report(event)
      drawnLines = 0
    }
  }

  package func finish() {
    lock.lock()
    stopTicker()
    lock.unlock()
  }

  private func update(id: String, outcome: ReleaseEvent.CustomerOutcome) {
    update(id) {
      $0.state =
        outcome.status == .failed ? "FAILED in \(outcome.failedStep ?? "?")" : outcome.status.rawValue
      $0.finishedSeconds = outcome.seconds
    }
  }

  private func update(_ id: String, _ change: (inout Row) -> Void) {
    guard let index = rows.firstIndex(where: { $0.id == id }) else { return }
    change(&rows[index])
    redraw()
  }

  private func startTicker() {
    let timer = DispatchSource.makeTimerSource(queue: DispatchQueue.global())
    timer.schedule(deadline: .now() + 0.5, repeating: 0.5)
    timer.setEventHandler { [weak self] in
      guard let self else { return }
      self.lock.lock()
      self.redraw()
      self.lock.unlock()
    }
    timer.resume()
    ticker = timer
  }

  private func stopTicker() {
    ticker?.cancel()
    ticker = nil
  }

  /// Moves the cursor up over the previous drawing and writes every row again.
  private func redraw() {
    let now = clock.monotonicSeconds()
    let width = rows.map(\.id.count).max() ?? 0
    var text = drawnLines > 0 ? "\u{1B}[\(drawnLines)A" : ""
    for row in rows {
      let seconds = row.finishedSeconds ?? row.started.map { now - $0 }
      let elapsed = seconds.map { String(format: "%6.1fs", $0) } ?? "       "
      text +=
        "\u{1B}[2K  \(row.id.padding(toLength: width, withPad: " ", startingAt: 0))  \(row.version)  \(elapsed)  \(row.state)\n"
    }
    drawnLines = rows.count
    // The view's own cursor movements; the rows' text (ids, versions, step names) is the
    // tool's own or validated.
    output.writeControl(line: String(text.dropLast()), to: .standardOutput)
  }
}
