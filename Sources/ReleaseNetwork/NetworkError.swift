import Foundation

/// Failures talking to servers. Each renders as one line naming the method and URL (query
/// values and user info removed), what happened and what was expected. Never credentials:
/// the client scrubs the signing secret from anything a server or libcurl said.
public enum NetworkError: Error, CustomStringConvertible, Equatable {
  /// No HTTP answer: connection refused, timeout, TLS failure, protocol not allowed, ….
  case transferFailed(method: String, url: String, reason: String, attempts: Int)
  /// An HTTP answer with a status the caller does not handle. `serverCode` and
  /// `serverMessage` come from an S3 error document (`<Code>`, `<Message>`) when present.
  case unexpectedStatus(
    method: String, url: String, status: Int, expected: String, serverCode: String?,
    serverMessage: String?, attempts: Int)
  /// An answer with the expected status but not the expected content.
  case malformedResponse(method: String, url: String, reason: String)
  /// A create-only upload found the key taken (412 to `If-None-Match: *`).
  case alreadyExists(url: String)
  /// An uploaded object does not read back as what was sent.
  case verificationFailed(url: String, expected: String, actual: String)
  case invalidObjectKey(key: String, reason: String)
  case invalidBucketName(name: String)
  case invalidEndpoint(url: String, reason: String)
  case missingEnvironmentVariable(name: String)

  public var description: String {
    switch self {
    case .transferFailed(let method, let url, let reason, let attempts):
      return "\(method) \(url): \(reason)\(Self.attemptsSuffix(attempts))"
    case .unexpectedStatus(let method, let url, let status, let expected, let code, let message, let attempts):
      let detail = [code, message].compactMap { $0 }.joined(separator: ": ")
      return "\(method) \(url): HTTP \(status)" + (detail.isEmpty ? "" : " (\(detail))")
        + ", expected \(expected)\(Self.attemptsSuffix(attempts))"
    case .malformedResponse(let method, let url, let reason):
      return "\(method) \(url): unexpected response: \(reason)"
    case .alreadyExists(let url):
      return "PUT \(url): already exists (HTTP 412 to a create-only upload); published objects are"
        + " immutable, publish under a new version"
    case .verificationFailed(let url, let expected, let actual):
      return "\(url): uploaded object does not match: expected \(expected), found \(actual)"
    case .invalidObjectKey(let key, let reason):
      return "object key \"\(key)\": \(reason)"
    case .invalidBucketName(let name):
      return "bucket name \"\(name)\": use 3-63 lower-case letters, digits, '.' and '-',"
        + " starting and ending with a letter or digit"
    case .invalidEndpoint(let url, let reason):
      return "endpoint \(url): \(reason)"
    case .missingEnvironmentVariable(let name):
      return "\(name) is not set: export it (S3 credentials come from the standard AWS variables)"
    }
  }

  private static func attemptsSuffix(_ attempts: Int) -> String {
    attempts > 1 ? " (after \(attempts) attempts)" : ""
  }

  /// A URL as error messages show it: no user info, query values replaced, since either
  /// may carry credentials (presigned URLs put the signature in the query).
  public static func displayString(for url: URL) -> String {
    guard var components = URLComponents(url: url, resolvingAgainstBaseURL: false) else {
      return "<unparsable URL>"
    }
    components.user = nil
    components.password = nil
    components.fragment = nil
    if let items = components.queryItems {
      components.queryItems = items.map {
        URLQueryItem(name: $0.name, value: $0.value == nil ? nil : "redacted")
      }
    }
    return components.string ?? "<unparsable URL>"
  }

  /// The same error with every occurrence of `secret` blanked out of its text.
  func redacting(_ secret: String) -> NetworkError {
    guard !secret.isEmpty else { return self }
    func scrub(_ text: String) -> String { text.replacingOccurrences(of: secret, with: "<redacted>") }
    switch self {
    case .transferFailed(let method, let url, let reason, let attempts):
      return .transferFailed(method: method, url: scrub(url), reason: scrub(reason), attempts: attempts)
    case .unexpectedStatus(let method, let url, let status, let expected, let code, let message, let attempts):
      return .unexpectedStatus(
        method: method, url: scrub(url), status: status, expected: expected, serverCode: code.map(scrub),
        serverMessage: message.map(scrub), attempts: attempts)
    case .malformedResponse(let method, let url, let reason):
      return .malformedResponse(method: method, url: scrub(url), reason: scrub(reason))
    case .alreadyExists, .verificationFailed, .invalidObjectKey, .invalidBucketName, .invalidEndpoint,
      .missingEnvironmentVariable:
      return self
    }
  }

  /// How a set of accepted statuses reads in a message: "2xx", "2xx or 404", "200 or 304".
  static func describe(_ statuses: Set<Int>) -> String {
    var rest = statuses
    var parts: [String] = []
    if HTTPRequest.successStatuses.isSubset(of: statuses) {
      parts.append("2xx")
      rest.subtract(HTTPRequest.successStatuses)
    }
    parts += rest.sorted().map(String.init)
    return parts.isEmpty ? "nothing" : parts.joined(separator: " or ")
  }
}

/// The `<Code>` and `<Message>` of an S3 error document, when the body is one.
/// A plain search, not an XML parser: the document is small and flat, and a body that is
/// not XML simply yields nothing.
enum S3ErrorDocument {
  static func codeAndMessage(in body: Data) -> (code: String?, message: String?) {
    let text = String(decoding: body.prefix(64 * 1024), as: UTF8.self)
    guard text.contains("<Error>") else { return (nil, nil) }
    return (element("Code", in: text), element("Message", in: text))
  }

  private static func element(_ name: String, in text: String) -> String? {
    guard let start = text.range(of: "<\(name)>"),
      let end = text.range(of: "</\(name)>", range: start.upperBound..<text.endIndex)
    else { return nil }
    // Messages must stay one line.
    let value = text[start.upperBound..<end.lowerBound].split(whereSeparator: \.isNewline)
      .map { $0.trimmingCharacters(in: .whitespaces) }.filter { !$0.isEmpty }.joined(separator: " ")
    return value.isEmpty ? nil : unescape(value)
  }

  private static func unescape(_ value: String) -> String {
    value.replacingOccurrences(of: "&lt;", with: "<").replacingOccurrences(of: "&gt;", with: ">")
      .replacingOccurrences(of: "&quot;", with: "\"").replacingOccurrences(of: "&apos;", with: "'")
      .replacingOccurrences(of: "&amp;", with: "&")
  }
}
