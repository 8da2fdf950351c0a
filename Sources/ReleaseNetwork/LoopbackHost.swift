import Foundation

#if canImport(Glibc)
  import Glibc
#elseif canImport(Darwin)
  import Darwin
#endif

/// Whether a URL's host is this machine, where plain http (tests, a local store) may be used.
///
/// An address, not a name: a host is loopback when it parses as an IPv4 address in
/// 127.0.0.0/8 or as the IPv6 address ::1 (`inet_pton`, which takes only the plain forms), or
/// is exactly `localhost`. A name that merely starts like one (`127.attacker.example`,
/// `localhost.evil`) is anyone's host, and so are the forms resolvers take but `inet_pton`
/// does not (`2130706433`, `0x7f.1`): refused, which is the safe side.
public enum LoopbackHost {
  /// `host` as `URL.host` gives it: IPv6 with or without its brackets.
  public static func contains(_ host: String) -> Bool {
    var bare = host.lowercased()
    if bare.hasPrefix("[") && bare.hasSuffix("]") { bare = String(bare.dropFirst().dropLast()) }
    if bare == "localhost" { return true }
    var ipv4 = in_addr()
    if inet_pton(AF_INET, bare, &ipv4) == 1 {
      // s_addr is in network byte order: its first byte is the first octet.
      return withUnsafeBytes(of: &ipv4) { $0[0] } == 127
    }
    var ipv6 = in6_addr()
    if inet_pton(AF_INET6, bare, &ipv6) == 1 {
      return withUnsafeBytes(of: &ipv6) { bytes in bytes.prefix(15).allSatisfy { $0 == 0 } && bytes[15] == 1 }
    }
    return false
  }
}
