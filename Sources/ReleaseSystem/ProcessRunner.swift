import CSystemShim
import Foundation

#if canImport(Glibc)
  import Glibc
#elseif canImport(Darwin)
  import Darwin
#endif

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
  /// Every child has a time limit; this one unless the caller gives another (git, `swift
  /// --version`: seconds; builds and tests get the run's `--timeout`).
  public static let defaultTimeLimit: Double = 120

  public var program: String
  public var arguments: [String]
  public var directory: URL?
  public var environment: [String: String]?
  public var logFile: URL?
  /// Seconds the child (and everything it starts) may run before it is stopped.
  public var timeLimit: Double
  /// The option that raises `timeLimit`, named in the timeout message (`--timeout`).
  public var timeLimitOption: String?
  /// How messages name the command when its whole line says more than helps (`swift test`,
  /// not the build flags after it); nil: the whole line.
  public var shownAs: String?
  /// The most the child (and everything it starts) may write below a directory: past it, it is
  /// stopped and the run throws `SystemError.wroteTooMuch`.
  public var writeLimit: WriteLimit?

  public init(
    _ program: String, _ arguments: [String], in directory: URL? = nil,
    environment: [String: String]? = nil, logFile: URL? = nil, timeLimit: Double = defaultTimeLimit,
    timeLimitOption: String? = nil, shownAs: String? = nil, writeLimit: WriteLimit? = nil
  ) {
    self.program = program
    self.arguments = arguments
    self.directory = directory
    self.environment = environment
    self.logFile = logFile
    self.timeLimit = timeLimit
    self.timeLimitOption = timeLimitOption
    self.shownAs = shownAs
    self.writeLimit = writeLimit
  }

  /// The command as a person would type it (for messages; never contains secrets,
  /// since secrets travel in the environment only).
  public var commandLine: String { shownAs ?? ([program] + arguments).joined(separator: " ") }
}

/// Runs external programs (`swift`, `git`). Injected through the release context so tests
/// can substitute a fake that fails loudly on anything unexpected.
public protocol ProcessRunning: Sendable {
  func run(_ invocation: ProcessInvocation) throws -> ProcessResult
}

extension ProcessRunning {
  /// Runs `invocation` with TMPDIR set to a directory of its own, removed when the child ends
  /// (and with the run's other temporaries on an interrupt). The Swift toolchain's programs
  /// leave `TemporaryDirectory.*` folders in their temp dir on every call and never remove them
  /// (six for a warm `swift build`): on a CI machine that releases on every merge they would
  /// pile up in /tmp by the thousand.
  public func runWithOwnTemporaryDirectory(_ invocation: ProcessInvocation) throws -> ProcessResult {
    let directory = try TemporaryFiles.shared.makeDirectory(prefix: "release-child")
    defer {
      try? FileManager.default.removeItem(at: directory)
      TemporaryFiles.shared.unregister(directory)
    }
    var invocation = invocation
    var environment = invocation.environment ?? ProcessInfo.processInfo.environment
    environment["TMPDIR"] = directory.path
    invocation.environment = environment
    return try run(invocation)
  }
}

/// The real runner, on `posix_spawn`.
///
/// Children started through Foundation's `Process` from a Dispatch worker inherit that thread's
/// signal mask (SIGINT, SIGTERM and SIGHUP blocked), so they ignore `kill -TERM` and outlive the
/// run, and `waitUntilExit()` waits forever on a child that never ends. So each child starts with an empty signal mask and
/// default dispositions, in a process group of its own (so it can be stopped together with
/// everything it starts), is registered while it runs (an interrupted run stops it), and is
/// stopped when its time limit passes: SIGTERM to the group, SIGKILL after a short grace.
public struct SystemProcessRunner: ProcessRunning {
  /// Seconds between SIGTERM and SIGKILL for a child past its time limit.
  static let terminationGrace: Double = 3
  /// Bytes of one captured stream kept at most: far more than git or `swift --version` print.
  /// A child printing more is stopped (with its group) and reported, never kept in memory.
  public static let maximumCapturedOutput = 32 * 1024 * 1024
  /// Seconds the output pipes are still read after the child ended: a process it started in a
  /// session of its own, beyond the group kill, may hold them open for as long as it likes.
  static let drainGrace: Double = 5
  /// Seconds between two looks at what a child with a `writeLimit` has written: it may pass the
  /// limit by what it writes in that time.
  static let writeCheckInterval: Double = 0.1

  public init() {}

