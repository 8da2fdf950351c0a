import Foundation
import ReleaseSystem

/// The aws CLI the tests read buckets back with, as one long-running Python process per test
/// process (Tests/Fixtures/Publish/aws_cli_server.py): each command is the CLI's own entry
/// point with its own arguments and environment, without starting Python and importing
/// botocore again for every `aws` command.
///
/// The interpreter is the one the `aws` on PATH runs (its `#!` line), else `python3`.
package final class AWSCommandLine: @unchecked Sendable {
  /// Started on first use; a test process runs its tests one at a time, and `run` holds a lock.
  package static let shared = Result { try AWSCommandLine() }

  private let process = Process()
  private let input = Pipe()
  private let output = Pipe()
  private let lock = NSLock()
  private let lines: PipeLines

  private init() throws {
    lines = PipeLines(output)
    let aws = try PublishFixtures.program("aws", install: "install it with: python3 -m pip install awscli")
    let firstLine =
      (try? String(contentsOf: aws.resolvingSymlinksInPath(), encoding: .utf8))?
      .split(separator: "\n", maxSplits: 1).first.map(String.init) ?? ""
    let interpreter =
      firstLine.hasPrefix("#!/") && firstLine.contains("python")
      ? URL(fileURLWithPath: String(firstLine.dropFirst(2)).trimmingCharacters(in: .whitespaces))
      : try PublishFixtures.program("python3", install: "install Python 3")
    process.executableURL = interpreter
    process.arguments = [PublishFixtures.publish.appendingPathComponent("aws_cli_server.py").path]
    process.standardInput = input
    process.standardOutput = output
    process.standardError = FileHandle.standardError
    try process.run()
    guard lines.next() == "ready" else {
      stopProcess(process)
      throw PublishSetupError(
        description:
          "aws_cli_server.py could not import the aws CLI with \(interpreter.path): install it with: python3 -m pip install awscli"
      )
    }
  }

  /// One `aws <arguments>` with exactly `environment`.
  package func run(_ arguments: [String], environment: [String: String]) throws -> ProcessResult {
    lock.lock()
    defer { lock.unlock() }
    let request = try JSONSerialization.data(withJSONObject: [
      "arguments": arguments, "environment": environment,
    ])
    try input.fileHandleForWriting.write(contentsOf: request + Data("\n".utf8))
    guard let line = lines.next(),
      let answer = try JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any],
      let exitCode = answer["exit"] as? Int
    else {
      throw PublishSetupError(
        description: "aws_cli_server.py stopped answering (aws \(arguments.joined(separator: " ")))")
    }
    return ProcessResult(
      exitCode: Int32(exitCode), standardOutput: answer["stdout"] as? String ?? "",
      standardError: answer["stderr"] as? String ?? "")
  }
}
