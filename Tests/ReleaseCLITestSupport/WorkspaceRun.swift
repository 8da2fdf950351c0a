import Foundation
import ReleaseCLI
import ReleaseCore
import ReleaseSystem
import ReleaseTestSupport

// Running the whole command line in this process. Only the test targets that drive the CLI
// depend on this module, so only they link the tool (`ReleaseCLI`).
extension Workspace {
  package struct Run {
    package var exitCode: Int32
    package var standardOutput: [String]
    package var standardError: [String]
    package var allOutput: String { (standardOutput + standardError).joined(separator: "\n") }
    /// The `--json` events: every stdout line that is a JSON object.
    package var events: [[String: Any]] {
      standardOutput.compactMap { (try? JSONSerialization.jsonObject(with: Data($0.utf8))) as? [String: Any] }
    }
  }

  /// Runs the CLI in this process with the real process runner (`swift --version` remembered,
  /// see `ToolchainVersionMemo`) and real transfers retried without waiting
  /// (`TestHTTP.retryingAtOnce`), against this workspace and the shared cache.
  package func run(_ arguments: [String], environment: [String: String] = [:]) -> Run {
    let output = CapturedOutput()
    var base = ProcessInfo.processInfo.environment
    base["CI"] = "true"
    base.removeValue(forKey: "GITHUB_ACTIONS")
    let services = Services(
      processRunner: ToolchainVersionMemo(), clock: SystemClock(), root: root,
      environment: base.merging(environment) { $1 }, output: output, http: TestHTTP.retryingAtOnce)
    let code = CommandLineInterface.main(arguments: arguments + cacheArguments(arguments), services: services)
    return Run(exitCode: code, standardOutput: output.standardOutput, standardError: output.standardError)
  }

  private func cacheArguments(_ arguments: [String]) -> [String] {
    guard let command = arguments.first, ["all", "customer"].contains(command), !arguments.contains("--cache")
    else {
      return []
    }
    return ["--cache", Self.sharedCache.path]
  }
}
