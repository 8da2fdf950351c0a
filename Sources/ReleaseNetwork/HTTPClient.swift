import Foundation

/// The HTTP seam of the tool: everything that talks to a server goes through this, so tests
/// can substitute a fake. `CurlHTTPClient` is the real one.
///
/// Contract: `send` returns only a response whose status is in `request.acceptedStatuses`;
/// any other status, and any transfer failure, is thrown as a `NetworkError`. Local file
/// problems (body unreadable, destination unwritable) are thrown as `SystemError`.
public protocol HTTPClient: Sendable {
  func send(_ request: HTTPRequest) throws -> HTTPResponse
}

public enum HTTPMethod: String, Sendable {
  case get = "GET"
  case head = "HEAD"
  case put = "PUT"
  case delete = "DELETE"
}

/// What a request sends.
public enum HTTPRequestBody: Sendable, Equatable {
  case empty
  case data(Data)
  /// Streamed from the file as the transfer runs, never loaded whole.
  case file(URL)
}

/// Where a response body goes.
public enum HTTPResponseDestination: Sendable, Equatable {
  /// Into `HTTPResponse.body`.
  case memory
  /// Into this file, which appears (atomically, by rename) only after a 2xx response
  /// arrived in full; on any failure nothing exists under this name. Non-2xx bodies
  /// (error documents) go to `HTTPResponse.body` instead.
  case file(URL)
}

/// AWS Signature Version 4, computed by libcurl (`CURLOPT_AWS_SIGV4`).
///
/// libcurl does not send `x-amz-content-sha256`: requests to S3 must carry it in their
/// headers (the hex SHA-256 of the body, or of nothing for bodiless requests). The session
/// token, when the credentials have one, is added as `x-amz-security-token` by the client.
public struct AWSSigV4: Sendable {
  public var credentials: S3Credentials
  public var region: String
  public var service: String

  public init(credentials: S3Credentials, region: String, service: String = "s3") {
    self.credentials = credentials
    self.region = region
    self.service = service
  }
}

public struct HTTPRequest: Sendable {
  public var method: HTTPMethod
  public var url: URL
  /// Header names as they should be sent; values must not contain line breaks.
  public var headers: [String: String]
  public var body: HTTPRequestBody
  public var destination: HTTPResponseDestination
  public var signing: AWSSigV4?
  /// Statuses the caller handles; anything else is thrown as `NetworkError.unexpectedStatus`.
  public var acceptedStatuses: Set<Int>
  /// The most body bytes accepted; the transfer stops as soon as more arrive.
  public var maximumResponseSize: Int64?
  /// Protocols a redirect may lead to (libcurl's list); `"https"` keeps a transfer on TLS.
  public var redirectProtocols = "http,https"

  public static let successStatuses = Set(200...299)

  public init(
    _ method: HTTPMethod, _ url: URL, headers: [String: String] = [:], body: HTTPRequestBody = .empty,
    destination: HTTPResponseDestination = .memory, signing: AWSSigV4? = nil,
    acceptedStatuses: Set<Int> = HTTPRequest.successStatuses
  ) {
    self.method = method
    self.url = url
    self.headers = headers
    self.body = body
    self.destination = destination
    self.signing = signing
    self.acceptedStatuses = acceptedStatuses
  }
}

public struct HTTPResponse: Sendable, Equatable {
  /// The HTTP status; `file:` URLs, which have none, report 200 when read successfully.
  public var status: Int
  /// Headers of the final response, names lower-cased; repeated headers joined with ", ".
  public var headers: [String: String]
  /// The body, for `.memory` destinations and for non-2xx responses; empty otherwise.
  public var body: Data

  public init(status: Int, headers: [String: String] = [:], body: Data = Data()) {
    self.status = status
    self.headers = headers
    self.body = body
  }

  public func header(_ name: String) -> String? { headers[name.lowercased()] }
}
