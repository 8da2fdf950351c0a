import Foundation

/// A value shared between threads, reachable only through `withLock`: the one place the tool
/// keeps mutable state that parallel customer jobs, reporters and child-process readers touch.
/// (`Synchronization.Mutex` needs macOS 15; the tool supports macOS 13.)
public final class Locked<Value: Sendable>: @unchecked Sendable {
  // @unchecked: `storage` is read and written only inside `withLock`, under `lock`, so no two
  // threads ever touch it at once. `Value` and what `withLock` returns are Sendable, so nothing
  // that leaves the lock can be shared mutable state.
  private let lock = NSLock()
  private var storage: Value

  public init(_ value: Value) { storage = value }

  /// Runs `body` with exclusive access to the value.
  public func withLock<Result: Sendable>(_ body: (inout Value) throws -> Result) rethrows -> Result {
    lock.lock()
    defer { lock.unlock() }
    return try body(&storage)
  }
}

extension Locked {
  /// A copy of the value.
  public var value: Value {
    get { withLock { $0 } }
  }

  public func set(_ newValue: Value) { withLock { $0 = newValue } }
}
