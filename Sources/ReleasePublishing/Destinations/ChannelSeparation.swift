import Foundation

/// Releases are private and the over-the-air channel public (devices read it anonymously), so
/// nothing public may reach a release: neither the over-the-air destination's bucket and
/// prefix nor the public URL devices read it from may cover a release destination, or lie
/// inside one.
package enum ChannelSeparation {
  /// Why the over-the-air destination `ota` would expose the release destination `release`
  /// (the same bucket, and one prefix holds the other); nil when they are apart.
  package static func overlap(ota: PublishDestination, release: PublishDestination) -> String? {
    guard case .s3(let otaBucket, let otaPrefix, _, _, _, _) = ota,
      case .s3(let bucket, let prefix, _, _, _, _) = release, otaBucket == bucket,
      nested(segments(otaPrefix), segments(prefix))
    else { return nil }
    let how =
      otaPrefix == prefix
      ? "is the same bucket and prefix as"
      : segments(otaPrefix).count < segments(prefix).count ? "holds" : "lies inside"
    return
      "\(ota) \(how) the release destination \(release); devices read the over-the-air destination anonymously and releases are private: use another bucket, or prefixes neither of which holds the other"
  }

  /// Why `publicURL` would serve the release destination `release` (the destination's S3 URL,
  /// path-style or virtual-hosted, at or below it); nil when it does not.
  package static func publicURLServes(_ publicURL: String, release: PublishDestination) -> String? {
    guard case .s3(let bucket, let prefix, let endpoint, _, _, _) = release,
      let url = URL(string: publicURL), let host = authority(url)
    else { return nil }
    let path = segments(url.path)
    let endpointHost = endpoint.flatMap { URL(string: $0) }.flatMap(authority)
    let isServiceHost = { (candidate: String) -> Bool in
      if let endpointHost { return candidate == endpointHost }
      // AWS S3: s3.amazonaws.com, s3.<region>.amazonaws.com, s3-<region>.amazonaws.com.
      return candidate.hasSuffix(".amazonaws.com") && candidate.hasPrefix("s3")
    }
    let servedPrefix: [String]
    if isServiceHost(host), path.first == bucket {
      servedPrefix = Array(path.dropFirst())
    } else if host.hasPrefix(bucket + "."), isServiceHost(String(host.dropFirst(bucket.count + 1))) {
      servedPrefix = path
    } else {
      return nil
    }
    guard nested(servedPrefix, segments(prefix)) else { return nil }
    return
      "serves the release destination \(release), which must stay private; the public URL is where devices read the over-the-air files (publish.otaDestination): serve only that there"
  }

  /// `host[:port]`, lower-case, the port left out when it is the scheme's default.
  private static func authority(_ url: URL) -> String? {
    guard let host = url.host?.lowercased(), !host.isEmpty else { return nil }
    let defaultPort = url.scheme?.lowercased() == "http" ? 80 : 443
    guard let port = url.port, port != defaultPort else { return host }
    return "\(host):\(port)"
  }

  private static func segments(_ text: String) -> [String] {
    text.split(separator: "/").map(String.init)
  }

  /// Whether one list of path segments starts with the other.
  private static func nested(_ a: [String], _ b: [String]) -> Bool {
    a.count <= b.count ? Array(b.prefix(a.count)) == a : Array(a.prefix(b.count)) == b
  }
}
