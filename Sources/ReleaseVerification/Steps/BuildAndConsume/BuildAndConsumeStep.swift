import Foundation
import ReleaseArchive
import ReleaseBuild
import ReleaseCore
import ReleaseGeneration
import ReleasePipeline
import ReleaseReporting
import ReleaseSystem

/// `release verify`, for each release whose contents and package passed, unless
/// `--no-build`: extracts the archive with libarchive's secure flags into a temporary
/// directory, runs `swift test` there (which builds every target with its tests, from cold:
/// the compiler must print no warning, since many apps build with warnings as errors), then
/// builds and runs a consumer of it (which builds the SDK as an app does, without testability). A
/// separate `swift build` first would compile the package twice and show nothing more. The two
/// builds share one module cache, so the consumer does not compile the system modules again;
/// it is the package's own, never another package's (each package checked is untrusted code).
package struct BuildAndConsumeStep: Step {
  package let name = "build and consume"
  /// Whether to build at all (`--no-build`: no).
  let build: Bool
  /// Seconds each build or test of a package may take.
  let timeLimit: Double

  package init(build: Bool, timeLimit: Double) {
    self.build = build
    self.timeLimit = timeLimit
  }

  package func skipReason(_ release: ReleaseFindings, _ context: ReleaseContext) -> String? {
    guard release.passed else { return ReleaseFindings.earlierCheckFailed }
    return build ? nil : "--no-build"
  }

  package func run(_ release: ReleaseFindings, _ context: ReleaseContext) throws -> ReleaseFindings {
    guard let record = release.record else { return release }
    var checked = release
    do {
      try buildAndConsume(release.location.directory, record: record, context.services)
    } catch let failure as BuildFailure {
      checked.problems.append(failure.message)
      checked.printed = failure.output
    } catch {
      checked.problems.append("\(error)")
    }
    return checked
  }

  func buildAndConsume(_ directory: URL, record: ReleaseRecord, _ services: Services) throws {
    let scratch = try TemporaryFiles.shared.makeDirectory(prefix: "release-verify")
    defer { try? FileManager.default.removeItem(at: scratch) }
    let package = try ZipReader.extract(
      directory.appendingPathComponent(record.artifact.file), into: scratch.appendingPathComponent("package"))
    let builder = try UntrustedBuilder(scratch: scratch, services: services, timeLimit: timeLimit)
    try builder.swift(["test"], in: package)
    try builder.checkNoWarnings()
    let tests = TestCount.parse(log: builder.log).map { " (\($0) tests)" } ?? ""
    services.output.write(line: "  ok  swift test of the extracted package\(tests)", to: .standardOutput)

    let consumer = scratch.appendingPathComponent("consumer")
    try ConsumerPackage.generate(
      sdkPackage: package, sdkPackageName: record.packageName,
      flows: record.models.map { .init(flowName: $0.flowName, modelVersion: $0.modelVersion) },
      allowedBundleIdentifier: record.customer.bundleIdentifiers.first ?? "", into: consumer)
    try builder.swift(["build"], in: consumer)
    let calls = try builder.runConsumer(in: consumer)
    services.output.write(
      line: "  ok  a consumer depending on it by path builds and calls the SDK (\(calls) checks passed)",
      to: .standardOutput)
  }
}

/// Runs `swift` and the built consumer on code under check: in its scratch directory, with
/// only the environment `UntrustedBuildEnvironment` lets through, one module cache and log.
struct UntrustedBuilder {
  let services: Services
  let timeLimit: Double
  let environment: [String: String]
  let log: URL
  let flags: [String]

  init(scratch: URL, services: Services, timeLimit: Double) throws {
    let home = scratch.appendingPathComponent("home")
    let temporary = scratch.appendingPathComponent("tmp")
    try AtomicFile.createDirectory(home)
    try AtomicFile.createDirectory(temporary)
    self.services = services
    self.timeLimit = timeLimit
    environment = UntrustedBuildEnvironment.make(from: services.environment, home: home, temporary: temporary)
    log = scratch.appendingPathComponent("verify.log")
    // Indexing the system modules (Foundation, XCTest) finds no tests of the package's and
    // costs a good part of a cold build; `release all` leaves them out too.
    flags = [
      "-Xswiftc", "-module-cache-path", "-Xswiftc", scratch.appendingPathComponent("module-cache").path,
      "-Xswiftc", "-index-ignore-system-modules",
    ]
  }

