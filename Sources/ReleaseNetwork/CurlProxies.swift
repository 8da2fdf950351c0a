import Foundation

/// The proxies libcurl would read from the process environment, read instead from the
/// environment the run took at start. A proxy URL with a credential (`http://user:pass@proxy:3128`)
/// is a secret (`SecretEnvironment`): it is gone from the process environment, where any
/// same-user child could read it in `/proc/<pid>/environ`, so libcurl is handed the proxy
/// explicitly (`CURLOPT_PROXY`, `CURLOPT_NOPROXY`).
public struct CurlProxies: Equatable, Sendable {
  /// The proxy variables, by name, as the environment had them.
  private let variables: [String: String]

  /// The variables libcurl reads (`<scheme>_proxy`, `HTTPS_PROXY`, `all_proxy`, `ALL_PROXY`,
  /// `no_proxy`, `NO_PROXY`), taken from `environment`.
  public init(environment: [String: String]) {
    let names = [
      "http_proxy", "https_proxy", "HTTPS_PROXY", "all_proxy", "ALL_PROXY", "no_proxy", "NO_PROXY",
    ]
    variables = environment.filter { names.contains($0.key) }
  }

  /// The proxy for `url` as libcurl chooses it: `<scheme>_proxy`, then (not for http, where a
  /// CGI request's `Proxy:` header would set it) the upper-case name, then `all_proxy`,
  /// `ALL_PROXY`; the first one set decides, and an empty one means none. nil: no proxy (and
  /// none for URLs other than http and https).
  public func proxy(for url: URL) -> String? {
    guard let scheme = url.scheme?.lowercased(), scheme == "http" || scheme == "https" else { return nil }
    var names = ["\(scheme)_proxy"]
    if scheme != "http" { names.append("\(scheme.uppercased())_PROXY") }
    names += ["all_proxy", "ALL_PROXY"]
    guard let value = names.lazy.compactMap({ self.variables[$0] }).first, !value.isEmpty else { return nil }
    return value
  }

  /// The hosts that are reached directly (`no_proxy`, then `NO_PROXY`), for libcurl to match.
  public var noProxy: String? { variables["no_proxy"] ?? variables["NO_PROXY"] }

  /// The credential of every proxy URL (its password, or a user that has none: a bare token),
  /// as written and decoded: what an error message must never show.
  var credentials: [String] {
    variables.values.flatMap { value -> [String] in
      guard let components = URLComponents(string: value) else { return [] }
      let secret =
        components.percentEncodedPassword != nil
        ? [components.percentEncodedPassword, components.password]
        : [components.percentEncodedUser, components.user]
      return secret.compactMap { $0 }.filter { !$0.isEmpty }
    }
  }
}
