import Foundation
import ReleaseCLI
import ReleaseCore
import ReleaseSigning
import ReleaseSystem
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
    processRunner: ScriptedProcessRunner = ScriptedProcessRunner()
  ) -> Run {
    let output = CapturedOutput()
    let services = Services(
      processRunner: processRunner, clock: SystemClock(), root: root,
      environment: ["CI": "true"].merging(environment) { $1 }, output: output, http: TestHTTP.retryingAtOnce)
    let code = CommandLineInterface.main(arguments: arguments, services: services)
    return Run(code: code, standardOutput: output.standardOutput, standardError: output.standardError)
  }

  /// `ssh-keygen`'s arguments to check a release zip's signature as a customer does (the zip
  /// on stdin, `allowed_signers` in the working directory).
  package static func sshVerifyArguments(identity: String, signature: String) -> [String] {
    ["-Y", "verify", "-f", "allowed_signers", "-I", identity, "-n", "contextsdk-release", "-s", signature]
  }

  package static func tool(_ program: String, _ arguments: [String], in directory: URL, input: URL? = nil)
    throws
    -> ProcessResult
  {
    guard SystemProcessRunner.find(program) != nil else {
      throw PublishSetupError(description: "\(program) not found on PATH")
    }
    if let input {
      // ssh-keygen -Y verify reads the signed file on stdin.
      let command =
        ([program] + arguments).map(shellQuoted).joined(separator: " ") + " < " + shellQuoted(input.path)
      return try SystemProcessRunner().run(ProcessInvocation("sh", ["-c", command], in: directory))
    }
    return try SystemProcessRunner().run(ProcessInvocation(program, arguments, in: directory))
  }

  private static func shellQuoted(_ text: String) -> String {
    "'" + text.replacingOccurrences(of: "'", with: "'\\''") + "'"
  }

  /// The base64 lines of a PEM text's body: what must never appear in any output.
  package static func secretLines(ofPEM pem: String) -> [String] {
    pem.split(separator: "\n").map(String.init).filter { !$0.hasPrefix("-----") && !$0.isEmpty }
  }
}