  func invocation(_ program: String, _ arguments: [String], in directory: URL, log: URL?) -> ProcessInvocation
  {
    ProcessInvocation(
      program, arguments, in: directory, environment: environment, logFile: log, timeLimit: timeLimit,
      timeLimitOption: "--timeout")
  }

  func swift(_ arguments: [String], in directory: URL) throws {
    let result = try services.processRunner.run(
      invocation("swift", arguments + flags, in: directory, log: log))
    guard result.exitCode == 0 else {
      throw BuildFailure(
        message: SystemError.processFailed(
          command: "swift " + arguments.joined(separator: " "), exitCode: result.exitCode, logPath: nil
        ).description, output: LogExcerpt.failure(of: log, tail: 15))
    }
  }

  /// The compiler's warnings in the log (each once: SwiftPM may print one twice) are a failure:
  /// an app that builds with warnings as errors could not take the package.
  func checkNoWarnings() throws {
    let text = (try? String(contentsOf: log, encoding: .utf8)) ?? ""
    var seen = Set<Substring>()
    let warnings = text.split(separator: "\n").filter {
      $0.contains(": warning: ") && seen.insert($0).inserted
    }
    guard !warnings.isEmpty else { return }
    throw BuildFailure(
      message:
        "swift test printed \(warnings.count) compiler warning\(warnings.count == 1 ? "" : "s"); an app that builds with warnings as errors could not take the package",
      output: warnings.prefix(15).map(String.init))
  }

  /// Runs the built consumer; how many of its checks passed.
  func runConsumer(in consumer: URL) throws -> Int {
    let binary = try services.processRunner.run(
      invocation("swift", ["build", "--show-bin-path"], in: consumer, log: nil))
    guard binary.exitCode == 0 else {
      throw SystemError.processFailed(
        command: "swift build --show-bin-path", exitCode: binary.exitCode, logPath: nil)
    }
    let run = try services.processRunner.run(
      invocation(
        binary.standardOutput.trimmingCharacters(in: .whitespacesAndNewlines) + "/Consumer", [], in: consumer,
        log: nil))
    guard run.exitCode == 0 else {
      throw BuildFailure(
        message: "the consumer package failed (exit \(run.exitCode))",
        output: (run.standardError + run.standardOutput).trimmingCharacters(in: .whitespacesAndNewlines)
          .split(separator: "\n", omittingEmptySubsequences: false).map(String.init))
    }
    return run.standardOutput.split(separator: "\n").filter { $0.hasPrefix("ok ") }.count
  }
}

/// The package under check or its consumer failed to build or run: `message` is one line,
/// `output` what that code printed last (its log's tail, or its output), printed apart from
/// the message because it is the code's text, not the tool's.
struct BuildFailure: Error, CustomStringConvertible {
  let message: String
  let output: [String]
  var description: String { ([message] + output.map { "    \($0)" }).joined(separator: "\n") }
}

/// The environment `release verify` builds and runs a package in: the package is the code under
/// check, so it sees only what SwiftPM needs to find the toolchain and a home and temp dir of
/// its own — no SSH agent, no cloud credentials, no tokens, nothing else of the user's.
package enum UntrustedBuildEnvironment {
  /// Variables passed through when set: where programs are, the locale, and on macOS which
  /// Xcode and SDK to use.
  static let allowed: Set<String> = [
    "PATH", "LANG", "LC_ALL", "LC_CTYPE", "LC_MESSAGES", "TERM", "DEVELOPER_DIR", "SDKROOT", "TOOLCHAINS",
  ]

  package static func make(from environment: [String: String], home: URL, temporary: URL) -> [String: String]
  {
    var allowed = environment.filter { Self.allowed.contains($0.key) }
    allowed["HOME"] = home.path
    allowed["TMPDIR"] = temporary.path
    return allowed
  }
}
