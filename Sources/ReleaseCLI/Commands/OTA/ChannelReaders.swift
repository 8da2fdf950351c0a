import Foundation
import ReleaseNetwork
import ReleaseOTA
import ReleasePublishing
import ReleaseSystem

/// A publish destination read as a channel: a directory through its object store, a bucket
/// through its S3 client with every read cut off past its limit.
struct StoreChannelReader: ChannelReader {
  let store: ObjectStore

  func location(of key: String) -> String { "\(store.displayName)/\(key)" }

  func read(_ key: String, maximumSize: Int64) throws -> Data? {
    if let s3 = store as? S3ObjectStore {
      return try missingAsNil(key, s3) { try s3.client.getData(s3.key(key), maximumSize: maximumSize) }
    }
    guard let object = try store.read(key) else { return nil }
    guard object.data.count <= maximumSize else {
      throw SystemError.tooLarge(location: location(of: key), limit: maximumSize)
    }
    return object.data
  }

  func digest(of key: String, maximumSize: Int64) throws -> (sha256: String, size: Int64)? {
    guard let s3 = store as? S3ObjectStore else { return try store.digest(of: key) }
    let directory = try TemporaryFiles.shared.makeDirectory(prefix: "release-verify")
    defer { try? FileManager.default.removeItem(at: directory) }
    let copy = directory.appendingPathComponent("object")
    let found: Void? = try missingAsNil(key, s3) {
      try s3.client.get(s3.key(key), to: copy, maximumSize: maximumSize)
    }
    guard found != nil else { return nil }
    return try SHA256Digest.hexAndSize(ofFileAt: copy)
  }

  /// `body`'s result; nil when the bucket answers 404. A 403 that means a missing permission
  /// says so (S3 answers 403 for a missing key to credentials without s3:ListBucket).
  private func missingAsNil<T>(_ key: String, _ s3: S3ObjectStore, _ body: () throws -> T) throws -> T? {
    do { return try body() } catch NetworkError.unexpectedStatus(_, _, 404, _, _, _, _) {
      return nil
    } catch NetworkError.unexpectedStatus(_, _, 403, _, let code, _, _)
      where S3AccessError.meansMissingPermission(code)
    {
      throw S3AccessError.forbidden(location: location(of: key))
    }
  }
}

/// A channel read as devices read it: over https (plain http only to this machine), one GET
/// per object, redirects only to https, every body cut off past its limit.
struct WebChannelReader: ChannelReader {
  /// Without a trailing `/`.
  let base: String
  let http: HTTPClient

  func location(of key: String) -> String { "\(base)/\(key)" }

  func read(_ key: String, maximumSize: Int64) throws -> Data? {
    let response = try http.send(request(key, maximumSize: maximumSize, to: .memory))
    return response.status == 404 ? nil : response.body
  }

  func digest(of key: String, maximumSize: Int64) throws -> (sha256: String, size: Int64)? {
    let directory = try TemporaryFiles.shared.makeDirectory(prefix: "release-verify")
    defer { try? FileManager.default.removeItem(at: directory) }
    let copy = directory.appendingPathComponent("object")
    let response = try http.send(request(key, maximumSize: maximumSize, to: .file(copy)))
    guard response.status != 404 else { return nil }
    return try SHA256Digest.hexAndSize(ofFileAt: copy)
  }

  private func request(_ key: String, maximumSize: Int64, to destination: HTTPResponseDestination) throws
    -> HTTPRequest
  {
    guard let url = URL(string: location(of: key)) else {
      throw NetworkError.invalidObjectKey(key: key, reason: "does not form a URL with \(base)")
    }
    var request = HTTPRequest(
      .get, url, destination: destination, acceptedStatuses: HTTPRequest.successStatuses.union([404]))
    request.maximumResponseSize = maximumSize
    request.redirectProtocols = "https"
    return request
  }
}
