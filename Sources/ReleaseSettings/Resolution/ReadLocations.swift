import Foundation
import ReleaseCore
import ReleaseNetwork
import ReleasePublishing

// Locations a command reads from, given on its command line: checked here, with the rest of the
// URL policy, so no command reads from a location the settings phase did not accept (no
// credential in a URL, plain http only to this machine, a bucket name S3 accepts).

/// `s3://<bucket>[/<key>]`, as the model store, `ota verify` and `ota evaluate --outcomes` take it.
package enum S3Location {
  /// The bucket and the key (or prefix; may be empty); nil when the bucket is no bucket name or
  /// the key has characters, empty segments, `.` or `..` that no key of ours has.
  package static func parse(_ location: String) -> (bucket: String, key: String)? {
    guard location.lowercased().hasPrefix("s3://") else { return nil }
    let rest = location.dropFirst("s3://".count)
    let parts = rest.split(separator: "/", maxSplits: 1).map(String.init)
    let key = parts.count > 1 ? parts[1] : ""
    guard let bucket = parts.first, PublishDestination.isValidBucket(bucket),
      key.allSatisfy(PublishDestination.isKeyCharacter),
      !key.split(separator: "/", omittingEmptySubsequences: false).contains(where: {
        $0.isEmpty || $0 == "." || $0 == ".."
      })
        || key.isEmpty
    else { return nil }
    return (bucket, key)
  }
}

/// A URL as messages show it: without its query or fragment, which may hold a presigned
/// signature.
package enum ShownURL {
  package static func text(of url: URL) -> String {
    guard var components = URLComponents(url: url, resolvingAgainstBaseURL: false) else { return "the URL" }
    let hidden = components.query != nil || components.fragment != nil
    components.query = nil
    components.fragment = nil
    return (components.string ?? "the URL") + (hidden ? "?…" : "")
  }
}

/// Where `release ota verify` reads the published channels from.
package enum ChannelSource: Equatable, Sendable {
  case directory(path: String)
  case s3(bucket: String, prefix: String)
  /// `https://…`, or `http://` to this machine; without a trailing `/`.
  case web(String)

  static func parse(_ text: String, services: Services) throws -> ChannelSource {
    let lower = text.lowercased()
    let expected = "expected dir:<path>, s3://<bucket>[/<prefix>] or https://<host>[/<path>]"
    if URLCredentials.carriesCredential(text) {
      throw ReleaseError.usage(
        "ota verify \(URLCredentials.redacted(text)): found a credential in the URL, which shows in the process list and in messages; \(expected) (s3:// reads the AWS_* variables)"
      )
    }
    if lower.hasPrefix("s3://") {
      var trimmed = text
      while trimmed.hasSuffix("/") { trimmed.removeLast() }
      guard let (bucket, prefix) = S3Location.parse(trimmed) else {
        throw ReleaseError.usage(
          "ota verify \(text.prefix(200)): not a bucket location; expected s3://<bucket>[/<prefix>] with a bucket of 3-63 lower-case letters, digits, '-' or '.'"
        )
      }
      return .s3(bucket: bucket, prefix: prefix)
    }
    if lower.hasPrefix("https://") || lower.hasPrefix("http://") {
      guard let url = URL(string: text), let host = url.host, !host.isEmpty else {
        throw ReleaseError.usage("ota verify \(text.prefix(200)): not a URL; \(expected)")
      }
      guard url.query == nil, url.fragment == nil else {
        throw ReleaseError.usage(
          "ota verify \(ShownURL.text(of: url)): found a query or fragment; expected https://<host>[/<path>], the base the channel is served from"
        )
      }
      if url.scheme?.lowercased() == "http", !LoopbackHost.contains(host) {
        throw ReleaseError.usage(
          "ota verify \(text.prefix(200)): plain http only to 127.0.0.1, ::1 or localhost; expected https:// as devices read it"
        )
      }
      var base = text
      while base.hasSuffix("/") { base.removeLast() }
      return .web(base)
    }
    let path = text.hasPrefix("dir:") ? String(text.dropFirst(4)) : text
    guard !path.isEmpty, !path.contains("://") else {
      throw ReleaseError.usage("ota verify \(text.prefix(200)): not a destination; \(expected)")
    }
    var isDirectory: ObjCBool = false
    guard FileManager.default.fileExists(atPath: services.resolve(path).path, isDirectory: &isDirectory),
      isDirectory.boolValue
    else {
      throw ReleaseError.usage(
        "ota verify \(text.prefix(200)): found no directory there; expected the directory the channels were published to"
      )
    }
    return .directory(path: path)
  }

}

/// Where `release ota evaluate --outcomes` reads the analytics export from.
package enum OutcomesLocation: Equatable, Sendable {
  /// A file, as typed (relative to the project).
  case file(String)
  case s3(location: String, bucket: String, key: String)
  /// `https://…`, or `http://` to this machine.
  case web(URL)

  /// `option` names the flag in messages.
  static func parse(_ location: String, option: String) throws -> OutcomesLocation {
    let lower = location.lowercased()
    guard lower.hasPrefix("http://") || lower.hasPrefix("https://") || lower.hasPrefix("s3://") else {
      return .file(location)
    }
    if URLCredentials.carriesCredential(location) {
      throw ReleaseError.usage(
        "\(option) \(URLCredentials.redacted(location)): a credential in a URL shows in the process list and in messages; use s3:// with the AWS_* variables for a private file"
      )
    }
    if let (bucket, key) = S3Location.parse(location), !key.isEmpty {
      return .s3(location: location, bucket: bucket, key: key)
    }
    if !lower.hasPrefix("s3://"), let url = URL(string: location), url.host?.isEmpty == false {
      if url.scheme?.lowercased() == "http", !LoopbackHost.contains(url.host ?? "") {
        throw ReleaseError.usage(
          "\(option) \(ShownURL.text(of: url)): plain http only to 127.0.0.1, ::1 or localhost; outcomes elsewhere must come over https"
        )
      }
      return .web(url)
    }
    throw ReleaseError.usage(
      "\(option) \(lower.hasPrefix("s3://") ? location : "the URL"): expected a file, https://<host>/<path> or s3://<bucket>/<key>"
    )
  }
}

extension SettingsResolution {
  /// `ota verify`'s first argument: where the channels are read from.
  package func channelSource(_ text: String) throws -> ChannelSource {
    try ChannelSource.parse(text, services: services)
  }

  /// `ota evaluate --outcomes`: where the export is read from; `option` names the flag.
  package func outcomesLocation(_ text: String, option: String) throws -> OutcomesLocation {
    try OutcomesLocation.parse(text, option: option)
  }
}
