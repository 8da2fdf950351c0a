import Foundation
import ReleaseNetwork
import ReleaseSystem
import XCTest

/// A proxy URL with a credential is a secret the run takes out of its process environment at
/// start, so libcurl cannot read it there: the client gets the proxies from the environment the
/// run read (`CurlProxies`). Tests/Fixtures/Network/fault_server.py on 127.0.0.1 plays the
/// proxy for `http://` URLs: it answers the absolute URL it is sent, so `/echo` shows the
/// headers that reached the proxy.
final class CurlProxyTests: XCTestCase {
  private func client(_ environment: [String: String]) -> CurlHTTPClient {
    CurlHTTPClient(
      retryPolicy: .singleAttempt, connectTimeout: 2, proxies: CurlProxies(environment: environment))
  }

  private func echoedHeaders(_ response: HTTPResponse) throws -> [String: String] {
    let report = try XCTUnwrap(try JSONSerialization.jsonObject(with: response.body) as? [String: Any])
    return try XCTUnwrap(report["headers"] as? [String: String])
  }

  func testTheProxyWithItsCredentialCarriesTheRequest() throws {
    let server = try FaultServer()
    // `%40` in the URL is an `@` of the password.
    let client = client(["http_proxy": "http://proxy-user:pass%40word@127.0.0.1:\(server.port)"])
    let response = try client.send(HTTPRequest(.get, URL(string: "http://origin.invalid/echo")!))
    XCTAssertEqual(response.status, 200)
    let headers = try echoedHeaders(response)
    XCTAssertEqual(headers["host"], "origin.invalid", "the proxy was asked for the origin")
    XCTAssertEqual(
      headers["proxy-authorization"], "Basic " + Data("proxy-user:pass@word".utf8).base64EncodedString())
  }

  func testAHostInNoProxyIsReachedDirectly() throws {
    let server = try FaultServer()
    let unused = try unusedLocalPort()
    let client = client([
      "http_proxy": "http://user:pass@127.0.0.1:\(unused)", "no_proxy": "localhost,127.0.0.1",
    ])
    let response = try client.send(HTTPRequest(.get, server.url("/echo")))
    XCTAssertNil(try echoedHeaders(response)["proxy-authorization"])
  }

  /// The variables libcurl itself would read for each scheme, in its order (lower case first;
  /// never `HTTP_PROXY`, which a CGI request can set through a `Proxy:` header).
  func testEachSchemeTakesTheVariablesLibcurlWould() {
    let http = URL(string: "http://origin.example/a")!
    let https = URL(string: "https://origin.example/a")!
    let all = ["all_proxy": "http://all", "ALL_PROXY": "http://ALL"]
    XCTAssertEqual(
      CurlProxies(environment: all.merging(["http_proxy": "http://h"]) { $1 }).proxy(for: http), "http://h")
    XCTAssertEqual(
      CurlProxies(environment: all.merging(["HTTP_PROXY": "http://H"]) { $1 }).proxy(for: http), "http://all")
    XCTAssertEqual(CurlProxies(environment: ["HTTPS_PROXY": "http://S"]).proxy(for: https), "http://S")
    XCTAssertEqual(
      CurlProxies(environment: ["https_proxy": "http://s", "HTTPS_PROXY": "http://S"]).proxy(for: https),
      "http://s")
    XCTAssertEqual(CurlProxies(environment: ["ALL_PROXY": "http://ALL"]).proxy(for: https), "http://ALL")
    XCTAssertNil(CurlProxies(environment: ["http_proxy": "http://h"]).proxy(for: https))
    XCTAssertNil(CurlProxies(environment: all).proxy(for: URL(fileURLWithPath: "/tmp/x")))
    // An empty variable means no proxy, as in libcurl, rather than the next variable's.
    XCTAssertNil(CurlProxies(environment: all.merging(["https_proxy": ""]) { $1 }).proxy(for: https))
  }

  func testAProxyThatCannotBeReachedIsNamedWithoutItsCredential() throws {
    let secret = "RELEASE-TEST-SECRET-\(UUID().uuidString)"
    let unused = try unusedLocalPort()
    let client = client(["https_proxy": "http://proxy-user:\(secret)@127.0.0.1:\(unused)"])
    XCTAssertThrowsError(try client.send(HTTPRequest(.get, URL(string: "https://origin.invalid/a")!))) {
      error in
      guard case NetworkError.transferFailed = error else {
        return XCTFail("expected a transfer failure: \(error)")
      }
      XCTAssertFalse("\(error)".contains(secret), "\(error)")
      XCTAssertTrue("\(error)".contains("127.0.0.1"), "the proxy's address is named: \(error)")
    }
  }
}
