import Foundation
import ReleaseSigning
import ReleaseSystem

#if canImport(Glibc)
  import Glibc
#elseif canImport(Darwin)
  import Darwin
#endif

/// Writes a new key pair as `<dir>/<name>.pem` (the private half, PKCS#8, mode 0600) and
/// `<dir>/<name>.pub` (the public half, SubjectPublicKeyInfo). Each file appears complete or
/// not at all (written to a temporary sibling, then linked into place) and never replaces a
/// file: a key that exists stays as it is.
enum KeyPairFiles {
  enum WriteError: Error, Equatable, CustomStringConvertible {
    case invalidName(String)
    case exists(String)
    case notDirectory(String)
    case cannotWrite(String, reason: String)

    var description: String {
      switch self {
      case .invalidName(let name):
        return
          "--name \(name.prefix(60)): expected letters, digits, '-', '_' or '.', not starting with '.' or '-' (e.g. ota-2026)"
      case .exists(let path):
        return "\(path) already exists; a key is never overwritten: choose another --name or directory"
      case .notDirectory(let path): return "\(path): exists and is not a directory"
      case .cannotWrite(let path, let reason): return "\(path): cannot write: \(reason)"
      }
    }
  }

  static func isValidName(_ name: String) -> Bool {
    (1...64).contains(name.count) && !name.hasPrefix(".") && !name.hasPrefix("-")
      && name.unicodeScalars.allSatisfy {
        ("a"..."z").contains($0) || ("A"..."Z").contains($0) || ("0"..."9").contains($0)
          || "-_.".unicodeScalars
            .contains($0)
      }
  }

  /// `file` under `displayDirectory`, as messages name it: the directory as typed, with one
  /// `/` between.
  static func displayPath(of file: String, in displayDirectory: String) -> String {
    displayDirectory.hasSuffix("/") ? displayDirectory + file : "\(displayDirectory)/\(file)"
  }

  /// Writes `key` under `directory` (created if missing); `displayDirectory` names it in
  /// messages. Returns the display paths of the private and the public file.
  static func write(_ key: SigningKey, to directory: URL, displayDirectory: String, name: String)
    throws(WriteError) -> (privateFile: String, publicFile: String)
  {
    guard isValidName(name) else { throw .invalidName(name) }
    let display = { (file: String) in displayPath(of: file, in: displayDirectory) }
    let privateURL = directory.appendingPathComponent("\(name).pem")
    let publicURL = directory.appendingPathComponent("\(name).pub")
    var isDirectory: ObjCBool = false
    if FileManager.default.fileExists(atPath: directory.path, isDirectory: &isDirectory) {
      guard isDirectory.boolValue else { throw .notDirectory(displayDirectory) }
    } else {
      try createOwnersDirectory(directory, display: displayDirectory)
    }
    // Both names are checked first, so a refused run writes neither file.
    for (url, file) in [(privateURL, "\(name).pem"), (publicURL, "\(name).pub")]
    where FileManager.default.fileExists(atPath: url.path) {
      throw .exists(display(file))
    }
    try createExclusively(
      Data(key.pemEncoded.utf8), at: privateURL, mode: 0o600, display: display("\(name).pem"))
    do {
      try createExclusively(
        Data(key.publicKey.pemEncoded.utf8), at: publicURL, mode: 0o644, display: display("\(name).pub"))
    } catch {
      // The private half alone is of no use; it was made by this call, so it goes.
      unlink(privateURL.path)
      throw error
    }
    return (display("\(name).pem"), display("\(name).pub"))
  }

  /// Creates `directory` (its parents as usual) with mode 0700 whatever the umask: a key
  /// directory is its owner's alone.
  private static func createOwnersDirectory(_ directory: URL, display: String) throws(WriteError) {
    do { try AtomicFile.createDirectory(directory.deletingLastPathComponent()) } catch {
      throw .cannotWrite(display, reason: "\(error)")
    }
    guard mkdir(directory.path, 0o700) == 0 || errno == EEXIST, chmod(directory.path, 0o700) == 0 else {
      throw .cannotWrite(display, reason: String(cString: strerror(errno)))
    }
  }

  /// Writes `data` to a temporary sibling created with `mode` (never wider, whatever the
  /// umask allows), syncs it, and links it to `url`: link(2) fails when `url` exists, so an
  /// existing file is never replaced, and a reader never sees a partial file.
  private static func createExclusively(_ data: Data, at url: URL, mode: mode_t, display: String)
    throws(WriteError)
  {
    let temporary = AtomicFile.temporarySibling(of: url)
    let descriptor = open(temporary.path, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, mode)
    guard descriptor >= 0 else { throw .cannotWrite(display, reason: String(cString: strerror(errno))) }
    defer { unlink(temporary.path) }
    var failure: Int32 = 0
    if fchmod(descriptor, mode) != 0 { failure = errno }
    data.withUnsafeBytes { buffer in
      var offset = 0
      while failure == 0, offset < buffer.count {
        let written = systemWrite(descriptor, buffer.baseAddress! + offset, buffer.count - offset)
        if written < 0 {
          if errno != EINTR { failure = errno }
        } else {
          offset += written
        }
      }
    }
    if failure == 0, fsync(descriptor) != 0 { failure = errno }
    close(descriptor)
    guard failure == 0 else { throw .cannotWrite(display, reason: String(cString: strerror(failure))) }
    guard link(temporary.path, url.path) == 0 else {
      if errno == EEXIST { throw .exists(display) }
      throw .cannotWrite(display, reason: String(cString: strerror(errno)))
    }
    AtomicFile.sync(url.deletingLastPathComponent())
  }
}

/// write(2), named apart from the enum's own `write`.
private func systemWrite(_ descriptor: Int32, _ buffer: UnsafeRawPointer, _ count: Int) -> Int {
  write(descriptor, buffer, count)
}
