import Foundation
import ReleaseSystem
import XCTest

@testable import ReleaseKit

/// A process runner that answers only the invocations a test scripted and fails the test
/// loudly on anything else (after swiftly's test doubles).
final class ScriptedProcessRunner: ProcessRunning, @unchecked Sendable {
  typealias Handler = (ProcessInvocation) throws -> ProcessResult
  private let lock = NSLock()
  private var handlers: [(matches: (ProcessInvocation) -> Bool, handle: Handler)] = []
  private(set) var invocations: [ProcessInvocation] = []

  func on(_ program: String, _ firstArgument: String? = nil, handle: @escaping Handler) {
    handlers.append(
      ({ $0.program == program && (firstArgument == nil || $0.arguments.first == firstArgument) }, handle))
  }

  func run(_ invocation: ProcessInvocation) throws -> ProcessResult {
    lock.lock()
    invocations.append(invocation)
    let handler = handlers.first { $0.matches(invocation) }
    lock.unlock()
    guard let handler else {
      XCTFail("unexpected process: \(invocation.commandLine)")
      throw SystemError.programNotFound(name: invocation.program)
    }
    return try handler.handle(invocation)
  }
}

/// A clock that only moves when told to.
final class ManualClock: Clock, @unchecked Sendable {
  private let lock = NSLock()
  private var seconds: Double = 0
  let start = Date(timeIntervalSince1970: 1_800_000_000)

  func now() -> Date { start.addingTimeInterval(monotonicSeconds()) }
  func monotonicSeconds() -> Double {
    lock.lock()
    defer { lock.unlock() }
    return seconds
  }
  func advance(_ by: Double) {
    lock.lock()
    seconds += by
    lock.unlock()
  }
}

/// A reporter that records events.
final class RecordingReporter: Reporter, @unchecked Sendable {
  private let lock = NSLock()
  private(set) var events: [ReleaseEvent] = []
  func report(_ event: ReleaseEvent) {
    lock.lock()
    events.append(event)
    lock.unlock()
  }
}

/// A temporary directory removed when the value goes away.
final class TemporaryDirectory {
  let url: URL
  init() throws {
    url = FileManager.default.temporaryDirectory.appendingPathComponent(
      "release-kit-tests-\(UUID().uuidString)")
    try FileManager.default.createDirectory(at: url, withIntermediateDirectories: true)
  }
  deinit { try? FileManager.default.removeItem(at: url) }
}

enum RepositoryRoot {
  /// The checkout holding this test file (Tests/ReleaseKitTests/Support/Fakes.swift).
  static let url = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
    .deletingLastPathComponent().deletingLastPathComponent()
}
