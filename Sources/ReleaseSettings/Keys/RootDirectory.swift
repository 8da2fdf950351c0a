import Foundation
import ReleaseCore
import ReleaseOTA

/// The channel's root documents as committed: `<dir>/1.json`, `<dir>/2.json`, … (`signing.root`
/// in release.config.json, relative to that file), read up to the first number missing and
/// opened as a chain.
package enum RootDirectory {
  package static let defaultPath = "ota-root"

  /// The directory `configuration` names, resolved, with how messages name it.
  package static func location(_ configuration: ReleaseConfiguration, services: Services) -> (
    url: URL, display: String
  ) {
    let display = configuration.root ?? defaultPath
    let base = services.resolve(configuration.path).deletingLastPathComponent()
    let url = display.hasPrefix("/") ? URL(fileURLWithPath: display) : base.appendingPathComponent(display)
    return (url.standardizedFileURL, display)
  }

  package static func file(_ display: String, version: Int) -> String { "\(display)/\(version).json" }

  /// The chain in the directory; nil when it holds no `1.json`.
  package static func load(_ url: URL, display: String) throws(ChannelRoot.RootError) -> RootChain? {
    var envelopes: [Data] = []
    var locations: [String] = []
    while envelopes.count < RootChain.maximumLength {
      let version = envelopes.count + 1
      let fileURL = url.appendingPathComponent("\(version).json")
      guard FileManager.default.fileExists(atPath: fileURL.path) else { break }
      // A root document is a few kilobytes; anything much larger is not one.
      guard let data = try? Data(contentsOf: fileURL), data.count <= 1 << 20 else {
        throw .malformed(location: file(display, version: version), problems: ["cannot be read"])
      }
      envelopes.append(data)
      locations.append(file(display, version: version))
    }
    guard !envelopes.isEmpty else { return nil }
    return try RootChain(envelopes: envelopes, locations: locations)
  }
}
