import Foundation
import ReleaseSystem
import XCTest

@testable import ReleaseKit

/// moto_server on 127.0.0.1 with signature checks off (its default): moto answers a presigned
/// GET with 500 when checks are on, and with checks off any URL to an existing key with 200.
/// So the share tests recompute each link's signature independently (botocore) and use moto
/// to show that the path and the parameters reach the right object.
final class OpenMotoServer {
  let process = Process()
  let port: Int
  let endpoint: String
  private let log: URL
  /// Any keys do; these only have to be the same in the tool and in the independent check.
  static let accessKeyID = "AKIAIOSFODNN7EXAMPLE"
  static let secret = "wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY"
  static let region = "us-east-1"

  init() throws {
    let motoServer = try PublishFixtures.program(
      "moto_server", install: "install it with: python3 -m pip install 'moto[server]'")
    _ = try PublishFixtures.program("aws", install: "install it with: python3 -m pip install awscli")
    port = try freeLocalPort()
    endpoint = "http://127.0.0.1:\(port)"
    log = FileManager.default.temporaryDirectory.appendingPathComponent(
      "moto-share-\(port)-\(UUID().uuidString).log")
    var environment = ProcessInfo.processInfo.environment
    environment.removeValue(forKey: "INITIAL_NO_AUTH_ACTION_COUNT")
    process.executableURL = motoServer
    process.arguments = ["-H", "127.0.0.1", "-p", String(port)]
    process.environment = environment
    try startListening(process, port: port, log: log, name: "moto_server")
  }

  /// What `release share` needs in its environment.
  var credentials: [String: String] {
    [
      "AWS_ACCESS_KEY_ID": Self.accessKeyID, "AWS_SECRET_ACCESS_KEY": Self.secret, "AWS_REGION": Self.region,
      "AWS_SESSION_TOKEN": "",
    ]
  }

  @discardableResult
  func aws(_ arguments: [String]) throws -> String {
    var environment = ProcessInfo.processInfo.environment
    environment["AWS_ACCESS_KEY_ID"] = Self.accessKeyID
    environment["AWS_SECRET_ACCESS_KEY"] = Self.secret
    environment["AWS_DEFAULT_REGION"] = Self.region
    environment["AWS_EC2_METADATA_DISABLED"] = "true"
    environment["AWS_CONFIG_FILE"] = "/dev/null"
    environment["AWS_SHARED_CREDENTIALS_FILE"] = "/dev/null"
    environment.removeValue(forKey: "AWS_SESSION_TOKEN")
    environment.removeValue(forKey: "AWS_PROFILE")
    let result = try SystemProcessRunner().run(
      ProcessInvocation("aws", ["--endpoint-url", endpoint] + arguments, environment: environment))
    guard result.exitCode == 0 else {
      throw PublishSetupError(
        description:
          "aws \(arguments.joined(separator: " ")) exited \(result.exitCode): \(result.standardError)")
    }
    return result.standardOutput
  }

  func makeBucket() throws -> String {
    let bucket = "share-\(UUID().uuidString.prefix(8).lowercased())"
    try aws(["s3api", "create-bucket", "--bucket", bucket])
    return bucket
  }

  func put(_ bucket: String, _ key: String, _ data: Data) throws {
    let file = FileManager.default.temporaryDirectory.appendingPathComponent(
      "share-object-\(UUID().uuidString)")
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

  func shutDown() {
    stopProcess(process)
    try? FileManager.default.removeItem(at: log)
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
        [file.path, url, OpenMotoServer.accessKeyID, OpenMotoServer.secret, token, OpenMotoServer.region]))
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
