import Foundation
import ReleaseNetwork
import ReleaseSystem

/// Everything the tool touches outside its own memory, in one value (after swiftly's
/// context): tests build one with fakes that fail loudly on any call they did not expect.
package struct Services: Sendable {
  /// Runs `swift` and `git`.
  package var processRunner: ProcessRunning
  package var clock: Clock
  /// The directory relative paths are resolved against (the project checkout).
  package var root: URL
  /// The process environment; credentials are read from here and nowhere else.
  package var environment: [String: String]
  package var output: OutputStreaming
  /// Every network transfer: model stores, object stores, outcomes, channels (libcurl, with
  /// its retries and their waits).
  package var http: HTTPClient

  package init(
    processRunner: ProcessRunning, clock: Clock, root: URL, environment: [String: String],
    output: OutputStreaming, http: HTTPClient = CurlHTTPClient()
  ) {
    self.processRunner = processRunner
    self.clock = clock
    self.root = root
    self.environment = environment
    self.output = output
    self.http = http
  }

  /// The real machine: current directory, `environment` (the process's, unless the caller
  /// read it already), stdout/stderr.
  package static func live(environment: [String: String] = ProcessInfo.processInfo.environment) -> Services {
    return Services(
      processRunner: SystemProcessRunner(), clock: SystemClock(),
      root: URL(fileURLWithPath: FileManager.default.currentDirectoryPath),
      environment: environment,
      output: StandardOutput(workflowCommands: environment["GITHUB_ACTIONS"] == "true"),
      http: CurlHTTPClient(proxies: CurlProxies(environment: environment)))
  }

  /// Resolves a user-given path (absolute, or relative to `root`).
  package func resolve(_ path: String) -> URL {
    path.hasPrefix("/")
      ? URL(fileURLWithPath: path).standardizedFileURL
      : root.appendingPathComponent(path).standardizedFileURL
  }
}
