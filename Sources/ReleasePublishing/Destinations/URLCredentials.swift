import Foundation

/// Credentials never travel in URLs the tool is given: a URL ends up in packages (README,
/// release.json, customer.json), in indexes, in `ps` and in messages. Credentials come from the
/// environment (`AWS_*`), a git credential helper or an SSH agent instead.
package enum URLCredentials {
  /// Whether `location` carries a credential: any user info in an `http(s)://` URL (a bare
  /// token is a credential there), a password (`user:secret@`) in any other URL or in an
  /// scp-like `user:secret@host:path`. A plain SSH user (`git@host:path`) is not one.
  package static func carriesCredential(_ location: String) -> Bool {
    guard let userInfo = userInfo(of: location) else { return false }
    let scheme = location.range(of: "://").map { location[..<$0.lowerBound].lowercased() }
    if scheme == "http" || scheme == "https" { return true }
    return userInfo.contains(":")
  }

  /// The location with its user info's secret replaced by `***`, safe for any message:
  /// `https://x:***@host/…`, `https://***@host/…`.
  package static func redacted(_ location: String) -> String {
    guard let userInfo = userInfo(of: location), let range = location.range(of: userInfo + "@") else {
      return location
    }
    let shown =
      userInfo.split(separator: ":", maxSplits: 1).count == 2 || userInfo.hasSuffix(":")
      ? String(userInfo.prefix { $0 != ":" }) + ":***" : "***"
    return location.replacingCharacters(in: range, with: shown + "@")
  }

  /// `text` (a command line, git's messages) with the user info of every `scheme://` URL in it
  /// redacted as `redacted` does, and every word that is a location carrying a credential
  /// (`user:secret@host:path`) too: git echoes remote URLs, credentials included.
  static func redactingLocations(in text: String) -> String {
    let words = text.split(separator: " ", omittingEmptySubsequences: false).map { word in
      carriesCredential(String(word)) ? redacted(String(word)) : String(word)
    }
    let joined = words.joined(separator: " ")
    // Inside other text (quoted, after a colon): the authority runs to the last `@` before
    // white space, a quote, `/`, `?` or `#`.
    let pattern = #"([A-Za-z][A-Za-z0-9+.\-]*://)([^\s/?#'"@]*(?:@[^\s/?#'"@]*)*)@"#
    guard let expression = try? NSRegularExpression(pattern: pattern) else { return joined }
    var result = joined
    for match in expression.matches(in: joined, range: NSRange(joined.startIndex..., in: joined)).reversed() {
      guard let userRange = Range(match.range(at: 2), in: joined) else { continue }
      let userInfo = joined[userRange]
      let shown = userInfo.contains(":") ? String(userInfo.prefix { $0 != ":" }) + ":***" : "***"
      if let target = Range(match.range(at: 2), in: result) { result.replaceSubrange(target, with: shown) }
    }
    return result
  }

  /// The user info part: between `://` and the last `@` of the authority, or for an scp-like
  /// location before the first `@` (when there is a `:` after it).
  private static func userInfo(of location: String) -> String? {
    if let schemeEnd = location.range(of: "://") {
      let rest = location[schemeEnd.upperBound...]
      let authority = rest.prefix { $0 != "/" && $0 != "?" && $0 != "#" }
      guard let at = authority.lastIndex(of: "@") else { return nil }
      return String(authority[..<at])
    }
    guard let at = location.firstIndex(of: "@"), location[location.index(after: at)...].contains(":") else {
      return nil
    }
    return String(location[..<at])
  }
}
