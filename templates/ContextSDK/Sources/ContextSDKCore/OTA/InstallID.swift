import Foundation

/// A random id for this installation of the app, made once and kept in a file: rollouts pick
/// devices by it, so a device stays in or out of a rollout from launch to launch.
///
/// Only a missing file makes a new id. A file that is there but cannot be read (a file
/// protected while the device is locked, an I/O error) or holds no id is reported and kept:
/// replacing it would move the device into other buckets of every rollout.
enum InstallID {
  typealias Unreadable = InstallIDError

  static func load(from directory: URL) throws(Unreadable) -> String {
    let file = directory.appendingPathComponent("install-id")
    if let id = try read(file) { return id }
    // Create-only: written in full under a temporary name, then linked to the final one, so
    // two updaters starting at once agree on one id (the loser reads the winner's).
    let temporary = directory.appendingPathComponent(".install-id-\(UUID().uuidString)")
    defer { try? FileManager.default.removeItem(at: temporary) }
    do {
      try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
      try Data(UUID().uuidString.utf8).write(to: temporary)
    } catch {
      throw .cannotCreate(path: file.path, reason: error.localizedDescription)
    }
    if link(temporary.path, file.path) != 0 && errno != EEXIST {
      throw .cannotCreate(path: file.path, reason: String(cString: strerror(errno)))
    }
    guard let id = try read(file) else { throw .cannotCreate(path: file.path, reason: "vanished after creation") }
    return id
  }

  /// The id in `file`; nil only when there is no such file.
  private static func read(_ file: URL) throws(Unreadable) -> String? {
    let data: Data
    do { data = try Data(contentsOf: file) } catch {
      if !FileManager.default.fileExists(atPath: file.path) { return nil }
      throw .cannotRead(path: file.path, reason: error.localizedDescription)
    }
    guard let text = String(data: data, encoding: .utf8), UUID(uuidString: text) != nil else {
      throw .notAnID(path: file.path, byteCount: data.count)
    }
    return text
  }
}

/// Why there is no install id: the device then takes part in no rollout and keeps the models
/// it has.
public enum InstallIDError: Error, Equatable, Sendable, CustomStringConvertible, LocalizedError {
  /// There was no id, and none could be written.
  case cannotCreate(path: String, reason: String)
  /// The file is there but cannot be read (protected while the device is locked, an I/O error).
  case cannotRead(path: String, reason: String)
  /// The file holds no install id; it is kept as it is.
  case notAnID(path: String, byteCount: Int)

  public var description: String {
    switch self {
    case .cannotCreate(let path, let reason): "\(path): cannot create: \(reason)"
    case .cannotRead(let path, let reason): "\(path): cannot read: \(reason)"
    case .notAnID(let path, let byteCount): "\(path): holds no install id (\(byteCount) bytes); kept as it is"
    }
  }

  public var errorDescription: String? { description }
}
