import Foundation
import ReleaseCore
import ReleasePipeline
import ReleaseSigning
import ReleaseSystem
import XCTest

#if canImport(Glibc)
  import Glibc
#endif

/// A setup failure, with the message the test fails with (a missing moto_server or aws CLI
/// fails the test, never skips it).
package struct PublishSetupError: Error, CustomStringConvertible {
  package var description: String

  package init(description: String) { self.description = description }
}

package enum PublishFixtures {
  package static let network = RepositoryRoot.url.appendingPathComponent("Tests/Fixtures/Network")
  package static let publish = RepositoryRoot.url.appendingPathComponent("Tests/Fixtures/Publish")

  /// Two customers with different models: acme ships onboarding_upsell v73, bluebird v72.
  package static let manifest = """
    [
      {"id": "acme", "name": "Acme Fitness", "bundle_identifiers": ["com.acme.fitness"],
       "app_id": "3f2b8c1e-6d4a-4e9b-9a51-0c7d2e8f4a10",
       "customModels": [{"flowId": 8362, "flowName": "onboarding_upsell", "modelVersion": 73}]},
      {"id": "bluebird", "bundle_identifiers": ["com.bluebird.notes"], "app_id": "a91c44d2-0b7e-4c3f-8d26-5e1f9b0a7c33",
       "customModels": [{"flowId": 8362, "flowName": "onboarding_upsell", "modelVersion": 72}]}
    ]
    """
  package static let customers = ["acme", "bluebird"]

  package static func program(_ name: String, install: String) throws -> URL {
    guard let url = SystemProcessRunner.find(name) else {
      throw PublishSetupError(
        description: "\(name) not found on PATH: \(install) (or run Scripts/setup --test)")
    }
    return url
  }

  /// Planted in the environment of every build and publish run; must never show up in
  /// output, events, logs or dist/.
  package static let plantedSecret = "planted-secret-\(UUID().uuidString)"
  package static let plantedToken = "planted-token-\(UUID().uuidString)"
}

package enum GitFixture {
  /// `git init` (again, harmlessly, when it is one) and commit everything but dist/: the
  /// publishing runs' implied tag step needs a repository whose HEAD records the release.
  package static func commitAll(_ directory: URL, message: String = "fixture") throws {
    try "dist/\n".write(to: directory.appendingPathComponent(".gitignore"), atomically: true, encoding: .utf8)
    let environment = [
      "GIT_AUTHOR_NAME": "test", "GIT_AUTHOR_EMAIL": "test@localhost", "GIT_COMMITTER_NAME": "test",
      "GIT_COMMITTER_EMAIL": "test@localhost",
      "PATH": ProcessInfo.processInfo.environment["PATH"] ?? "/usr/bin:/bin",
      "HOME": directory.path,
    ]
    for arguments in [
      ["init", "--quiet"], ["add", "-A"], ["commit", "--quiet", "--allow-empty", "-m", message],
    ] {
      let result = try SystemProcessRunner().run(
        ProcessInvocation("git", arguments, in: directory, environment: environment))
      guard result.exitCode == 0 else {
        throw PublishSetupError(
          description: "git \(arguments.joined(separator: " ")): \(result.standardError)")
      }
    }
  }
}

