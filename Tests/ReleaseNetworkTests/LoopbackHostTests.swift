import ReleaseNetwork
import XCTest

/// Loopback is decided on the address, never on how a name starts.
final class LoopbackHostTests: XCTestCase {
  func testOnlyLoopbackAddressesAndLocalhostAreLoopback() {
    for host in ["127.0.0.1", "127.255.0.9", "::1", "[::1]", "0:0:0:0:0:0:0:1", "localhost", "LOCALHOST"] {
      XCTAssertTrue(LoopbackHost.contains(host), host)
    }
    for host in [
      "127.attacker.example", "127.0.0.1.attacker.example", "localhost.attacker.example", "128.0.0.1",
      "10.0.0.1", "::2", "[::1.evil]", "2130706433", "0x7f.0.0.1", "127.1", "", "::ffff:127.0.0.1",
    ] {
      XCTAssertFalse(LoopbackHost.contains(host), host)
    }
  }
}
