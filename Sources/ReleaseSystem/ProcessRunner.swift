import Foundation

/// What a finished child process left behind.
public struct ProcessResult: Equatable, Sendable {
  public var exitCode: Int32
  /// Standard output, when the caller asked for it to be captured (otherwise empty).
  public var standardOutput: String
  public var standardError: String

  public init(exitCode: Int32, standardOutput: String = "", standardError: String = "") {
    self.exitCode = exitCode
    self.standardOutput = standardOutput
    self.standardError = standardError
  }
}

/// One program to run. `logFile`, when set, receives stdout and stderr as they arrive
/// (appended), which is how `swift build` output is streamed to `dist/logs/…`.
public struct ProcessInvocation: Equatable, Sendable {
  public var program: String
  public var arguments: [String]
  public var directory: URL?
  public var environment: [String: String]?
  public var logFile: URL?

  public init(
    _ program: String, _ arguments: [String], in directory: URL? = nil,
    environment: [String: String]? = nil, logFile: URL? = nil
  ) {
    self.program = program
    self.arguments = arguments
    self.directory = directory
    self.environment = environment
    self.logFile = logFile
  }

  /// The command as a person would type it (for messages; never contains secrets,
  /// since secrets travel in the environment only).
  public var commandLine: String { ([program] + arguments).joined(separator: " ") }
}

/// Runs external programs (`swift`, `git`). Injected through the release context so tests
/// can substitute a fake that fails loudly on anything unexpected.
public protocol ProcessRunning: Sendable {
  func run(_ invocation: ProcessInvocation) throws -> ProcessResult
}

/// The real runner, on Foundation's `Process`.
public struct SystemProcessRunner: ProcessRunning {
  public init() {}

  public func run(_ invocation: ProcessInvocation) throws -> ProcessResult {
    guard let executable = Self.find(invocation.program, environment: invocation.environment)
    else { throw SystemError.programNotFound(name: invocation.program) }

    let process = Process()
    process.executableURL = executable
    process.arguments = invocation.arguments
    if let directory = invocation.directory { process.currentDirectoryURL = directory }
    if let environment = invocation.environment { process.environment = environment }
    process.standardInput = FileHandle.nullDevice

    var logHandle: FileHandle?
    let outputPipe = Pipe()
    let errorPipe = Pipe()
    if let logFile = invocation.logFile {
      try AtomicFile.createDirectory(logFile.deletingLastPathComponent())
      if !FileManager.default.fileExists(atPath: logFile.path) {
        _ = FileManager.default.createFile(atPath: logFile.path, contents: nil)
      }
      guard let handle = FileHandle(forWritingAtPath: logFile.path) else {
        throw SystemError.cannotWrite(path: logFile.path, reason: "cannot open log file")
      }
      handle.seekToEndOfFile()
      logHandle = handle
      process.standardOutput = handle
      process.standardError = handle
    } else {
      process.standardOutput = outputPipe
      process.standardError = errorPipe
    }
    defer { try? logHandle?.close() }

    do { try process.run() } catch {
      throw SystemError.processFailed(command: invocation.commandLine, exitCode: -1, logPath: nil)
    }
    var output = Data()
    var errors = Data()
    if logHandle == nil {
      // Drain both pipes concurrently so a chatty child never blocks on a full pipe.
      let standardError = Locked(Data())
      let group = DispatchGroup()
      group.enter()
      DispatchQueue.global().async {
        standardError.set(errorPipe.fileHandleForReading.readDataToEndOfFile())
        group.leave()
      }
      output = outputPipe.fileHandleForReading.readDataToEndOfFile()
      group.wait()
      errors = standardError.value
    }
    process.waitUntilExit()
    return ProcessResult(
      exitCode: process.terminationStatus,
      standardOutput: String(decoding: output, as: UTF8.self),
      standardError: String(decoding: errors, as: UTF8.self))
  }

  /// Resolves a program name on PATH (absolute paths are taken as they are).
  public static func find(_ program: String, environment: [String: String]? = nil) -> URL? {
    if program.contains("/") {
      return FileManager.default.isExecutableFile(atPath: program) ? URL(fileURLWithPath: program) : nil
    }
    let path = (environment ?? ProcessInfo.processInfo.environment)["PATH"] ?? "/usr/bin:/bin"
    for directory in path.split(separator: ":") {
      let candidate = URL(fileURLWithPath: String(directory)).appendingPathComponent(program)
      if FileManager.default.isExecutableFile(atPath: candidate.path) { return candidate }
    }
    return nil
  }
}
