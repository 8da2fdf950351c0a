import Foundation

/// A random id for this installation of the app, made once and kept in a file: rollouts pick
/// devices by it, so a device stays in or out of a rollout from launch to launch.
///
/// Only a missing file makes a new id. A file that is there but cannot be read (a file
/// protected while the device is locked, an I/O error) or holds no id is reported and kept:
/// replacing it would move the device into other buckets of every rollout.
public enum InstallID {
  public struct Unreadable: Error, CustomStringConvertible {
    public let description: String
  }

  public static func load(from directory: URL) throws -> String {
    let file = directory.appendingPathComponent("install-id")
    if let id = try read(file) { return id }
    try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
    // Create-only: written in full under a temporary name, then linked to the final one, so
    // two updaters starting at once agree on one id (the loser reads the winner's).
    let temporary = directory.appendingPathComponent(".install-id-\(UUID().uuidString)")
    defer { try? FileManager.default.removeItem(at: temporary) }
    try Data(UUID().uuidString.utf8).write(to: temporary)
    if link(temporary.path, file.path) != 0 && errno != EEXIST {
      throw Unreadable(description: "\(file.path): cannot create: \(String(cString: strerror(errno)))")
    }
    guard let id = try read(file) else { throw Unreadable(description: "\(file.path): vanished after creation") }
    return id
  }

  /// The id in `file`; nil only when there is no such file.
  private static func read(_ file: URL) throws -> String? {
    let data: Data
    do { data = try Data(contentsOf: file) } catch {
      if !FileManager.default.fileExists(atPath: file.path) { return nil }
      throw Unreadable(description: "\(file.path): cannot read: \(error.localizedDescription)")
    }
    guard let text = String(data: data, encoding: .utf8), UUID(uuidString: text) != nil else {
      throw Unreadable(description: "\(file.path): holds no install id (\(data.count) bytes); kept as it is")
    }
    return text
  }
}
