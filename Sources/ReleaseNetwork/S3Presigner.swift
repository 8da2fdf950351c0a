import Foundation
import ReleaseSystem

/// A presigned GET URL: anyone holding it may read the one object until `expires`.
public struct S3PresignedURL: Sendable, Equatable {
  public let url: URL
  /// The signing time (whole seconds) plus the requested validity.
  public let expires: Date
  /// Signed with temporary credentials: the URL carries the session token and stops working
  /// when those credentials expire, whatever `expires` says.
  public let usesSessionToken: Bool
}

/// Why a URL was not presigned. One line each; never a secret or session token.
public enum S3PresignError: Error, CustomStringConvertible, Equatable {
  /// S3 accepts query-string signatures valid for 1 s to 7 days.
  case expiryOutOfRange(seconds: Int)

  public var description: String {
    switch self {
    case .expiryOutOfRange(let seconds):
      return
        "expiry of \(seconds) s: a presigned URL is valid for 1 s to 7 days (\(S3Presigner.maximumExpiry) s)"
    }
  }
}

/// Presigned GET URLs for objects of one bucket: AWS Signature Version 4 in the query
/// string ("Authenticating Requests: Using Query Parameters"), addressed path-style like
/// `S3Client` (`<endpoint>/<bucket>/<key>`). Only `host` is signed and the payload is
/// `UNSIGNED-PAYLOAD`, so any HTTP client can use the URL as it is. Nothing is sent:
/// signing is local and needs only the credentials and the time.
///
/// With temporary credentials (a session token), the token travels in the URL as
/// `X-Amz-Security-Token`, and the URL stops working when the credentials expire, which for
/// STS sessions is usually long before the 7 days a URL may otherwise last.
public struct S3Presigner: Sendable {
  /// 7 days in seconds, the longest validity S3 accepts.
  public static let maximumExpiry = 604_800

  private let client: S3Client

  /// Signs for `client`'s endpoint, bucket, region and credentials.
  public init(client: S3Client) {
    self.client = client
  }

  /// A URL that GETs `key` until `expirySeconds` after `date` (the signing time: the
  /// caller's clock, never read here). Throws `NetworkError.invalidObjectKey` for a key
  /// `S3Client` refuses, `S3PresignError.expiryOutOfRange` outside 1 s ... 7 days.
  public func presignedGetURL(for key: String, expiresIn expirySeconds: Int, at date: Date) throws
    -> S3PresignedURL
  {
    let objectURL = try client.url(for: key)
    guard let scheme = objectURL.scheme?.lowercased(), let host = objectURL.host?.lowercased() else {
      throw NetworkError.invalidEndpoint(
        url: NetworkError.displayString(for: client.endpoint), reason: "no scheme or host")
    }
    // Default ports are left out of the URL and of the signed host, as clients send them.
    let defaultPort = scheme == "https" ? 443 : 80
    var authority = host.contains(":") && !host.hasPrefix("[") ? "[\(host)]" : host
    if let port = objectURL.port, port != defaultPort { authority += ":\(port)" }
    let signed = try Self.presign(
      scheme: scheme, host: authority, path: objectURL.path, region: client.region,
      credentials: client.credentials, date: date, expirySeconds: expirySeconds)
    guard let url = URL(string: signed.url) else {
      throw NetworkError.invalidObjectKey(
        key: key, reason: "does not form a valid URL with \(client.endpoint)")
    }
    return S3PresignedURL(
      url: url, expires: signed.signingTime.addingTimeInterval(TimeInterval(expirySeconds)),
      usesSessionToken: client.credentials.hasSessionToken)
  }

  // MARK: Signing (internal, so tests can check each stage)

  /// The stages of one signature, for tests.
  struct Signed {
    var canonicalRequest: String
    var stringToSign: String
    var signature: String
    var url: String
    var signingTime: Date
  }

