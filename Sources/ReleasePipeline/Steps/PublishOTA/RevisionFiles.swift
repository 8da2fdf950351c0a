import Foundation
import ReleasePublishing
import ReleaseSystem

extension ObjectStore {
  /// Creates an over-the-air channel's immutable revision file (legacy or signed); false when
  /// the key holds other contents. The same bytes there (a rerun of a publish that died before
  /// the pointer) count as created.
  func createRevision(_ bytes: Data, key: String) throws -> Bool {
    let scratch = try TemporaryFiles.shared.makeDirectory(prefix: "release-ota")
    defer { try? FileManager.default.removeItem(at: scratch) }
    let file = scratch.appendingPathComponent("models.json")
    try AtomicFile.write(bytes, to: file)
    if try createOnly(key, from: file, contentType: "application/json") { return true }
    return try digest(of: key)?.sha256 == SHA256Digest.hex(of: bytes)
  }
}
