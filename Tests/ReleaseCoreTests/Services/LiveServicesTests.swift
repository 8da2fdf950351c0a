import Foundation
import ReleaseNetwork
import XCTest

@testable import ReleaseCore

/// The run's HTTP client takes its proxies from the environment the run read at start, not
/// from the process's own, where a proxy with a credential no longer is.
final class LiveServicesTests: XCTestCase {
  func testTheHTTPClientGetsTheProxiesOfTheEnvironmentTheRunRead() throws {
    let proxy = "http://proxy-user:proxy-pass@proxy.example:3128"
    let services = Services.live(environment: ["https_proxy": proxy, "no_proxy": "localhost"])
    let client = try XCTUnwrap(services.http as? CurlHTTPClient)
    XCTAssertEqual(client.proxies.proxy(for: URL(string: "https://bucket.example/key")!), proxy)
    XCTAssertEqual(client.proxies.noProxy, "localhost")
  }
}
