import Foundation

/// A random id for this installation of the app, made once and kept in a file: rollouts pick
/// devices by it, so a device stays in or out of a rollout from launch to launch.
public enum InstallID {
  public static func load(from directory: URL) throws -> String {
    let file = directory.appendingPathComponent("install-id")
    if let text = try? String(contentsOf: file, encoding: .utf8), UUID(uuidString: text) != nil { return text }
    try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
    let id = UUID().uuidString
    try Data(id.utf8).write(to: file, options: .atomic)
    return id
  }
}