  /// Signs a GET of `path` (decoded; each segment is URI-encoded here, "/" kept) on `host`
  /// (as the Host header carries it, port included when not the scheme's default). Any host
  /// and path, so AWS's virtual-hosted example can be checked too.
  static func presign(
    scheme: String, host: String, path: String, region: String, credentials: S3Credentials, date: Date,
    expirySeconds: Int
  ) throws -> Signed {
    guard (1...maximumExpiry).contains(expirySeconds) else {
      throw S3PresignError.expiryOutOfRange(seconds: expirySeconds)
    }
    let (timestamp, day, signingTime) = timestamp(date)
    let scope = "\(day)/\(region)/s3/aws4_request"
    var parameters: [(String, String)] = [
      ("X-Amz-Algorithm", "AWS4-HMAC-SHA256"),
      ("X-Amz-Credential", "\(credentials.accessKeyID)/\(scope)"),
      ("X-Amz-Date", timestamp),
      ("X-Amz-Expires", String(expirySeconds)),
      ("X-Amz-SignedHeaders", "host"),
    ]
    if credentials.hasSessionToken, let token = credentials.sessionToken {
      parameters.append(("X-Amz-Security-Token", token))
    }
    // Sorted by encoded name (byte order); the names are distinct.
    let query = parameters.map { (uriEncode($0.0), uriEncode($0.1)) }.sorted { $0.0 < $1.0 }
      .map { "\($0.0)=\($0.1)" }.joined(separator: "&")
    let canonicalURI = uriEncode(path.isEmpty ? "/" : path, keepingSlashes: true)
    let canonicalRequest = [
      "GET", canonicalURI, query, "host:\(host)", "", "host", "UNSIGNED-PAYLOAD",
    ].joined(separator: "\n")
    let stringToSign = [
      "AWS4-HMAC-SHA256", timestamp, scope, SHA256Digest.hex(of: canonicalRequest),
    ].joined(separator: "\n")
    var key = HMACSHA256.code(for: day, key: Data("AWS4\(credentials.secretAccessKey)".utf8))
    for part in [region, "s3", "aws4_request"] { key = HMACSHA256.code(for: part, key: key) }
    let signature = HMACSHA256.hex(of: stringToSign, key: key)
    return Signed(
      canonicalRequest: canonicalRequest, stringToSign: stringToSign, signature: signature,
      url: "\(scheme)://\(host)\(canonicalURI)?\(query)&X-Amz-Signature=\(signature)",
      signingTime: signingTime)
  }

  /// `X-Amz-Date` (`yyyyMMdd'T'HHmmss'Z'`, UTC), its day, and the time it names (sub-seconds
  /// dropped).
  static func timestamp(_ date: Date) -> (timestamp: String, day: String, time: Date) {
    var calendar = Calendar(identifier: .gregorian)
    calendar.timeZone = TimeZone(identifier: "UTC")!
    let time = Date(timeIntervalSince1970: date.timeIntervalSince1970.rounded(.down))
    let parts = calendar.dateComponents([.year, .month, .day, .hour, .minute, .second], from: time)
    func digits(_ value: Int?, _ count: Int) -> String {
      let text = String(value ?? 0)
      return String(repeating: "0", count: max(0, count - text.count)) + text
    }
    let day = digits(parts.year, 4) + digits(parts.month, 2) + digits(parts.day, 2)
    return (
      day + "T" + digits(parts.hour, 2) + digits(parts.minute, 2) + digits(parts.second, 2) + "Z", day, time
    )
  }

  /// AWS's URI encoding: unreserved characters (`A-Z a-z 0-9 - . _ ~`) kept, every other
  /// UTF-8 byte as `%XX` with upper-case hex; `/` kept only in paths.
  static func uriEncode(_ text: String, keepingSlashes: Bool = false) -> String {
    let hex = Array("0123456789ABCDEF".utf8)
    var encoded: [UInt8] = []
    for byte in text.utf8 {
      switch byte {
      case UInt8(ascii: "A")...UInt8(ascii: "Z"), UInt8(ascii: "a")...UInt8(ascii: "z"),
        UInt8(ascii: "0")...UInt8(ascii: "9"), UInt8(ascii: "-"), UInt8(ascii: "."), UInt8(ascii: "_"),
        UInt8(ascii: "~"):
        encoded.append(byte)
      case UInt8(ascii: "/") where keepingSlashes:
        encoded.append(byte)
      default:
        encoded += [UInt8(ascii: "%"), hex[Int(byte >> 4)], hex[Int(byte & 0x0F)]]
      }
    }
    return String(decoding: encoded, as: UTF8.self)
  }
}