/// Expectations computed from dist/'s release.json files, never from what was published.
package struct ExpectedRelease {
  package let record: ReleaseRecord
  package let directory: URL

  package init(dist: URL, id: String) throws {
    let customer = dist.appendingPathComponent(id)
    let versions = try FileManager.default.contentsOfDirectory(atPath: customer.path).filter {
      !$0.hasPrefix(".")
    }
    .sorted { (SemanticVersion($0) ?? .init(0, 0, 0)) < (SemanticVersion($1) ?? .init(0, 0, 0)) }
    let version = try XCTUnwrap(versions.last, "no release of \(id) in \(dist.path)")
    directory = customer.appendingPathComponent(version)
    record = try ReleaseRecord.load(from: directory.appendingPathComponent(ReleaseRecord.fileName))
  }

  /// The customer's legacy over-the-air manifest, first revision: every published customer
  /// whose package pins no keys gets one, with or without models offered.
  package var otaKeys: [String] {
    guard record.pinnedKeys != true else { return [] }
    return ["ota/\(record.customer.id)/models.json", "ota/\(record.customer.id)/models-1.json"]
  }

  package var artifactKeys: [String] {
    let base = "artifacts/\(record.customer.id)/\(record.version)/\(record.artifact.file)"
    return [base, base + ".sha256"]
  }

  package func localFile(forKey key: String) -> URL {
    directory.appendingPathComponent(String(key.split(separator: "/").last!))
  }

  /// The entry this release must have in its customer's index.json.
  package func indexEntry(publicBase: String) -> [String: Any] {
    var entry: [String: Any] = [
      "version": record.version, "sdkVersion": record.sdkVersion, "minimumSDKVersion": record.sdkVersion,
      "url": "\(publicBase)/artifacts/\(record.customer.id)/\(record.version)/\(record.artifact.file)",
      "sha256": record.artifact.sha256, "size": Int(record.artifact.size),
      "models": record.models.map {
        [
          "flowId": $0.flowId, "flowName": $0.flowName, "modelVersion": $0.modelVersion, "sha256": $0.sha256,
          "inputs": $0.inputNames, "minimumSDKVersion": $0.minimumSDKVersion,
        ] as [String: Any]
      },
    ]
    // The notes' own content is checked by ReleaseNotesEndToEndTests; here, that the index
    // carries the release's.
    if let notes = record.releaseNotes {
      entry["releaseNotes"] = try? JSONSerialization.jsonObject(with: JSONEncoder().encode(notes))
    }
    return entry
  }
}

/// JSON as plain values, compared with NSDictionary equality.
package func jsonObject(_ data: Data, _ what: String) throws -> [String: Any] {
  try XCTUnwrap(
    try JSONSerialization.jsonObject(with: data) as? [String: Any], "\(what) is not a JSON object")
}

/// A customer index as a signing run publishes it: the payload of its DSSE envelope, which
/// must verify with `key`.
package func signedIndex(_ data: Data, _ what: String, key: PublicKey) throws -> [String: Any] {
  let verified = try DSSEEnvelope.verify(
    json: data, payloadType: "application/vnd.contextsdk.release-index+json", trustedKeys: [key])
  return try jsonObject(verified.payload, what)
}

package func assertJSONEqual(
  _ actual: [String: Any], _ expected: [String: Any], _ what: String, file: StaticString = #filePath,
  line: UInt = #line
) {
  XCTAssertEqual(actual as NSDictionary, expected as NSDictionary, what, file: file, line: line)
}

// MARK: Local servers

/// A port on 127.0.0.1 with nothing listening on it.
package func freeLocalPort() throws -> Int {
  let descriptor = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
  guard descriptor >= 0 else { throw PublishSetupError(description: "socket() failed") }
  defer { close(descriptor) }
  var address = sockaddr_in()
  address.sin_family = sa_family_t(AF_INET)
  address.sin_port = 0
  address.sin_addr.s_addr = inet_addr("127.0.0.1")
  var length = socklen_t(MemoryLayout<sockaddr_in>.size)
  let bound = withUnsafeMutablePointer(to: &address) {
    $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { pointer -> Bool in
      bind(descriptor, pointer, length) == 0 && getsockname(descriptor, pointer, &length) == 0
    }
  }
  guard bound else { throw PublishSetupError(description: "cannot bind a port on 127.0.0.1") }
  return Int(UInt16(bigEndian: address.sin_port))
}

/// Whether something accepts TCP connections on 127.0.0.1:`port`.
package func isListening(_ port: Int) -> Bool {
  let descriptor = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
  guard descriptor >= 0 else { return false }
  defer { close(descriptor) }
  var address = sockaddr_in()
  address.sin_family = sa_family_t(AF_INET)
  address.sin_port = in_port_t(UInt16(port).bigEndian)
  address.sin_addr.s_addr = inet_addr("127.0.0.1")
  return withUnsafePointer(to: &address) {
    $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
      connect(descriptor, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) == 0
    }
  }
}