  public func run(_ invocation: ProcessInvocation) throws -> ProcessResult {
    guard let executable = Self.find(invocation.program, environment: invocation.environment)
    else { throw SystemError.programNotFound(name: invocation.program) }

    var logDescriptor: Int32 = -1
    if let logFile = invocation.logFile {
      try AtomicFile.createDirectory(logFile.deletingLastPathComponent())
      logDescriptor = open(logFile.path, O_WRONLY | O_CREAT | O_APPEND | O_CLOEXEC, 0o644)
      guard logDescriptor >= 0 else {
        throw SystemError.cannotWrite(path: logFile.path, reason: String(cString: strerror(errno)))
      }
    }
    defer { if logDescriptor >= 0 { close(logDescriptor) } }

    // Pipes for captured output (when there is no log file).
    var outputPipe: [Int32] = [-1, -1]
    var errorPipe: [Int32] = [-1, -1]
    if logDescriptor < 0 {
      guard pipe(&outputPipe) == 0, pipe(&errorPipe) == 0 else {
        throw SystemError.processFailed(command: invocation.commandLine, exitCode: -1, logPath: nil)
      }
    }

    let pid = try spawn(executable, invocation, log: logDescriptor, output: outputPipe, error: errorPipe)
    ChildProcesses.shared.started(pid)
    defer { ChildProcesses.shared.ended(pid) }

    // Drain both pipes on their own threads, so a chatty child never blocks on a full pipe.
    let captured = Locked((output: Data(), error: Data(), tooLarge: [String]()))
    // Set once the child has ended: the readers stop there even if the pipes stay open.
    let readUntil = Locked<Date?>(nil)
    let drained = DispatchGroup()
    if logDescriptor < 0 {
      close(outputPipe[1])
      close(errorPipe[1])
      for (descriptor, isOutput) in [(outputPipe[0], true), (errorPipe[0], false)] {
        drained.enter()
        Thread.detachNewThread {
          let (data, complete) = Self.readAll(descriptor, until: readUntil) {
            // Past the limit: the child and its group are stopped; what follows is discarded.
            kill(-pid, SIGKILL)
          }
          close(descriptor)
          captured.withLock {
            if isOutput { $0.output = data } else { $0.error = data }
            if !complete { $0.tooLarge.append(isOutput ? "standard output" : "standard error") }
          }
          drained.leave()
        }
      }
    }

    var writtenWhenStopped: Int64?
    let status = wait(for: pid, invocation, writtenWhenStopped: &writtenWhenStopped)
    // Whatever the child left running in its group (compilers, test binaries) goes with it.
    kill(-pid, SIGKILL)
    readUntil.set(Date().addingTimeInterval(Self.drainGrace))
    _ = drained.wait(timeout: .now() + Self.drainGrace + 5)
    try Self.checkWriteLimit(of: invocation, writtenWhenStopped: writtenWhenStopped)
    guard let status else {
      throw SystemError.timedOut(
        command: invocation.commandLine, seconds: invocation.timeLimit, option: invocation.timeLimitOption)
    }
    let output = captured.value
    if let stream = output.tooLarge.first {
      throw SystemError.outputTooLarge(
        command: invocation.commandLine, stream: stream, limit: Self.maximumCapturedOutput)
    }
    return ProcessResult(
      exitCode: status, standardOutput: String(decoding: output.output, as: UTF8.self),
      standardError: String(decoding: output.error, as: UTF8.self))
  }

  /// The exit status (128 + signal for a child ended by a signal), or nil when the time limit
  /// passed and the child's group was stopped. A child past its write limit is stopped at once
  /// (`writtenWhenStopped`: what it had written then).
  private func wait(for pid: pid_t, _ invocation: ProcessInvocation, writtenWhenStopped: inout Int64?)
    -> Int32?
  {
    let deadline = Date().addingTimeInterval(invocation.timeLimit)
    var terminatedAt: Date?
    var pollInterval: useconds_t = 2_000
    var nextWriteCheck = Date()
    while true {
      var status: Int32 = 0
      let reaped = waitpid(pid, &status, WNOHANG)
      if reaped == pid { return terminatedAt == nil ? Self.exitCode(status) : nil }
      if reaped < 0 && errno != EINTR { return terminatedAt == nil ? -1 : nil }
      let now = Date()
      if let limit = invocation.writeLimit, writtenWhenStopped == nil, now >= nextWriteCheck {
        nextWriteCheck = now.addingTimeInterval(Self.writeCheckInterval)
        let written = limit.written()
        if written > limit.bytes {
          kill(-pid, SIGKILL)
          writtenWhenStopped = written
        }
      }
      if terminatedAt == nil, now >= deadline {
        kill(-pid, SIGTERM)
        terminatedAt = now
      } else if let terminated = terminatedAt, now.timeIntervalSince(terminated) >= Self.terminationGrace {
        kill(-pid, SIGKILL)
      }
      usleep(pollInterval)
      pollInterval = min(pollInterval * 2, 50_000)
    }
  }

  /// Throws when the child was stopped past its write limit, or passed it after the last look
  /// and ended before the next.
  private static func checkWriteLimit(of invocation: ProcessInvocation, writtenWhenStopped: Int64?) throws {
    guard let limit = invocation.writeLimit else { return }
    let written = writtenWhenStopped ?? limit.written()
    guard written <= limit.bytes else {
      throw SystemError.wroteTooMuch(
        command: invocation.commandLine, directory: limit.directory.path, written: written, limit: limit.bytes
      )
    }
  }

