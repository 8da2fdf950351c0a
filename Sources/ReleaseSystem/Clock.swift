import Foundation

/// Time, injected so tests control it and durations are measured on a monotonic clock.
public protocol Clock: Sendable {
  /// Wall-clock time, used only for human-facing dates (CHANGELOG, log timestamps).
  func now() -> Date
  /// Monotonic seconds since an arbitrary origin, for durations.
  func monotonicSeconds() -> Double
}

public struct SystemClock: Clock {
  public init() {}
  public func now() -> Date { Date() }
  public func monotonicSeconds() -> Double { ProcessInfo.processInfo.systemUptime }
}