/// SIGTERM, then SIGKILL after 5 s; waits for the exit.
package func stopProcess(_ process: Process) {
  guard process.isRunning else { return }
  process.terminate()
  let deadline = Date().addingTimeInterval(5)
  while process.isRunning && Date() < deadline { usleep(50_000) }
  if process.isRunning { kill(process.processIdentifier, SIGKILL) }
  process.waitUntilExit()
}

/// Starts `process` logging to `log` and waits (at most `timeout` s) until `port` accepts connections.
package func startListening(_ process: Process, port: Int, log: URL, name: String, timeout: TimeInterval = 60)
  throws
{
  _ = FileManager.default.createFile(atPath: log.path, contents: nil)
  let handle = try FileHandle(forWritingTo: log)
  defer { try? handle.close() }
  process.standardInput = FileHandle.nullDevice
  process.standardOutput = handle
  process.standardError = handle
  try process.run()
  let deadline = Date().addingTimeInterval(timeout)
  while Date() < deadline {
    if isListening(port) { return }
    guard process.isRunning else {
      let text = (try? String(contentsOf: log, encoding: .utf8)) ?? ""
      throw PublishSetupError(description: "\(name) exited during startup:\n\(text.suffix(2000))")
    }
    usleep(100_000)
  }
  stopProcess(process)
  throw PublishSetupError(description: "\(name) did not listen on 127.0.0.1:\(port) within \(Int(timeout)) s")
}

