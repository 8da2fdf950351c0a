import Foundation
import ReleaseCore
import ReleaseNetwork
import ReleaseReporting
import ReleaseSystem
import XCTest

/// A process runner that answers only the invocations a test scripted and fails the test
/// loudly on anything else (after swiftly's test doubles).
package final class ScriptedProcessRunner: ProcessRunning {
  package typealias Handler = @Sendable (ProcessInvocation) throws -> ProcessResult
  private struct Script: Sendable {
    var handlers: [(matches: @Sendable (ProcessInvocation) -> Bool, handle: Handler)] = []
    var invocations: [ProcessInvocation] = []
  }
  private let script = Locked(Script())

  package init() {}

  package var invocations: [ProcessInvocation] { script.withLock { $0.invocations } }

  package func on(_ program: String, _ firstArgument: String? = nil, handle: @escaping Handler) {
    script.withLock {
      $0.handlers.append(
        ({ $0.program == program && (firstArgument == nil || $0.arguments.first == firstArgument) }, handle))
    }
  }

  /// Answers `swift --version` as a Swift 6.3.1 toolchain does (every build run asks it).
  package func answerToolchainVersion() {
    on("swift", "--version") { _ in ProcessResult(exitCode: 0, standardOutput: "Swift version 6.3.1\n") }
  }

  package func run(_ invocation: ProcessInvocation) throws -> ProcessResult {
    let handler = script.withLock { script in
      script.invocations.append(invocation)
      return script.handlers.first { $0.matches(invocation) }
    }
    guard let handler else {
      XCTFail("unexpected process: \(invocation.commandLine)")
      throw SystemError.programNotFound(name: invocation.program)
    }
    return try handler.handle(invocation)
  }
}

/// The HTTP clients tests give the tool.
package enum TestHTTP {
  /// Real transfers (libcurl, every retry), without the waits between attempts: a test of what
  /// a failed or retried transfer leaves behind does not need them, and the policy's delays
  /// are checked on their own (`CurlHTTPClientTests`).
  package static let retryingAtOnce: HTTPClient = CurlHTTPClient(retryPolicy: RetryPolicy(sleep: { _ in }))

  /// For code that must not reach the network: fails the test on any request.
  package struct Unreachable: HTTPClient {
    package init() {}
    package func send(_ request: HTTPRequest) throws -> HTTPResponse {
      XCTFail("unexpected request: \(request.method.rawValue) \(request.url.absoluteString)")
      throw NetworkError.transferFailed(
        method: request.method.rawValue, url: request.url.absoluteString, reason: "no network in this test",
        attempts: 1)
    }
  }
}

/// A clock that only moves when told to.
package final class ManualClock: Clock {
  private let seconds = Locked<Double>(0)
  package let start = Date(timeIntervalSince1970: 1_800_000_000)

  package init() {}

  package func now() -> Date { start.addingTimeInterval(monotonicSeconds()) }
  package func monotonicSeconds() -> Double { seconds.value }
  package func advance(_ by: Double) { seconds.withLock { $0 += by } }
}

/// A reporter that records events.
package final class RecordingReporter: Reporter {
  private let recorded = Locked<[ReleaseEvent]>([])

  package init() {}
  package var events: [ReleaseEvent] { recorded.value }
  package func report(_ event: ReleaseEvent) { recorded.withLock { $0.append(event) } }
}

/// A temporary directory removed when the value goes away.
package final class TemporaryDirectory {
  package let url: URL
  package init() throws {
    url = FileManager.default.temporaryDirectory.appendingPathComponent(
      "release-kit-tests-\(UUID().uuidString)")
    try FileManager.default.createDirectory(at: url, withIntermediateDirectories: true)
  }
  deinit { try? FileManager.default.removeItem(at: url) }
}

package enum RepositoryRoot {
  /// The checkout holding this test file (Tests/ReleaseTestSupport/Fakes.swift).
  package static let url = URL(fileURLWithPath: #filePath).deletingLastPathComponent()
    .deletingLastPathComponent()
    .deletingLastPathComponent()
}
