import Foundation
import ReleaseCore
import ReleasePipeline
import ReleaseReporting
import ReleaseSettings
import ReleaseSigning
import ReleaseSystem
import XCTest

/// `release ota publish` without its command line, for the tests of its steps: the settings
/// from the settings phase (`SettingsResolution.otaPublish`), then the command's own chain
/// (`OTAPublishRun.pipeline`): the inputs loaded and their models aligned, the over-the-air
/// plan checked, then published. A run ends with what the command line would
/// report: a `ReleaseError` (exit 2 for bad input, 1 for a step that failed), every event
/// before it recorded.
package struct OTAPublishSteps {
  /// The project checkout relative paths are resolved against.
  package let root: URL
  /// The process environment the command line would pass on: only what a test gives, so the
  /// environment the tests run in (a RELEASE_SIGNING_KEY of its own) never leaks in.
  package let environment: [String: String]

  package init(in root: URL, environment: [String: String] = [:]) {
    self.root = root
    self.environment = environment
  }

  /// With `key`'s private half in RELEASE_SIGNING_KEY, as CI hands over the key to sign with.
  package init(in root: URL, signingWith key: SigningKey) {
    self.init(in: root, environment: ["RELEASE_SIGNING_KEY": key.pemEncoded])
  }

  /// What the steps may touch: no process may start and no transfer may go out (the
  /// destinations of these tests are directories); the real clock, since a manifest's expiry is
  /// checked against the time of day.
  package var services: Services {
    Services(
      processRunner: ScriptedProcessRunner(), clock: SystemClock(), root: root, environment: environment,
      output: CapturedOutput(), http: TestHTTP.Unreachable())
  }

  /// Resolves `given` as the command line's settings phase does, then runs the steps.
  package func run(_ given: CommandLineSettings, reporter: RecordingReporter = RecordingReporter()) throws {
    let services = services
    let settings = try SettingsResolution(given, services: services).otaPublish()
    try OTAPublishRun.pipeline(
      Pipeline(ReleaseContext(services: services, settings: settings, reporter: reporter)))
  }

  /// Runs them, expecting them to succeed; what they reported.
  @discardableResult
  package func publish(_ given: CommandLineSettings, file: StaticString = #filePath, line: UInt = #line)
    -> RecordingReporter
  {
    let reporter = RecordingReporter()
    XCTAssertNoThrow(try run(given, reporter: reporter), file: file, line: line)
    return reporter
  }

  /// Runs them, expecting them to fail; the error they end with (nil, and the test failed, when
  /// there is none or it is not a `ReleaseError`).
  package func failure(
    _ given: CommandLineSettings, reporter: RecordingReporter = RecordingReporter(),
    file: StaticString = #filePath, line: UInt = #line
  ) -> ReleaseError? {
    releaseError(file: file, line: line) { try run(given, reporter: reporter) }
  }
}

extension CommandLineSettings {
  /// `--publish <destination>` and nothing else given.
  package init(publish destination: String) {
    self.init()
    publish = [destination]
  }
}

/// The `ReleaseError` `body` ends with, the error the command line maps to its exit code and
/// prints; nil, and the test failed, when `body` ends without one or with another error.
package func releaseError(
  file: StaticString = #filePath, line: UInt = #line, _ body: () throws -> Void
) -> ReleaseError? {
  do {
    try body()
  } catch let error as ReleaseError {
    return error
  } catch {
    XCTFail("expected a ReleaseError, got \(error)", file: file, line: line)
    return nil
  }
  XCTFail("expected a ReleaseError, got none", file: file, line: line)
  return nil
}

extension Workspace {
  /// The lines of the refusal `body` ends with: bad input (exit 2) with nothing in the
  /// workspace written. Nil, and the test failed, when it ends without one.
  package func refusal(file: StaticString = #filePath, line: UInt = #line, _ body: () throws -> Void)
    -> [String]?
  {
    let before = Self.snapshot(root)
    let error = releaseError(file: file, line: line, body)
    XCTAssertEqual(error?.exitCode, 2, "\(error?.lines ?? [])", file: file, line: line)
    XCTAssertEqual(Self.snapshot(root), before, "nothing written", file: file, line: line)
    return error?.lines
  }
}

extension RecordingReporter {
  /// The `.info` lines, in order.
  package var infos: [String] {
    events.compactMap {
      if case .info(let text) = $0 { return text }
      return nil
    }
  }

  /// What a dry run showed in place of the steps it did not run (`.dryRun`), line by line.
  package var dryRunLines: [String] {
    events.flatMap { event -> [String] in
      if case .dryRun(_, let lines) = event { return lines }
      return []
    }
  }
}
