import Foundation
import ReleaseSystem

/// `Cache-Control` values for what the tool publishes. Published files are immutable (a new
/// version gets a new key), so caches and CDNs may keep them for a year: that is what keeps
/// egress cheap. Manifests (indexes pointing at the newest files) change, so they are cached briefly.
/// Releases are for one customer each: they are never marked `public`, so no shared cache
/// (a CDN, a proxy) keeps a copy another client could be served.
public enum S3CacheControl {
  public static let immutable = "public, max-age=31536000, immutable"
  public static let manifest = "public, max-age=60"
  /// A release's immutable files: cached only by the client that fetched them.
  public static let privateImmutable = "private, max-age=31536000, immutable"
  /// A release index: never served from a cache without asking the store again.
  public static let privateManifest = "private, no-cache"
}

/// `Content-Type` values for what the tool publishes.
public enum S3ContentType {
  public static let zip = "application/zip"
  public static let json = "application/json"
  public static let octetStream = "application/octet-stream"
}

/// What a HEAD tells about a stored object.
public struct S3ObjectInfo: Sendable, Equatable {
  public var size: Int64
  /// As the server sent it, quotes included; nil when it sent none.
  public var etag: String?

  public init(size: Int64, etag: String?) {
    self.size = size
    self.etag = etag
  }
}

/// What was uploaded, for a later `verify`.
public struct S3UploadedObject: Sendable, Equatable {
  public var key: String
  public var size: Int64
  /// Lower-case hex SHA-256 of the bytes sent.
  public var sha256: String

  public init(key: String, size: Int64, sha256: String) {
    self.key = key
    self.size = size
    self.sha256 = sha256
  }
}

/// One bucket of S3-compatible storage (AWS S3, Cloudflare R2, MinIO, moto), addressed
/// path-style (`<endpoint>/<bucket>/<key>`), which all of them accept and which needs no
/// DNS name per bucket. Requests are signed with SigV4 by libcurl.
public struct S3Client: Sendable {
  public let endpoint: URL
  public let bucket: String
  /// The signing region: an AWS region, or "auto" for Cloudflare R2.
  public let region: String
  public let credentials: S3Credentials
  private let http: HTTPClient

  /// SHA-256 of zero bytes: the payload hash of bodiless requests.
  private static let emptyPayloadSHA256 = "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855"

  public init(
    endpoint: URL, bucket: String, region: String, credentials: S3Credentials,
    http: HTTPClient = CurlHTTPClient()
  ) throws {
    guard let scheme = endpoint.scheme?.lowercased(), scheme == "http" || scheme == "https" else {
      throw NetworkError.invalidEndpoint(
        url: NetworkError.displayString(for: endpoint), reason: "use an http or https URL")
    }
    guard endpoint.host?.isEmpty == false else {
      throw NetworkError.invalidEndpoint(url: NetworkError.displayString(for: endpoint), reason: "no host")
    }
    guard endpoint.query == nil, endpoint.user == nil else {
      throw NetworkError.invalidEndpoint(
        url: NetworkError.displayString(for: endpoint),
        reason: "no query or user info: credentials come from the environment")
    }
    try Self.validateBucketName(bucket)
    self.endpoint = endpoint
    self.bucket = bucket
    self.region = region
    self.credentials = credentials
    self.http = http
  }

  /// The object's URL. Keys are limited to unreserved characters and "/" so they need no
  /// percent-encoding, which libcurl's signer and S3 would otherwise have to agree on.
  public func url(for key: String) throws -> URL {
    try Self.validateObjectKey(key)
    var base = endpoint.absoluteString
    while base.hasSuffix("/") { base.removeLast() }
    guard let url = URL(string: "\(base)/\(bucket)/\(key)") else {
      throw NetworkError.invalidObjectKey(key: key, reason: "does not form a valid URL with \(base)")
    }
    return url
  }

