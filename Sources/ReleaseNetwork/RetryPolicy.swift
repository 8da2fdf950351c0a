import Foundation

/// How often and how patiently a request is repeated after a transient failure
/// (a connection error or a 5xx). 4xx answers are never repeated: the request itself is wrong.
public struct RetryPolicy: Sendable {
  /// Attempts in total, the first included; at least 1.
  public var maximumAttempts: Int
  /// Wait before the second attempt; each later wait doubles, up to `maximumDelay`.
  public var initialDelay: TimeInterval
  public var maximumDelay: TimeInterval
  /// How a wait is spent; tests inject one that records instead of sleeping.
  public var sleep: @Sendable (TimeInterval) -> Void

  public init(
    maximumAttempts: Int = 4, initialDelay: TimeInterval = 0.5, maximumDelay: TimeInterval = 8,
    sleep: @escaping @Sendable (TimeInterval) -> Void = { Thread.sleep(forTimeInterval: $0) }
  ) {
    self.maximumAttempts = max(1, maximumAttempts)
    self.initialDelay = initialDelay
    self.maximumDelay = maximumDelay
    self.sleep = sleep
  }

  /// The wait after failed attempt number `attempt` (1-based): exponential backoff.
  public func delay(afterAttempt attempt: Int) -> TimeInterval {
    min(maximumDelay, initialDelay * pow(2, Double(max(0, attempt - 1))))
  }

  /// Exactly one attempt: for probes that poll on their own.
  public static let singleAttempt = RetryPolicy(maximumAttempts: 1)
}
