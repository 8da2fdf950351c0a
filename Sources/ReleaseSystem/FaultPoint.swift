import Foundation

/// Named points where a test can make the process die by a real SIGKILL
/// (`RELEASE_KILL_AT=<point>`), to prove that no partial file is ever left under a final
/// name and that a rerun converges. Reading one environment variable is the whole cost when
/// unused.
public enum FaultPoint {
  private static let target = ProcessInfo.processInfo.environment["RELEASE_KILL_AT"]

  /// Every point the tool passes, in the order a release reaches them.
  public static let all = [
    "generate.partial", "archive.partial", "stage.assembled", "state.partial",
  ]

  public static func reach(_ name: String) {
    guard let target, target == name else { return }
    kill(getpid(), SIGKILL)
  }
}