  /// `waitpid`'s status as an exit code: the code itself, or 128 + the signal that ended it.
  static func exitCode(_ status: Int32) -> Int32 {
    let signal = status & 0x7f
    return signal == 0 ? (status >> 8) & 0xff : 128 + signal
  }

  private func spawn(
    _ executable: URL, _ invocation: ProcessInvocation, log: Int32, output: [Int32], error: [Int32]
  ) throws -> pid_t {
    #if canImport(Glibc)
      var actions = posix_spawn_file_actions_t()
      var attributes = posix_spawnattr_t()
    #else
      var actions: posix_spawn_file_actions_t?
      var attributes: posix_spawnattr_t?
    #endif
    posix_spawn_file_actions_init(&actions)
    posix_spawnattr_init(&attributes)
    defer {
      posix_spawn_file_actions_destroy(&actions)
      posix_spawnattr_destroy(&attributes)
    }
    posix_spawn_file_actions_addopen(&actions, 0, "/dev/null", O_RDONLY, 0)
    if log >= 0 {
      posix_spawn_file_actions_adddup2(&actions, log, 1)
      posix_spawn_file_actions_adddup2(&actions, log, 2)
    } else {
      posix_spawn_file_actions_adddup2(&actions, output[1], 1)
      posix_spawn_file_actions_adddup2(&actions, error[1], 2)
      for descriptor in [output[0], error[0], output[1], error[1]] {
        posix_spawn_file_actions_addclose(&actions, descriptor)
      }
    }
    if let directory = invocation.directory {
      cspawn_file_actions_addchdir(&actions, directory.path)
    }
    // Last: everything but stdin, stdout and stderr closed in the child.
    cspawn_file_actions_addclosefrom(&actions, 3)
    // An empty signal mask and default dispositions, whatever the spawning thread had; a
    // process group of its own.
    var emptyMask = sigset_t()
    sigemptyset(&emptyMask)
    posix_spawnattr_setsigmask(&attributes, &emptyMask)
    var defaults = sigset_t()
    sigfillset(&defaults)
    sigdelset(&defaults, SIGKILL)
    sigdelset(&defaults, SIGSTOP)
    posix_spawnattr_setsigdefault(&attributes, &defaults)
    posix_spawnattr_setpgroup(&attributes, 0)
    #if canImport(Darwin)
      let closeOthers = POSIX_SPAWN_CLOEXEC_DEFAULT
    #else
      let closeOthers: Int32 = 0
    #endif
    posix_spawnattr_setflags(
      &attributes, Int16(POSIX_SPAWN_SETSIGMASK | POSIX_SPAWN_SETSIGDEF | POSIX_SPAWN_SETPGROUP | closeOthers)
    )

    let arguments = [executable.path] + invocation.arguments
    let environment = (invocation.environment ?? ProcessInfo.processInfo.environment).map {
      "\($0.key)=\($0.value)"
    }
    var pid: pid_t = 0
    let result = withCStrings(arguments) { argv in
      withCStrings(environment) { envp in
        posix_spawn(&pid, executable.path, &actions, &attributes, argv, envp)
      }
    }
    if log < 0 {
      // The child has its own copies; on failure nobody writes to them.
      if result != 0 { for descriptor in output + error { close(descriptor) } }
    }
    guard result == 0 else {
      throw SystemError.processFailed(command: invocation.commandLine, exitCode: -1, logPath: nil)
    }
    return pid
  }

  /// Reads a pipe to its end, or until `until` (once set) has passed: at most
  /// `maximumCapturedOutput` bytes are kept; past them `overflow` runs once, the rest is
  /// discarded and `complete` is false.
  private static func readAll(_ descriptor: Int32, until: Locked<Date?>, overflow: () -> Void) -> (
    data: Data, complete: Bool
  ) {
    var data = Data()
    var complete = true
    var buffer = [UInt8](repeating: 0, count: 64 * 1024)
    while true {
      if let deadline = until.value, Date() >= deadline { return (data, complete) }
      var request = pollfd(fd: descriptor, events: Int16(POLLIN), revents: 0)
      let ready = poll(&request, 1, 100)
      if ready == 0 || (ready < 0 && errno == EINTR) { continue }
      let count = read(descriptor, &buffer, buffer.count)
      if count > 0 {
        guard complete else { continue }
        if data.count + count > maximumCapturedOutput {
          complete = false
          overflow()
        } else {
          data.append(contentsOf: buffer[0..<count])
        }
      } else if count < 0 && errno == EINTR {
        continue
      } else {
        return (data, complete)
      }
    }
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

/// A NULL-terminated array of C strings for `posix_spawn`, alive during `body`.
private func withCStrings<Result>(
  _ strings: [String], _ body: (UnsafePointer<UnsafeMutablePointer<CChar>?>) -> Result
) -> Result {
  let pointers = strings.map { strdup($0) } + [nil]
  defer { pointers.forEach { free($0) } }
  return pointers.withUnsafeBufferPointer { body($0.baseAddress!) }
}
