import Foundation
import ReleaseCLI
import ReleaseCore
import ReleaseSystem
import ReleaseTestSupport
import XCTest

/// Runs the CLI in this process against a directory of its own, with a process runner that
/// fails the test on any call it was not scripted for (by default none: most commands run this
/// way start no process), real transfers retried without waiting (`TestHTTP.retryingAtOnce`)
/// and only the environment given.
package enum InProcessCLI {
  package struct Run {
    package var code: Int32
    package var standardOutput: [String]
    package var standardError: [String]
    package var allOutput: String { (standardOutput + standardError).joined(separator: "\n") }

    package init(code: Int32, standardOutput: [String], standardError: [String]) {
      self.code = code
      self.standardOutput = standardOutput
      self.standardError = standardError
    }
  }

  package static func run(
    _ arguments: [String], root: URL, environment: [String: String] = [:],
    processRunner: ScriptedProcessRunner = ScriptedProcessRunner(), clock: Clock = SystemClock()
  ) -> Run {
    let output = CapturedOutput()
    let services = Services(
      processRunner: processRunner, clock: clock, root: root,
      environment: ["CI": "true"].merging(environment) { $1 }, output: output, http: TestHTTP.retryingAtOnce)
    let code = CommandLineInterface.main(arguments: arguments, services: services)
    return Run(code: code, standardOutput: output.standardOutput, standardError: output.standardError)
  }
}