  /// Size and ETag of the object, or nil if there is none.
  public func head(_ key: String) throws -> S3ObjectInfo? {
    let url = try url(for: key)
    let response = try http.send(
      request(
        .head, url, payloadSHA256: Self.emptyPayloadSHA256,
        accepting: HTTPRequest.successStatuses.union([404])))
    if response.status == 404 { return nil }
    guard let length = response.header("content-length"), let size = Int64(length) else {
      throw NetworkError.malformedResponse(
        method: "HEAD", url: NetworkError.displayString(for: url), reason: "no Content-Length")
    }
    return S3ObjectInfo(size: size, etag: response.header("etag"))
  }

  /// Uploads `file` only if nothing is stored under `key` yet (`If-None-Match: *`), so a
  /// published version can never be replaced. Throws `NetworkError.alreadyExists` if taken.
  /// The file is read twice, both times streamed: once to hash it, once to send it.
  ///
  /// A retried upload whose first attempt did land (the answer was lost) also reports
  /// `alreadyExists`; `verify` with the returned size and hash tells whether the stored
  /// object is this file.
  @discardableResult
  public func putCreateOnly(
    _ key: String, file: URL, contentType: String, cacheControl: String = S3CacheControl.immutable
  ) throws -> S3UploadedObject {
    let url = try url(for: key)
    let (sha256, size) = try SHA256Digest.hexAndSize(ofFileAt: file)
    var put = request(.put, url, payloadSHA256: sha256)
    put.body = .file(file)
    put.headers["Content-Type"] = contentType
    put.headers["Cache-Control"] = cacheControl
    put.headers["If-None-Match"] = "*"
    do {
      _ = try http.send(put)
    } catch NetworkError.unexpectedStatus(_, _, 412, _, _, _, _) {
      throw NetworkError.alreadyExists(url: NetworkError.displayString(for: url))
    }
    return S3UploadedObject(key: key, size: size, sha256: sha256)
  }

  /// Uploads `data` under `key`, replacing what is there: for manifests that must change.
  @discardableResult
  public func put(
    _ key: String, data: Data, contentType: String, cacheControl: String = S3CacheControl.manifest
  ) throws -> S3UploadedObject {
    let sha256 = SHA256Digest.hex(of: data)
    var put = request(.put, try url(for: key), payloadSHA256: sha256)
    put.body = .data(data)
    put.headers["Content-Type"] = contentType
    put.headers["Cache-Control"] = cacheControl
    _ = try http.send(put)
    return S3UploadedObject(key: key, size: Int64(data.count), sha256: sha256)
  }

  /// Downloads the object to `file`, which appears only once the download is complete.
  /// `maximumSize`: the transfer stops as soon as more bytes arrive.
  public func get(_ key: String, to file: URL, maximumSize: Int64? = nil) throws {
    var get = request(.get, try url(for: key), payloadSHA256: Self.emptyPayloadSHA256)
    get.destination = .file(file)
    get.maximumResponseSize = maximumSize
    _ = try http.send(get)
  }

  public func getData(_ key: String, maximumSize: Int64? = nil) throws -> Data {
    var get = request(.get, try url(for: key), payloadSHA256: Self.emptyPayloadSHA256)
    get.maximumResponseSize = maximumSize
    return try http.send(get).body
  }

  /// The object's bytes and its ETag (quotes included), or nil when there is none: what a
  /// conditional `put(_:data:ifMatch:)` compares against. `maximumSize`: the transfer stops
  /// as soon as more bytes arrive.
  public func getWithETag(_ key: String, maximumSize: Int64? = nil) throws -> (data: Data, etag: String)? {
    let url = try url(for: key)
    var get = request(
      .get, url, payloadSHA256: Self.emptyPayloadSHA256, accepting: HTTPRequest.successStatuses.union([404]))
    get.maximumResponseSize = maximumSize
    let response = try http.send(get)
    if response.status == 404 { return nil }
    guard let etag = response.header("etag") else {
      throw NetworkError.malformedResponse(
        method: "GET", url: NetworkError.displayString(for: url),
        reason: "no ETag to replace the object conditionally")
    }
    return (response.body, etag)
  }

