import Foundation
import ReleaseEvaluation
import ReleaseSystem

/// A clock whose day the test sets: rollouts record it as `since`, and an evaluation refuses
/// outcome dates after it.
package final class SettableClock: ReleaseSystem.Clock {
  private let instant: Locked<Date>

  package init(_ day: String) { instant = Locked(Self.noon(day)) }

  package func set(_ day: String) { instant.set(Self.noon(day)) }
  package func now() -> Date { instant.value }
  package func monotonicSeconds() -> Double { 0 }

  package static func noon(_ day: String) -> Date {
    let date = OutcomeDate(day)!
    let formatter = ISO8601DateFormatter()
    return formatter.date(from: "\(date)T12:00:00Z")!
  }
}
