import Foundation
import ReleaseSigning

/// Every root document of a channel, version 1 first, each shown to follow the one before
/// (`ChannelRoot.open`): what `release ota root` writes, `ota publish` publishes as
/// `ota/<channel>/root-<n>.json` and packages embed the newest of.
package struct RootChain: Equatable, Sendable {
  package let roots: [ChannelRoot]
  /// The envelopes as read, in the same order: published byte for byte.
  package let envelopes: [Data]

  /// The most root documents a chain may hold: a rotation is rare, a chain of thousands is not
  /// one an operator made.
  package static let maximumLength = 1_000

  /// Opens `envelopes` in order (`locations` name them in errors).
  package init(envelopes: [Data], locations: [String]) throws(ChannelRoot.RootError) {
    var roots: [ChannelRoot] = []
    for (index, envelope) in envelopes.enumerated() {
      roots.append(try ChannelRoot.open(envelope, after: roots.last, location: locations[index]))
    }
    guard !roots.isEmpty else {
      throw .malformed(location: locations.first ?? "root", problems: ["no root document"])
    }
    self.roots = roots
    self.envelopes = envelopes
  }

  package var current: ChannelRoot { roots[roots.count - 1] }

  /// Manifest keys of an earlier root that the current one no longer lists, oldest first.
  package var retiredManifestKeys: [PublicKey] {
    var retired: [PublicKey] = []
    for root in roots.dropLast() {
      for key in root.manifest.keys where !current.manifest.keys.contains(key) && !retired.contains(key) {
        retired.append(key)
      }
    }
    return retired
  }

  /// `ota/<channel>/root-<version>.json`.
  package static func publishedKey(channel: String, version: Int) -> String {
    "ota/\(channel)/root-\(version).json"
  }
}