/// moto_server on 127.0.0.1 checking signatures (INITIAL_NO_AUTH_ACTION_COUNT=0), with an IAM
/// key allowed s3:* (Tests/Fixtures/Network/moto_bootstrap.py); or, `checkingSignatures:
/// false`, with checks off (moto's default), where any key is accepted: moto answers a
/// presigned GET with 500 when checks are on, so share-link tests recompute each signature
/// independently and use moto only to show the path and parameters reach the right object.
/// Its state lives in memory: it is never restarted during a test.
package final class Moto: Sendable {
  package let process = Process()
  package let port: Int
  package let endpoint: String
  package let accessKeyID: String
  package let secret: String
  private let log: URL
  package static let region = "us-east-1"

  /// The keys a server without signature checks is used with: any do, but the tool and an
  /// independent check of a signature must use the same.
  package static let openAccessKeyID = "AKIAIOSFODNN7EXAMPLE"
  package static let openSecret = "wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY"

  package init(checkingSignatures: Bool = true) throws {
    let motoServer = try PublishFixtures.program(
      "moto_server",
      install: "install it with: python3 -m pip install 'moto[server]' (the S3 publishing tests need it)")
    _ = try PublishFixtures.program("aws", install: "install it with: python3 -m pip install awscli")
    port = try freeLocalPort()
    endpoint = "http://127.0.0.1:\(port)"
    log = FileManager.default.temporaryDirectory.appendingPathComponent(
      "moto-publish-\(port)-\(UUID().uuidString).log")
    var environment = ProcessInfo.processInfo.environment
    environment.removeValue(forKey: "INITIAL_NO_AUTH_ACTION_COUNT")
    if checkingSignatures { environment["INITIAL_NO_AUTH_ACTION_COUNT"] = "0" }
    process.executableURL = motoServer
    process.arguments = ["-H", "127.0.0.1", "-p", String(port)]
    process.environment = environment
    try startListening(process, port: port, log: log, name: "moto_server")
    guard checkingSignatures else {
      accessKeyID = Self.openAccessKeyID
      secret = Self.openSecret
      return
    }
    do {
      let bootstrap = try SystemProcessRunner().run(
        ProcessInvocation(
          "python3", [PublishFixtures.network.appendingPathComponent("moto_bootstrap.py").path, endpoint]))
      let fields = bootstrap.standardOutput.split(whereSeparator: \.isWhitespace).map(String.init)
      guard bootstrap.exitCode == 0, fields.count == 2 else {
        throw PublishSetupError(description: "moto_bootstrap.py failed: \(bootstrap.standardError)")
      }
      accessKeyID = fields[0]
      secret = fields[1]
    } catch {
      stopProcess(process)
      throw error
    }
  }

  /// What a publishing run needs in its environment.
  package var credentials: [String: String] {
    [
      "AWS_ACCESS_KEY_ID": accessKeyID, "AWS_SECRET_ACCESS_KEY": secret, "AWS_REGION": Self.region,
      "AWS_SESSION_TOKEN": "",
    ]
  }

  @discardableResult
  package func aws(_ arguments: [String]) throws -> String {
    var environment = ProcessInfo.processInfo.environment
    environment["AWS_ACCESS_KEY_ID"] = accessKeyID
    environment["AWS_SECRET_ACCESS_KEY"] = secret
    environment["AWS_DEFAULT_REGION"] = Self.region
    environment["AWS_EC2_METADATA_DISABLED"] = "true"
    environment["AWS_CONFIG_FILE"] = "/dev/null"
    environment["AWS_SHARED_CREDENTIALS_FILE"] = "/dev/null"
    environment.removeValue(forKey: "AWS_SESSION_TOKEN")
    environment.removeValue(forKey: "AWS_PROFILE")
    let result = try AWSCommandLine.shared.get().run(
      ["--endpoint-url", endpoint] + arguments, environment: environment)
    guard result.exitCode == 0 else {
      throw PublishSetupError(
        description:
          "aws \(arguments.joined(separator: " ")) exited \(result.exitCode): \(result.standardError)")
    }
    return result.standardOutput
  }

  package func makeBucket() throws -> String {
    let bucket = "test-\(UUID().uuidString.prefix(8).lowercased())"
    try aws(["s3api", "create-bucket", "--bucket", bucket])
    return bucket
  }

  /// Every object of the bucket and its bytes, downloaded with one `aws s3 sync`.
  package func objects(_ bucket: String) throws -> [String: Data] {
    let directory = FileManager.default.temporaryDirectory.appendingPathComponent(
      "s3-objects-\(UUID().uuidString)")
    defer { try? FileManager.default.removeItem(at: directory) }
    try aws(["s3", "sync", "--quiet", "s3://\(bucket)", directory.path])
    var objects: [String: Data] = [:]
    guard let enumerator = FileManager.default.enumerator(atPath: directory.path) else { return objects }
    while let path = enumerator.nextObject() as? String {
      guard enumerator.fileAttributes?[.type] as? FileAttributeType == .typeRegular else { continue }
      objects[path] = try Data(contentsOf: directory.appendingPathComponent(path))
    }
    return objects
  }

  /// key → SHA-256 of every object.
  package func contents(_ bucket: String) throws -> [String: String] {
    try objects(bucket).mapValues { SHA256Digest.hex(of: $0) }
  }

  /// key → SHA-256, ETag and LastModified (`aws s3api list-objects-v2`) of every object:
  /// equal snapshots mean no object was added, removed or rewritten.
  package func snapshot(_ bucket: String) throws -> [String: String] {
    let text = try aws(["s3api", "list-objects-v2", "--bucket", bucket, "--output", "json"])
    // An empty bucket may answer with no output at all.
    let listing =
      text.trimmingCharacters(in: .whitespacesAndNewlines).isEmpty
      ? [:] : try jsonObject(Data(text.utf8), "list-objects-v2")
    let listed = (listing["Contents"] as? [[String: Any]]) ?? []
    let hashes = try contents(bucket)
    var objects: [String: String] = [:]
    for object in listed {
      let key = try XCTUnwrap(object["Key"] as? String)
      objects[key] =
        "\(hashes[key] ?? "missing") etag=\(object["ETag"] ?? "") modified=\(object["LastModified"] ?? "")"
    }
    XCTAssertEqual(Set(objects.keys), Set(hashes.keys), "list-objects-v2 and sync agree")
    return objects
  }

  /// The bytes of one object, read with `aws s3api get-object`, and its metadata.
  package func getObject(_ bucket: String, _ key: String) throws -> (data: Data, metadata: [String: Any]) {
    let file = FileManager.default.temporaryDirectory.appendingPathComponent("s3-object-\(UUID().uuidString)")
    defer { try? FileManager.default.removeItem(at: file) }
    let output = try aws([
      "s3api", "get-object", "--bucket", bucket, "--key", key, file.path, "--output", "json",
    ])
    return (try Data(contentsOf: file), try jsonObject(Data(output.utf8), "get-object \(key)"))
  }

  package func shutDown() {
    stopProcess(process)
    try? FileManager.default.removeItem(at: log)
  }
}

