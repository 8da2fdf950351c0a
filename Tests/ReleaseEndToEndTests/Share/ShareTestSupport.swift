import Foundation
import ReleaseSystem
import ReleaseTestSupport
import XCTest

extension Moto {
  func put(_ bucket: String, _ key: String, _ data: Data) throws {
    let file = FileManager.default.temporaryDirectory.appendingPathComponent(
      "moto-object-\(UUID().uuidString)")
    defer { try? FileManager.default.removeItem(at: file) }
    try data.write(to: file)
    try aws(["s3api", "put-object", "--bucket", bucket, "--key", key, "--body", file.path])
  }

  /// Every key of the bucket with its ETag: equal listings mean nothing was added or rewritten.
  func listing(_ bucket: String) throws -> [String: String] {
    let text = try aws(["s3api", "list-objects-v2", "--bucket", bucket, "--output", "json"])
    guard !text.trimmingCharacters(in: .whitespacesAndNewlines).isEmpty else { return [:] }
    let contents = (try jsonObject(Data(text.utf8), "list-objects-v2")["Contents"] as? [[String: Any]]) ?? []
    var objects: [String: String] = [:]
    for object in contents { objects["\(object["Key"] ?? "")"] = "\(object["ETag"] ?? "")" }
    return objects
  }
}

/// An independent SigV4 query signature: botocore's `S3SigV4QueryAuth` (installed with the aws
/// CLI) at the link's own `X-Amz-Date`, for the link's URL without its query.
enum BotocorePresigner {
  static let script = """
    import datetime, sys
    from unittest import mock
    from urllib.parse import urlsplit, parse_qs
    from botocore.auth import S3SigV4QueryAuth
    from botocore.awsrequest import AWSRequest
    from botocore.credentials import Credentials
    url, access, secret, token, region = sys.argv[1:6]
    parts = urlsplit(url)
    query = {k: v[0] for k, v in parse_qs(parts.query).items()}
    when = datetime.datetime.strptime(query["X-Amz-Date"], "%Y%m%dT%H%M%SZ")
    request = AWSRequest(method="GET", url=f"{parts.scheme}://{parts.netloc}{parts.path}")
    auth = S3SigV4QueryAuth(Credentials(access, secret, token or None), "s3", region, expires=int(query["X-Amz-Expires"]))
    with mock.patch("botocore.auth.get_current_datetime", return_value=when):
        auth.add_auth(request)
    print(parse_qs(urlsplit(request.url).query)["X-Amz-Signature"][0])
    """

  static func signature(for url: String, token: String = "") throws -> String {
    let file = FileManager.default.temporaryDirectory.appendingPathComponent(
      "presign-\(UUID().uuidString).py")
    defer { try? FileManager.default.removeItem(at: file) }
    try script.write(to: file, atomically: true, encoding: .utf8)
    let result = try SystemProcessRunner().run(
      ProcessInvocation(
        "python3",
        [file.path, url, Moto.openAccessKeyID, Moto.openSecret, token, Moto.region]))
    guard result.exitCode == 0 else {
      throw PublishSetupError(description: "botocore presigning failed: \(result.standardError)")
    }
    return result.standardOutput.trimmingCharacters(in: .whitespacesAndNewlines)
  }
}

/// A URL's query parameters (decoded).
func queryParameters(_ url: String) throws -> [String: String] {
  let components = try XCTUnwrap(URLComponents(string: url), url)
  var parameters: [String: String] = [:]
  for item in components.queryItems ?? [] { parameters[item.name] = item.value ?? "" }
  return parameters
}
