import Foundation
import ReleaseNetwork
import ReleaseSystem
import XCTest

#if canImport(Glibc)
  import Glibc
#endif

/// A setup failure, with the message a test should fail with.
struct TestSetupError: Error, CustomStringConvertible {
  var description: String
}

enum Fixtures {
  static let directory = URL(fileURLWithPath: #filePath).deletingLastPathComponent()
    .deletingLastPathComponent().appendingPathComponent("Fixtures/Network")

  static func program(_ name: String, install: String) throws -> URL {
    guard let url = SystemProcessRunner.find(name) else {
      throw TestSetupError(description: "\(name) not found on PATH: \(install)")
    }
    return url
  }

  static func python() throws -> URL {
    try program("python3", install: "install Python 3 (the network tests' fixture servers use it)")
  }

  /// A fresh directory under the system temporary directory; the caller removes it.
  static func temporaryDirectory() throws -> URL {
    let url = FileManager.default.temporaryDirectory.appendingPathComponent(
      "release-network-\(UUID().uuidString)")
    try FileManager.default.createDirectory(at: url, withIntermediateDirectories: true)
    return url
  }
}

/// A port on 127.0.0.1 with nothing listening on it (the kernel picked it as free; it stays
/// free unless another process happens to take it in between).
func unusedLocalPort() throws -> Int {
  #if os(Linux)
    let descriptor = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
  #else
    let descriptor = socket(AF_INET, SOCK_STREAM, 0)
  #endif
  guard descriptor >= 0 else { throw TestSetupError(description: "socket() failed") }
  defer { close(descriptor) }
  var address = sockaddr_in()
  #if !os(Linux)
    address.sin_len = UInt8(MemoryLayout<sockaddr_in>.size)
  #endif
  address.sin_family = sa_family_t(AF_INET)
  address.sin_port = 0
  address.sin_addr.s_addr = inet_addr("127.0.0.1")
  var length = socklen_t(MemoryLayout<sockaddr_in>.size)
  let bound = withUnsafeMutablePointer(to: &address) {
    $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { pointer -> Bool in
      bind(descriptor, pointer, length) == 0 && getsockname(descriptor, pointer, &length) == 0
    }
  }
  guard bound else { throw TestSetupError(description: "cannot bind a port on 127.0.0.1") }
  return Int(UInt16(bigEndian: address.sin_port))
}

/// Stops a child process: SIGTERM, then SIGKILL if it is still there after a few seconds.
func stop(_ process: Process) {
  guard process.isRunning else { return }
  process.terminate()
  let deadline = Date().addingTimeInterval(5)
  while process.isRunning && Date() < deadline { usleep(50_000) }
  if process.isRunning { kill(process.processIdentifier, SIGKILL) }
  process.waitUntilExit()
}

/// Tests/Fixtures/Network/fault_server.py, running; see the script for its routes.
final class FaultServer {
  let process = Process()
  private let input = Pipe()
  let port: Int

  init() throws {
    let output = Pipe()
    process.executableURL = try Fixtures.python()
    process.arguments = [Fixtures.directory.appendingPathComponent("fault_server.py").path]
    process.standardInput = input
    process.standardOutput = output
    try process.run()
    // The script prints its port once it listens; wait for that line, but not forever.
    let lineRead = DispatchSemaphore(value: 0)
    let reader = output.fileHandleForReading
    let reported = Locked<Int?>(nil)
    DispatchQueue.global().async {
      var line = Data()
      while !line.contains(UInt8(ascii: "\n")) {
        let chunk = reader.availableData
        if chunk.isEmpty { break }
        line.append(chunk)
      }
      reported.set(Int(String(decoding: line, as: UTF8.self).trimmingCharacters(in: .whitespacesAndNewlines)))
      lineRead.signal()
    }
    guard lineRead.wait(timeout: .now() + 15) == .success, let port = reported.value else {
      stop(process)
      throw TestSetupError(description: "fault_server.py did not report its port within 15 s")
    }
    self.port = port
  }

  func url(_ path: String) -> URL { URL(string: "http://127.0.0.1:\(port)\(path)")! }

  deinit {
    // Closing stdin makes the script exit; stop() covers a script that does not.
    try? input.fileHandleForWriting.close()
    stop(process)
  }
}

/// moto_server on a free port on 127.0.0.1, checking signatures (INITIAL_NO_AUTH_ACTION_COUNT=0),
/// with an IAM user whose key may do anything in S3 (made by Tests/Fixtures/Network/moto_bootstrap.py).
/// With `checkingSignatures: false` it accepts any request and any key (moto 5 cannot check
/// query-string signatures: a presigned GET answers 500 when checks are on).
final class MotoServer: Sendable {
  let process = Process()
  let port: Int
  let endpoint: URL
  let credentials: S3Credentials
  /// The same key, for the aws CLI's environment (the secret is deliberately not printable
  /// from `credentials`).
  private let secretForCLI: String
  private let logFile: URL
  static let region = "us-east-1"

