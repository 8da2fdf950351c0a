import Foundation

/// The device rule of over-the-air rollouts, which any client can implement the same way:
///
/// - A device's **bucket** for a model entry is the first 4 bytes of
///   SHA-256(`"<salt>:<installID>"`, UTF-8) read as a big-endian unsigned 32-bit integer,
///   modulo 100. Each entry has its own salt, so each rollout samples devices independently,
///   and raising an entry's percentage only adds devices.
/// - For each flow, unless the flow is `paused`, the device takes the highest `modelVersion`
///   that is `active`, has `minimumSDKVersion` ≤ the SDK's version, is above `bundledVersion`
///   (and above the model bundled in its own build), has a specification version the SDK
///   reads, and has bucket < `rolloutPercent`. Otherwise it uses the bundled model.
/// - A `retracted` entry the device has downloaded is deleted.
enum RolloutRule {
  static func bucket(salt: String, installID: String) -> Int {
    let digest = SHA256Digest.hex(of: Data("\(salt):\(installID)".utf8))
    let first = UInt32(digest.prefix(8), radix: 16) ?? 0
    return Int(first % 100)
  }

  /// The model the device takes for `flow`, nil for the bundled one.
  static func choice(
    for flow: ModelManifest.Flow, bundledVersion: Int, sdkVersion: String, maximumSpecificationVersion: Int,
    installID: String
  ) -> ModelManifest.Model? {
    guard !flow.paused else { return nil }
    let floor = max(flow.bundledVersion, bundledVersion)
    return flow.models.filter { model in
      model.status == .active && model.modelVersion > floor
        && SemanticVersionOrder.isAtMost(model.minimumSDKVersion, sdkVersion)
        && model.specificationVersion <= maximumSpecificationVersion
        && bucket(salt: model.salt, installID: installID) < model.rolloutPercent
    }.max { $0.modelVersion < $1.modelVersion }
  }
}

/// `major.minor.patch` comparison; anything else never compares as "at most", so an entry
/// with a version this SDK cannot read is skipped rather than taken.
enum SemanticVersionOrder {
  static func isAtMost(_ version: String, _ other: String) -> Bool {
    guard let a = parse(version), let b = parse(other) else { return false }
    return !b.lexicographicallyPrecedes(a)
  }

  static func parse(_ text: String) -> [Int]? {
    let parts = text.split(separator: ".", omittingEmptySubsequences: false).map { Int($0) }
    guard parts.count == 3, parts.allSatisfy({ $0 != nil && $0! >= 0 }) else { return nil }
    return parts.map { $0! }
  }
}
