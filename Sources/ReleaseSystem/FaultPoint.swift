import Foundation

/// Named points where a test can make the process die by a real SIGKILL
/// (`RELEASE_KILL_AT=<point>`), to prove that no partial file is ever left under a final
/// name and that a rerun converges. Reading one environment variable is the whole cost when
/// unused.
public enum FaultPoint {
  private static let target = ProcessInfo.processInfo.environment["RELEASE_KILL_AT"]

  /// Every point a release build passes, in the order it reaches them. An over-the-air publish
  /// has its own, `ota.revision-created` (between a revision file and the pointer naming it),
  /// which PublishOTAStepTests kills at.
  public static let all = [
    "generate.partial", "archive.partial", "stage.assembled", "state.partial",
  ]

  public static func reach(_ name: String) {
    guard let target, target == name else { return }
    kill(getpid(), SIGKILL)
  }

  private static let pauseTarget = ProcessInfo.processInfo.environment["RELEASE_PAUSE_AT"]
  private static let pauseGate = ProcessInfo.processInfo.environment["RELEASE_PAUSE_GATE"]

  /// Holds the process at `name` (`RELEASE_PAUSE_AT=<name>`) until the test opens the gate
  /// (`RELEASE_PAUSE_GATE=<dir>`: this process touches `<dir>/reached-<pid>`, then waits for
  /// `<dir>/open`, at most a minute), so two processes can be made to race at a known point.
  public static func pause(_ name: String) {
    guard let pauseTarget, pauseTarget == name, let pauseGate else { return }
    let gate = URL(fileURLWithPath: pauseGate)
    _ = FileManager.default.createFile(
      atPath: gate.appendingPathComponent("reached-\(getpid())").path, contents: nil)
    let deadline = Date().addingTimeInterval(60)
    while !FileManager.default.fileExists(atPath: gate.appendingPathComponent("open").path), Date() < deadline
    {
      usleep(20_000)
    }
  }
}
