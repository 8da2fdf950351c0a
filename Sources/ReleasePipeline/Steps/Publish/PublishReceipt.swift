import Foundation
import ReleaseSystem

/// `published.json` beside a release in `dist/<id>/<version>/`, written once the release's
/// files, its signature among them, are in every object store of a signing run (an unsigned
/// release gets none, so its directory stays as it was): `release verify` then requires the
/// signature (`signature`, the `.sig` beside the zip) with trusted keys, so a release whose
/// `.sig` went missing fails instead of passing unsigned.
package struct PublishReceipt: Codable, Equatable {
  package static let fileName = "published.json"
  /// A receipt is a few hundred bytes; a bigger file is not one.
  static let maximumSize = 64 * 1024

  /// The signature's file name beside the zip.
  package var signature: String
  /// Where it was published (destinations as shown in messages, never with a credential).
  package var destinations: [String]

  /// Why a receipt cannot be read (one line).
  package struct ReadError: Error, CustomStringConvertible {
    package let description: String
  }

  /// The receipt in `directory`; nil when there is none.
  package static func load(from directory: URL) throws(ReadError) -> PublishReceipt? {
    let url = directory.appendingPathComponent(fileName)
    guard FileManager.default.fileExists(atPath: url.path) else { return nil }
    let data: Data
    do {
      let handle = try RegularFile.handle(url)
      defer { try? handle.close() }
      data = try handle.read(upToCount: maximumSize + 1) ?? Data()
    } catch {
      throw ReadError(description: "\(fileName): cannot be read (\(error))")
    }
    guard data.count <= maximumSize else {
      throw ReadError(description: "\(fileName): larger than \(maximumSize) bytes, not a receipt")
    }
    do { return try JSONDecoder().decode(PublishReceipt.self, from: data) } catch {
      throw ReadError(description: "\(fileName): not a publish receipt (\(error))")
    }
  }

  /// Writes the receipt into `directory` (atomically, keys sorted).
  func write(to directory: URL) throws {
    try AtomicFile.write(try StableJSON.encode(self), to: directory.appendingPathComponent(Self.fileName))
  }
}
