import Foundation

#if canImport(Glibc)
  import Glibc
#elseif canImport(Darwin)
  import Darwin
#endif

/// The child processes running now, each the leader of its own process group: what an
/// interrupted run stops.
public final class ChildProcesses: Sendable {
  public static let shared = ChildProcesses()
  private let state = Locked((groups: Set<pid_t>(), stopping: false))

  /// Registers a child that just started; one started while the run is being stopped is
  /// stopped at once.
  func started(_ pid: pid_t) {
    let stopping = state.withLock { state in
      state.groups.insert(pid)
      return state.stopping
    }
    if stopping { kill(-pid, SIGKILL) }
  }

  /// Called when a child has ended. While the run is being stopped it does not return: the
  /// thread that waited for the child must not go on to report a failure or write results
  /// while the interrupt handler cleans up and exits.
  func ended(_ pid: pid_t) {
    let stopping = state.withLock { state in
      state.groups.remove(pid)
      return state.stopping
    }
    while stopping { pause() }
  }

  /// Marks the run as stopping and returns the groups running now.
  func stopAll() -> [pid_t] {
    state.withLock { state in
      state.stopping = true
      return Array(state.groups)
    }
  }

  public var running: [pid_t] { state.withLock { Array($0.groups) } }
}

/// Temporary files and directories of the run (temporary siblings of final names, scratch
/// directories under the system temp dir): what an interrupted run removes. Paths are
/// registered when made and may have been renamed or removed since; removing those does nothing.
public final class TemporaryFiles: Sendable {
  public static let shared = TemporaryFiles()
  private let paths = Locked<Set<String>>([])

  public func register(_ url: URL) { paths.withLock { _ = $0.insert(url.path) } }
  public func unregister(_ url: URL) { paths.withLock { _ = $0.remove(url.path) } }

  /// A fresh, registered directory under the system temp dir: `<temp>/<prefix>-<uuid>`.
  public func makeDirectory(prefix: String) throws -> URL {
    let url = FileManager.default.temporaryDirectory.appendingPathComponent("\(prefix)-\(UUID().uuidString)")
    register(url)
    try AtomicFile.createDirectory(url)
    return url
  }

  /// Removes every registered path that still exists; returns how many there were.
  func removeAll() -> Int {
    let all = paths.withLock { paths in
      defer { paths.removeAll() }
      return paths
    }
    var removed = 0
    for path in all where FileManager.default.fileExists(atPath: path) {
      if (try? FileManager.default.removeItem(atPath: path)) != nil { removed += 1 }
    }
    return removed
  }
}

/// What `release` does when it is interrupted (SIGINT, SIGTERM, SIGHUP) or its reader goes away
/// (SIGPIPE): installed once by the executable, never by the tests running it in-process.
public enum Interrupts {
  public static func install() {
    // A reader that went away (`release all --json | head -1`) must not kill a run half-way
    // through publishing: writes to it fail with EPIPE instead, and the run goes on.
    signal(SIGPIPE, SIG_IGN)
    for number in [SIGINT, SIGTERM, SIGHUP] {
      signal(number, SIG_IGN)
      let source = DispatchSource.makeSignalSource(signal: number, queue: .global(qos: .userInitiated))
      source.setEventHandler { stop(by: number) }
      source.resume()
      // A dispatch source must stay alive for its handler to run: these live as long as the
      // process, so one reference is simply never released (no storage shared between threads).
      _ = Unmanaged.passRetained(source as AnyObject)
    }
  }

  /// Stops every running child with everything it started, removes the run's temporary files,
  /// says so in one line and exits with 128 + the signal. The kernel frees the run's locks
  /// (flock) as the process ends.
  static func stop(by number: Int32) -> Never {
    let groups = ChildProcesses.shared.stopAll()
    for group in groups { kill(-group, SIGTERM) }
    let deadline = Date().addingTimeInterval(SystemProcessRunner.terminationGrace)
    while Date() < deadline, groups.contains(where: { kill(-$0, 0) == 0 }) { usleep(20_000) }
    for group in groups { kill(-group, SIGKILL) }
    let removed = TemporaryFiles.shared.removeAll()
    let name = [SIGINT: "SIGINT", SIGTERM: "SIGTERM", SIGHUP: "SIGHUP"][number] ?? "signal \(number)"
    let line =
      "release: interrupted by \(name); stopped \(groups.count) running process\(groups.count == 1 ? "" : "es"), removed \(removed) temporary file\(removed == 1 ? "" : "s"); the locks are freed as it exits\n"
    _ = line.withCString { write(STDERR_FILENO, $0, strlen($0)) }
    exit(128 + number)
  }
}
