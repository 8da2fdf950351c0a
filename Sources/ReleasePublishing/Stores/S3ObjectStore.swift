import Foundation
import ReleaseCore
import ReleaseNetwork
import ReleaseSystem

/// S3-compatible object storage (AWS S3, Cloudflare R2, MinIO, moto) as a publish destination:
/// `s3://<bucket>/<prefix>`, every key below the prefix. Requests are signed (SigV4, by
/// libcurl) with the keys from `AWS_ACCESS_KEY_ID` / `AWS_SECRET_ACCESS_KEY`
/// (/ `AWS_SESSION_TOKEN`), which are never printed. Transient failures (connection errors,
/// 5xx) are retried with exponential backoff by the HTTP client; 4xx answers are not.
package struct S3ObjectStore: ObjectStore {
  package let client: S3Client
  /// Key prefix without leading or trailing `/`; empty for the bucket's root.
  let prefix: String
  /// Where the prefix is served from, without a trailing `/`; keys are appended.
  let publicBase: String
  /// Who reads it, which decides the `Cache-Control` of every object it writes.
  let audience: StoreAudience

  package init(client: S3Client, prefix: String, publicBase: String, audience: StoreAudience = .customers) {
    self.client = client
    self.prefix = prefix
    self.publicBase = publicBase
    self.audience = audience
  }

  package var displayName: String { "s3://\(client.bucket)" + (prefix.isEmpty ? "" : "/\(prefix)") }

  /// A release destination (`.customers`) is private: its indexes name each object by its S3
  /// URL, readable with credentials or a share link, whatever `baseURL` says; the public URL is
  /// where devices read the over-the-air destination (`.devices`).
  static func make(
    bucket: String, prefix: String, endpoint: String?, region: String?, baseURL: String?,
    environment: [String: String], origins: SettingOrigins = .init(), audience: StoreAudience = .customers,
    http: HTTPClient
  ) throws -> ObjectStore {
    let display = "s3://\(bucket)" + (prefix.isEmpty ? "" : "/\(prefix)")
    let client = try S3Settings.client(
      bucket: bucket, endpoint: endpoint, region: region, environment: environment,
      purpose: "--publish \(display)", origins: origins, http: http)
    let objectBase =
      "\(S3Settings.trimmed(client.endpoint.absoluteString))/\(bucket)" + (prefix.isEmpty ? "" : "/\(prefix)")
    var base = audience == .devices ? baseURL ?? objectBase : objectBase
    while base.hasSuffix("/") { base.removeLast() }
    if let baseURL {
      guard let url = URL(string: baseURL), let scheme = url.scheme?.lowercased(),
        ["http", "https"].contains(scheme),
        url.host?.isEmpty == false
      else {
        throw ReleaseError.usage(
          "\(origins.publicURL) \(baseURL): expected an http or https URL, e.g. https://sdk.example.com/releases"
        )
      }
    }
    return S3ObjectStore(client: client, prefix: prefix, publicBase: base, audience: audience)
  }

  package func key(_ key: String) -> String { prefix.isEmpty ? key : "\(prefix)/\(key)" }

  package func publicURL(for key: String) -> String { "\(publicBase)/\(key)" }

  /// Streams the object into a temporary file and hashes it: the bytes themselves are
  /// checked, not an ETag (which is an MD5 at best, and not even that for multipart uploads).
  package func digest(of key: String, maximumSize: Int64) throws -> (sha256: String, size: Int64)? {
    let directory = try TemporaryFiles.shared.makeDirectory(prefix: "release-digest")
    defer { try? FileManager.default.removeItem(at: directory) }
    let copy = directory.appendingPathComponent("object")
    do {
      try client.get(self.key(key), to: copy, maximumSize: maximumSize)
    } catch NetworkError.unexpectedStatus(_, _, 404, _, _, _, _) {
      return nil
    } catch NetworkError.unexpectedStatus(_, _, 403, _, let code, _, _)
      where S3AccessError.meansMissingPermission(code)
    {
      throw S3AccessError.forbidden(location: "\(displayName)/\(key)")
    }
    return try SHA256Digest.hexAndSize(ofFileAt: copy)
  }

  package func createOnly(_ key: String, from file: URL, contentType: String) throws -> Bool {
    do {
      try client.putCreateOnly(
        self.key(key), file: file, contentType: contentType, cacheControl: audience.immutableCacheControl)
      return true
    } catch NetworkError.alreadyExists {
      return false
    }
  }

  package func replace(_ key: String, with data: Data, contentType: String, ifUnchanged expected: String?)
    throws
    -> Bool
  {
    try client.put(
      self.key(key), data: data, contentType: contentType, cacheControl: audience.mutableCacheControl,
      ifMatch: expected)
  }

  package func read(_ key: String) throws -> StoredObject? {
    do {
      return try client.getWithETag(self.key(key), maximumSize: ObjectStoreLimits.mutableObject).map {
        StoredObject(data: $0.data, tag: $0.etag)
      }
    } catch NetworkError.unexpectedStatus(_, _, 403, _, let code, _, _)
      where S3AccessError.meansMissingPermission(code)
    {
      throw S3AccessError.forbidden(location: "\(displayName)/\(key)")
    }
  }
}

