import Foundation

/// The last manifest this device accepted, with its `ETag`, and when the channel was last
/// checked: `<models directory>/manifest-cache.json`. It lets an update ask the server for the
/// manifest only if it changed (`If-None-Match`) and skip a check made too soon after the last
/// one. It lives with the models, where the system may delete it: then the next update fetches
/// the whole manifest. What it holds is checked again like a manifest from the network.
struct ManifestCache: Codable, Equatable, Sendable {
  /// The manifest URL it was fetched from: another URL's cache is not used.
  var url: String
  /// Seconds since 1970 of the last check the server answered.
  var checkedAt: Double
  /// The accepted manifest's `ETag` and bytes (the signed envelope, or the legacy JSON).
  var entityTag: String?
  var manifest: Data?

  static let fileName = "manifest-cache.json"

  static func read(in directory: URL, for url: URL) -> ManifestCache? {
    guard let data = try? Data(contentsOf: directory.appendingPathComponent(fileName)),
      let cache = try? JSONDecoder().decode(ManifestCache.self, from: data), cache.url == url.absoluteString
    else { return nil }
    return cache
  }

  /// When the next check is due, for `interval`; a check recorded in the future (the clock
  /// was moved back) makes one due now.
  func nextCheck(interval: TimeInterval, now: Date) -> Date? {
    let checked = Date(timeIntervalSince1970: checkedAt)
    guard checked <= now else { return nil }
    let next = checked.addingTimeInterval(interval)
    return next > now ? next : nil
  }

  /// The `If-None-Match` value: only with a manifest to fall back on when the answer is 304.
  var conditionalTag: String? { manifest == nil ? nil : entityTag }

  func write(in directory: URL) {
    guard let data = try? JSONEncoder().encode(self) else { return }
    try? FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
    try? data.write(to: directory.appendingPathComponent(Self.fileName), options: .atomic)
  }
}