/// Tests/Fixtures/Publish/fault_proxy.py in front of moto: the same server, made to look
/// stopped on command while moto keeps its state.
package final class FaultProxy {
  package let process = Process()
  private let input = Pipe()
  private let output = Pipe()
  private(set) var port = 0
  package var endpoint: String { "http://127.0.0.1:\(port)" }

  package init(upstreamPort: Int) throws {
    process.executableURL = try PublishFixtures.program("python3", install: "install Python 3")
    process.arguments = [
      PublishFixtures.publish.appendingPathComponent("fault_proxy.py").path, String(upstreamPort),
    ]
    process.standardInput = input
    process.standardOutput = output
    process.standardError = FileHandle.standardError
    try process.run()
    guard let line = lines.next(timeout: 15), let port = Int(line) else {
      stopProcess(process)
      throw PublishSetupError(description: "fault_proxy.py did not report its port within 15 s")
    }
    self.port = port
  }

  private lazy var lines = PipeLines(output)

  /// Sends a command (see the script) and waits until it is in effect.
  package func command(_ text: String) throws {
    try input.fileHandleForWriting.write(contentsOf: Data((text + "\n").utf8))
    guard lines.next(timeout: 10) == "ok" else {
      throw PublishSetupError(description: "fault_proxy.py did not acknowledge \"\(text)\"")
    }
  }

  /// The path of every PUT relayed so far, in the order the client sent them.
  package func relayedPuts() throws -> [String] {
    try input.fileHandleForWriting.write(contentsOf: Data("puts\n".utf8))
    guard let line = lines.next(timeout: 10), lines.next(timeout: 10) == "ok" else {
      throw PublishSetupError(description: "fault_proxy.py did not answer \"puts\"")
    }
    return line.split(separator: " ").map(String.init)
  }

  package func shutDown() {
    try? input.fileHandleForWriting.close()
    stopProcess(process)
  }
}

/// Tests/Fixtures/Network/signing_proxy.py: a read-only "CDN" in front of a bucket prefix of
/// moto, which devices read without credentials while every request to moto is signed.
package final class SigningProxy {
  package let process = Process()
  private let input = Pipe()
  private let output = Pipe()
  package let baseURL: String

  package init(moto: Moto, bucket: String, prefix: String) throws {
    // boto3 comes with moto: the Python beside moto_server (Scripts/setup installs it in a
    // virtual environment), else the one on PATH.
    let motoServer = try PublishFixtures.program(
      "moto_server", install: "install it with: python3 -m pip install 'moto[server]'")
    let beside = motoServer.resolvingSymlinksInPath().deletingLastPathComponent().appendingPathComponent(
      "python3")
    process.executableURL =
      FileManager.default.isExecutableFile(atPath: beside.path)
      ? beside : try PublishFixtures.program("python3", install: "install Python 3")
    process.arguments = [
      PublishFixtures.network.appendingPathComponent("signing_proxy.py").path, moto.endpoint, bucket, prefix,
    ]
    var environment = ProcessInfo.processInfo.environment
    environment["AWS_ACCESS_KEY_ID"] = moto.accessKeyID
    environment["AWS_SECRET_ACCESS_KEY"] = moto.secret
    environment["AWS_CONFIG_FILE"] = "/dev/null"
    environment["AWS_SHARED_CREDENTIALS_FILE"] = "/dev/null"
    environment.removeValue(forKey: "AWS_SESSION_TOKEN")
    environment.removeValue(forKey: "AWS_PROFILE")
    process.environment = environment
    process.standardInput = input
    process.standardOutput = output
    process.standardError = FileHandle.standardError
    try process.run()
    guard let port = ScriptPort.read(from: output, timeout: 30) else {
      stopProcess(process)
      throw PublishSetupError(description: "signing_proxy.py did not report its port")
    }
    baseURL = "http://127.0.0.1:\(port)"
  }

  package func shutDown() {
    try? input.fileHandleForWriting.close()
    stopProcess(process)
  }
}