  init(checkingSignatures: Bool = true) throws {
    let motoServer = try Fixtures.program(
      "moto_server", install: "install it with: pip install 'moto[server]' (the S3 tests need it)")
    port = try unusedLocalPort()
    endpoint = URL(string: "http://127.0.0.1:\(port)")!
    logFile = FileManager.default.temporaryDirectory.appendingPathComponent(
      "moto-\(port)-\(UUID().uuidString).log")
    _ = FileManager.default.createFile(atPath: logFile.path, contents: nil)
    let log = try FileHandle(forWritingTo: logFile)
    defer { try? log.close() }

    var environment = ProcessInfo.processInfo.environment
    if checkingSignatures {
      environment["INITIAL_NO_AUTH_ACTION_COUNT"] = "0"
    } else {
      environment.removeValue(forKey: "INITIAL_NO_AUTH_ACTION_COUNT")
    }
    process.executableURL = motoServer
    process.arguments = ["-H", "127.0.0.1", "-p", String(port)]
    process.environment = environment
    process.standardInput = FileHandle.nullDevice
    process.standardOutput = log
    process.standardError = log
    try process.run()

    do {
      try Self.waitUntilAnswering(endpoint, process: process, logFile: logFile)
      guard checkingSignatures else {
        let secret = "unchecked-\(UUID().uuidString)"
        credentials = S3Credentials(accessKeyID: "AKIAUNCHECKED", secretAccessKey: secret)
        secretForCLI = secret
        return
      }
      let bootstrap = try SystemProcessRunner().run(
        ProcessInvocation(
          try Fixtures.python().path,
          [Fixtures.directory.appendingPathComponent("moto_bootstrap.py").path, endpoint.absoluteString]))
      let fields = bootstrap.standardOutput.split(whereSeparator: \.isWhitespace).map(String.init)
      guard bootstrap.exitCode == 0, fields.count == 2 else {
        throw TestSetupError(description: "moto_bootstrap.py failed: \(bootstrap.standardError)")
      }
      credentials = S3Credentials(accessKeyID: fields[0], secretAccessKey: fields[1])
      secretForCLI = fields[1]
    } catch {
      stop(process)
      throw error
    }
  }

  /// Polls until moto answers HTTP at all (any status), for at most 60 s.
  private static func waitUntilAnswering(_ endpoint: URL, process: Process, logFile: URL) throws {
    let probe = CurlHTTPClient(retryPolicy: .singleAttempt, connectTimeout: 1)
    let request = HTTPRequest(
      .get, endpoint.appendingPathComponent("moto-api"), acceptedStatuses: Set(100...599))
    let deadline = Date().addingTimeInterval(60)
    while Date() < deadline {
      if (try? probe.send(request)) != nil { return }
      guard process.isRunning else {
        let log = (try? String(contentsOf: logFile, encoding: .utf8)) ?? ""
        throw TestSetupError(description: "moto_server exited during startup:\n\(log.suffix(2000))")
      }
      usleep(100_000)
    }
    throw TestSetupError(description: "moto_server did not answer on \(endpoint) within 60 s")
  }

  /// Runs the aws CLI against this server with the bootstrap key; a non-zero exit is thrown.
  @discardableResult
  func aws(_ arguments: [String]) throws -> ProcessResult {
    let cli = try Fixtures.program("aws", install: "install it with: pip install awscli")
    var environment = ProcessInfo.processInfo.environment
    environment["AWS_ACCESS_KEY_ID"] = credentials.accessKeyID
    environment["AWS_SECRET_ACCESS_KEY"] = secretForCLI
    environment["AWS_DEFAULT_REGION"] = Self.region
    environment["AWS_EC2_METADATA_DISABLED"] = "true"
    environment["AWS_CONFIG_FILE"] = "/dev/null"
    environment["AWS_SHARED_CREDENTIALS_FILE"] = "/dev/null"
    environment.removeValue(forKey: "AWS_SESSION_TOKEN")
    environment.removeValue(forKey: "AWS_PROFILE")
    let result = try SystemProcessRunner().run(
      ProcessInvocation(
        cli.path, ["--endpoint-url", endpoint.absoluteString] + arguments, environment: environment))
    guard result.exitCode == 0 else {
      throw TestSetupError(
        description:
          "aws \(arguments.joined(separator: " ")) exited \(result.exitCode): \(result.standardError)")
    }
    return result
  }

  /// Stops the server; called at teardown, since test case instances (which refer to the
  /// server) live until the process ends.
  func shutDown() {
    stop(process)
    try? FileManager.default.removeItem(at: logFile)
  }
}

/// An injected `RetryPolicy.sleep` that records the waits instead of sleeping.
final class RecordedSleeps: Sendable {
  private let recorded = Locked<[TimeInterval]>([])

  var delays: [TimeInterval] { recorded.value }

  /// Attempts made by one request: every wait precedes one more attempt.
  var attempts: Int { delays.count + 1 }

  func policy(maximumAttempts: Int = 4) -> RetryPolicy {
    RetryPolicy(maximumAttempts: maximumAttempts, initialDelay: 0.5, maximumDelay: 8) { delay in
      self.recorded.withLock { $0.append(delay) }
    }
  }
}

/// One moto_server with one bucket for a whole test class (startup takes seconds): started by
/// the class's `setUp()`, stopped by its `tearDown()`. Without moto every test of the class
/// fails with the reason; it never skips, since that would prove nothing.
final class ClassMoto: Sendable {
  let bucket: String
  private let checkingSignatures: Bool
  private let started = Locked<Result<MotoServer, Error>?>(nil)

  init(bucket: String, checkingSignatures: Bool = true) {
    self.bucket = bucket
    self.checkingSignatures = checkingSignatures
  }

  func start() {
    started.set(
      Result {
        let server = try MotoServer(checkingSignatures: checkingSignatures)
        try server.aws(["s3api", "create-bucket", "--bucket", bucket])
        return server
      })
  }

  func stop() {
    started.withLock { server in
      if case .success(let running)? = server { running.shutDown() }
      server = nil
    }
  }

  /// Runs `test` when the server is up; else fails it with why.
  func run(_ test: () -> Void, in testClass: String) {
    switch started.value {
    case .success?: test()
    case .failure(let error)?: XCTFail("\(testClass) needs moto_server: \(error)")
    case nil: XCTFail("\(testClass): its class setUp() did not start moto_server")
    }
  }

  /// The running server (the class's tests run only when it started).
  var running: MotoServer {
    get throws { try XCTUnwrap(started.value).get() }
  }
}