/// Who reads a destination. Releases (`.customers`) are private, each customer's only through
/// its share links or credentials: nothing is sent with a `public` Cache-Control. The
/// over-the-air channel (`.devices`) is read anonymously by every device, cached publicly.
package enum StoreAudience: Sendable, Equatable {
  case customers
  case devices

  /// For create-only objects: published once, never changed.
  package var immutableCacheControl: String {
    self == .devices ? S3CacheControl.immutable : S3CacheControl.privateImmutable
  }

  /// For objects that are replaced (indexes, pointers).
  package var mutableCacheControl: String {
    self == .devices ? S3CacheControl.manifest : S3CacheControl.privateManifest
  }
}

/// S3 answers 403, not 404, for a key that does not exist when the credentials lack
/// `s3:ListBucket` on the bucket: a publish that only reads "is it there yet?" must say so
/// rather than report a failed upload.
package enum S3AccessError: Error, CustomStringConvertible {
  case forbidden(location: String)

  /// `AccessDenied` (or no error document, as for a HEAD): a permission, not a bad signature
  /// or an unknown key, which say so themselves.
  package static func meansMissingPermission(_ code: String?) -> Bool {
    code == nil || code == "AccessDenied"
  }

  package var description: String {
    switch self {
    case .forbidden(let location):
      return
        "\(location): access denied (403) reading it. If it does not exist yet, S3 answers 403 instead of 404 to credentials without s3:ListBucket on the bucket: grant s3:ListBucket, s3:GetObject and s3:PutObject to these keys"
    }
  }
}

/// Endpoint, region and credentials of an S3-compatible service, shared by publishing and
/// the `s3://` model store.
package enum S3Settings {
  static let defaultRegion = "us-east-1"

  /// A client for `bucket`. Region: `region`, else `AWS_REGION` / `AWS_DEFAULT_REGION`, else
  /// us-east-1; endpoint: `endpoint`, else AWS S3 in that region. A missing credential
  /// variable or a malformed endpoint is bad input (exit 2), named in one line by where it came
  /// from (`origins`); the variables' values never appear in a message.
  package static func client(
    bucket: String, endpoint: String?, region: String?, environment: [String: String], purpose: String,
    origins: SettingOrigins = .init(), http: HTTPClient
  ) throws -> S3Client {
    // Credentials come from the environment only; one in the URL would show in messages.
    if let endpoint, URLCredentials.carriesCredential(endpoint) {
      throw ReleaseError.usage(
        "\(origins.s3Endpoint) \(URLCredentials.redacted(endpoint)): a credential in a URL shows in the process list and in messages; S3 credentials come from AWS_ACCESS_KEY_ID and AWS_SECRET_ACCESS_KEY (and AWS_SESSION_TOKEN)"
      )
    }
    let credentials: S3Credentials
    do {
      credentials = try S3Credentials.fromEnvironment(environment)
    } catch let error as NetworkError {
      throw ReleaseError.invalidInput("\(purpose): \(error)")
    }
    let (region, regionOrigin) =
      region.map { ($0, origins.s3Region) } ?? S3Credentials.region(fromEnvironment: environment)
      ?? (defaultRegion, "")
    // The region goes into the default endpoint's host name: nothing but a region name.
    guard isRegionName(region) else {
      throw ReleaseError.usage(
        "\(regionOrigin) \(region.prefix(60)): not a region name; expected lower-case letters, digits and '-' (e.g. us-east-1, or auto for R2)"
      )
    }
    let endpointText = endpoint ?? "https://s3.\(region).amazonaws.com"
    guard let endpointURL = URL(string: endpointText) else {
      throw ReleaseError.usage(
        "\(origins.s3Endpoint) \(endpointText): not a URL; expected e.g. https://s3.example.com")
    }
    // A session token is a bearer credential sent in a header: never in clear text off this machine.
    if endpointURL.scheme?.lowercased() == "http", credentials.hasSessionToken,
      !LoopbackHost.contains(endpointURL.host ?? "")
    {
      throw ReleaseError.usage(
        "\(origins.s3Endpoint) \(endpointText): plain http with AWS_SESSION_TOKEN set would send the token in clear text; use https (plain http only to 127.0.0.1, ::1 or localhost)"
      )
    }
    do {
      return try S3Client(
        endpoint: endpointURL, bucket: bucket, region: region, credentials: credentials, http: http)
    } catch NetworkError.invalidEndpoint(let url, let reason) where endpoint != nil {
      throw ReleaseError.usage("\(origins.s3Endpoint) \(url): \(reason)")
    } catch let error as NetworkError {
      throw ReleaseError.usage("\(purpose): \(error)")
    }
  }

  static func isRegionName(_ region: String) -> Bool {
    (1...32).contains(region.count) && region.first != "-" && region.last != "-"
      && region.unicodeScalars.allSatisfy {
        ("a"..."z").contains($0) || ("0"..."9").contains($0) || $0 == "-"
      }
  }

  static func trimmed(_ url: String) -> String {
    var text = url
    while text.hasSuffix("/") { text.removeLast() }
    return text
  }
}