/// `python3 -m http.server` on 127.0.0.1 serving `directory`; its request log shows what was fetched.
package final class StaticHTTPServer {
  package let process = Process()
  package let port: Int
  package let log: URL
  package var baseURL: String { "http://127.0.0.1:\(port)" }

  package init(directory: URL) throws {
    port = try freeLocalPort()
    log = FileManager.default.temporaryDirectory.appendingPathComponent(
      "http-server-\(port)-\(UUID().uuidString).log")
    process.executableURL = try PublishFixtures.program("python3", install: "install Python 3")
    process.arguments = [
      "-u", "-m", "http.server", String(port), "--bind", "127.0.0.1", "--directory", directory.path,
    ]
    try startListening(process, port: port, log: log, name: "python3 -m http.server")
  }

  /// Request lines the server logged so far, e.g. `GET /store/index.json HTTP/1.1`.
  package var requests: [String] {
    let text = (try? String(contentsOf: log, encoding: .utf8)) ?? ""
    return text.split(separator: "\n").compactMap { line in
      guard let start = line.range(of: "\""),
        let end = line.range(of: "\"", range: start.upperBound..<line.endIndex)
      else { return nil }
      return String(line[start.upperBound..<end.lowerBound])
    }
  }

  package func shutDown() {
    stopProcess(process)
    try? FileManager.default.removeItem(at: log)
  }
}

/// The port a helper script (`fault_server.py`, `signing_proxy.py`) prints on its first line;
/// nil if it does not within `timeout` seconds or its output closes first (the script died).
package enum ScriptPort {
  package static func read(from output: Pipe, timeout: TimeInterval) -> Int? {
    PipeLines(output).next(timeout: timeout).flatMap { Int($0) }
  }
}

/// The lines a helper process writes to a pipe, one at a time, without their line ends and
/// surrounding spaces.
package final class PipeLines {
  private let handle: FileHandle
  private var buffered = Data()

  package init(_ pipe: Pipe) { handle = pipe.fileHandleForReading }

  /// The next line; nil once the output has closed (the process ended), or when `timeout`
  /// seconds have passed between reads.
  package func next(timeout: TimeInterval = .infinity) -> String? {
    let deadline = Date().addingTimeInterval(timeout)
    while Date() < deadline {
      if let newline = buffered.firstIndex(of: UInt8(ascii: "\n")) {
        let line = String(decoding: buffered[..<newline], as: UTF8.self)
        buffered.removeSubrange(...newline)
        return line.trimmingCharacters(in: .whitespaces)
      }
      let chunk = handle.availableData
      if chunk.isEmpty { return nil }
      buffered.append(chunk)
    }
    return nil
  }
}

/// One moto_server for the test process, started by the first test that needs it and stopped
/// when the process exits: a start costs seconds of CPU (Python importing moto, then the IAM
/// bootstrap), and every class's buckets have names of their own (`Moto.makeBucket`).
package final class SharedMoto: Sendable {
  /// The one shared by the classes that publish to S3 with signature checks.
  package static let shared = SharedMoto()

  private init() {}

  private let started = Locked<Result<Moto, Error>?>(nil)

  package func moto() throws -> Moto {
    try started.withLock { started in
      if started == nil {
        started = Result { try Moto() }
        // Static, so never deinitialised: stop the server when the test process exits.
        atexit { SharedMoto.shared.shutDown() }
      }
      return started!
    }.get()
  }

  private func shutDown() {
    started.withLock { started in
      if case .success(let moto)? = started { moto.shutDown() }
      started = nil
    }
  }
}
