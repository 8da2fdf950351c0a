import CSystemShim
import Foundation

#if canImport(Glibc)
  import Glibc
#elseif canImport(Darwin)
  import Darwin
#endif

/// The process environment, read once at start, with its secrets taken out of the process.
///
/// `unsetenv` only unlinks a variable from `environ`: its bytes stay in the block the process
/// started with, which `/proc/<pid>/environ` shows to any process of the same user (a child
/// `swift` or `git`, or the package code `release verify` runs). So each secret is read, then
/// unlinked, then its `NAME=value` bytes are overwritten where they were.
public enum SecretEnvironment {
  /// Name parts of variables that hold credentials (cloud, CI and signing secrets).
  static let secretNameParts = [
    "SECRET", "TOKEN", "PASSWORD", "CREDENTIAL", "PRIVATE_KEY", "SIGNING_KEY", "API_KEY",
  ]

  /// Whether a variable holds a secret: every `AWS_*` variable, a name with one of
  /// `secretNameParts`, or a URL with user info (`https://user:password@host`). libcurl's proxy
  /// variables too when they carry a credential: the run hands them to libcurl itself
  /// (`CurlProxies`).
  public static func isSecret(name: String, value: String) -> Bool {
    let upper = name.uppercased()
    if upper.hasPrefix("AWS_") || secretNameParts.contains(where: { upper.contains($0) }) { return true }
    return hasURLCredential(value)
  }

  /// A URL with a credential anywhere in `value`, as `URLCredentials` (ReleasePublishing) judges
  /// one: any user info of an `http(s)://` URL (a bare token is a credential there), a password
  /// (`user:secret@`) in any other; a plain SSH user (`ssh://git@host/…`) is not one.
  static func hasURLCredential(_ value: String) -> Bool {
    var rest = Substring(value)
    while let separator = rest.range(of: "://") {
      let scheme = rest[..<separator.lowerBound].reversed().prefix { $0.isLetter || "+.-".contains($0) }
      let authority = rest[separator.upperBound...].prefix { !"/?#".contains($0) && !$0.isWhitespace }
      if let at = authority.lastIndex(of: "@") {
        let userInfo = authority[..<at]
        if ["http", "https"].contains(String(scheme.reversed()).lowercased()) || userInfo.contains(":") {
          return true
        }
      }
      rest = rest[separator.upperBound...]
    }
    return false
  }

  /// The environment as a dictionary, and no secret left in the process's own: each secret
  /// variable is read (into the result when `keepingSecrets`, else not at all), unlinked and
  /// its bytes overwritten with zeros. Call it before any other thread starts.
  public static func take(
    keepingSecrets: Bool, isSecret: (String, String) -> Bool = SecretEnvironment.isSecret
  ) -> [String: String] {
    var environment: [String: String] = [:]
    var secrets: [(name: String, entry: UnsafeMutablePointer<CChar>)] = []
    var index = 0
    while let entry = csystem_environ()?[index] {
      index += 1
      let text = String(cString: entry)
      guard let equals = text.firstIndex(of: "=") else { continue }
      let name = String(text[..<equals])
      let value = String(text[text.index(after: equals)...])
      let secret = isSecret(name, value)
      if secret { secrets.append((name, entry)) }
      // The first of two same-named entries wins, as getenv finds it.
      if (!secret || keepingSecrets) && environment[name] == nil { environment[name] = value }
    }
    for (name, entry) in secrets {
      let length = strlen(entry)
      unsetenv(name)
      memset(entry, 0, length)
    }
    return environment
  }

  /// On Linux, makes the process not dumpable (`prctl(PR_SET_DUMPABLE, 0)`): no core file,
  /// and its `/proc/<pid>/` files, `environ` and `mem` among them, are readable only by a
  /// process with `CAP_SYS_PTRACE`. Returns false when the call failed; elsewhere it does
  /// nothing and returns true.
  @discardableResult
  public static func forbidInspection() -> Bool {
    csystem_forbid_inspection() == 0
  }
}