  /// Replaces the object only if it is still the one read: `ifMatch` its ETag, or nil for "only
  /// if there is none" (`If-None-Match: *`). Returns false when the store answered 412 (someone
  /// else changed it since), so the caller can read again instead of overwriting that change.
  public func put(
    _ key: String, data: Data, contentType: String, cacheControl: String = S3CacheControl.manifest,
    ifMatch etag: String?
  ) throws -> Bool {
    let sha256 = SHA256Digest.hex(of: data)
    var put = request(
      .put, try url(for: key), payloadSHA256: sha256, accepting: HTTPRequest.successStatuses.union([412]))
    put.body = .data(data)
    put.headers["Content-Type"] = contentType
    put.headers["Cache-Control"] = cacheControl
    if let etag { put.headers["If-Match"] = etag } else { put.headers["If-None-Match"] = "*" }
    return try http.send(put).status != 412
  }

  /// Proves an upload landed intact: HEAD must report `size`, and the bytes read back
  /// (streamed to a temporary file, then hashed) must have SHA-256 `sha256`.
  public func verify(_ key: String, size: Int64, sha256: String) throws {
    let displayURL = NetworkError.displayString(for: try url(for: key))
    guard let info = try head(key) else {
      throw NetworkError.verificationFailed(url: displayURL, expected: "\(size) bytes", actual: "no object")
    }
    guard info.size == size else {
      throw NetworkError.verificationFailed(
        url: displayURL, expected: "\(size) bytes", actual: "\(info.size) bytes")
    }
    let directory = try TemporaryFiles.shared.makeDirectory(prefix: "release-s3-verify")
    defer { try? FileManager.default.removeItem(at: directory) }
    let copy = directory.appendingPathComponent("object")
    try get(key, to: copy)
    let readBack = try SHA256Digest.hexAndSize(ofFileAt: copy)
    guard readBack.sha256 == sha256, readBack.size == size else {
      throw NetworkError.verificationFailed(
        url: displayURL, expected: "\(size) bytes, SHA-256 \(sha256)",
        actual: "\(readBack.size) bytes, SHA-256 \(readBack.sha256)")
    }
  }

  private func request(
    _ method: HTTPMethod, _ url: URL, payloadSHA256: String,
    accepting acceptedStatuses: Set<Int> = HTTPRequest.successStatuses
  ) -> HTTPRequest {
    HTTPRequest(
      method, url, headers: ["x-amz-content-sha256": payloadSHA256],
      signing: AWSSigV4(credentials: credentials, region: region), acceptedStatuses: acceptedStatuses)
  }

  // MARK: Validation

  private static let keyCharacters = Set(
    "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-._~/")

  public static func validateObjectKey(_ key: String) throws {
    func invalid(_ reason: String) -> NetworkError { .invalidObjectKey(key: key, reason: reason) }
    guard !key.isEmpty else { throw invalid("empty") }
    guard key.utf8.count <= 1024 else { throw invalid("longer than 1024 bytes") }
    if let bad = key.first(where: { !keyCharacters.contains($0) }) {
      throw invalid("character \"\(bad)\" not allowed; use letters, digits, '-', '.', '_', '~' and '/'")
    }
    // URL normalisation (libcurl's included) would rewrite these, so the key would differ.
    let segments = key.split(separator: "/", omittingEmptySubsequences: false)
    if segments.contains(where: { $0.isEmpty }) {
      throw invalid("empty path segment (leading, trailing or double '/')")
    }
    if segments.contains(where: { $0 == "." || $0 == ".." }) { throw invalid("'.' or '..' segment") }
  }

  public static func validateBucketName(_ name: String) throws {
    let allowed = Set("abcdefghijklmnopqrstuvwxyz0123456789.-")
    let alphanumeric = Set("abcdefghijklmnopqrstuvwxyz0123456789")
    guard (3...63).contains(name.count), name.allSatisfy(allowed.contains),
      let first = name.first, let last = name.last, alphanumeric.contains(first), alphanumeric.contains(last)
    else { throw NetworkError.invalidBucketName(name: name) }
  }
}
