import Foundation
import ReleaseCLITestSupport
import ReleaseManifest
import ReleaseNetwork
import ReleaseSettings
import ReleaseSystem
import ReleaseTestSupport
import XCTest

@testable import ReleaseCLI
@testable import ReleaseCore
@testable import ReleaseModels
@testable import ReleasePipeline

/// Issue 12, "URL model stores": a store is https (plain http only on this machine), a
/// redirect may lead only to https, and a model may not be larger than the index says: the
/// transfer stops as soon as more bytes arrive, and nothing of it is left in the cache.
final class URLModelStoreLimitEndToEndTests: XCTestCase {
  private func open(_ location: String, cache: URL, maximumModelSize: Int64? = nil) throws -> ModelStore {
    var inputs = InputSettings()
    inputs.modelsPath = location
    if let maximumModelSize { inputs.maximumModelSize = maximumModelSize }
    inputs.cachePath = cache.path
    let services = Services(
      processRunner: ScriptedProcessRunner(), clock: ManualClock(), root: cache, environment: [:],
      output: CapturedOutput(), http: TestHTTP.retryingAtOnce)
    return try ModelStoreLocation.open(inputs, services: services)
  }

  /// A copy of the repository's model store under `<served>/store`, to serve, with its
  /// index.json (file and contents) for a test to edit.
  private func servedCopyOfTheStore() throws -> (
    served: TemporaryDirectory, indexFile: URL, index: [String: Any]
  ) {
    let served = try TemporaryDirectory()
    let store = served.url.appendingPathComponent("store")
    try FileManager.default.copyItem(at: RepositoryRoot.url.appendingPathComponent("models"), to: store)
    let indexFile = store.appendingPathComponent("index.json")
    let index = try XCTUnwrap(
      JSONSerialization.jsonObject(with: Data(contentsOf: indexFile)) as? [String: Any])
    return (served, indexFile, index)
  }

  func testAModelLargerThanTheIndexSaysIsCutOffAndLeavesNothing() throws {
    let (served, indexFile, original) = try servedCopyOfTheStore()
    var index = original
    var models = try XCTUnwrap(index["models"] as? [[String: Any]])
    // The index says onboarding_upsell v73 has 100 bytes fewer than the file the server sends.
    let position = try XCTUnwrap(
      models.firstIndex { $0["path"] as? String == "onboarding_upsell/73.mlmodel" })
    let size = try XCTUnwrap(models[position]["size"] as? Int)
    models[position]["size"] = size - 100
    index["models"] = models
    try JSONSerialization.data(withJSONObject: index).write(to: indexFile)
    let server = try StaticHTTPServer(directory: served.url)
    defer { server.shutDown() }
    let cache = try TemporaryDirectory()

    let opened = try open("\(server.baseURL)/store", cache: cache.url)
    XCTAssertThrowsError(
      try opened.localFile(for: ModelReference(flowName: "onboarding_upsell", version: 73))
    ) {
      XCTAssertTrue(
        "\($0)".contains("the server sent more than \(size - 100) bytes, the size index.json gives"), "\($0)")
    }
    let left =
      FileManager.default.enumerator(atPath: cache.url.path)?.allObjects.compactMap { $0 as? String }
      .filter { $0.hasSuffix(".mlmodel") || $0.contains("download") } ?? []
    XCTAssertEqual(left, [], "nothing of the download is left")
  }

  /// `--max-model-size` caps every model, whatever the index says: an index entry claiming more
  /// is bad input, named, when the store is opened (it allowed a 100 GB download before).
  func testAnIndexSizeAboveTheModelSizeLimitIsRefused() throws {
    let (served, indexFile, original) = try servedCopyOfTheStore()
    var index = original
    var models = try XCTUnwrap(index["models"] as? [[String: Any]])
    // The largest model: a limit of its size admits every model of the store.
    let sizes = models.map { $0["size"] as? Int ?? 0 }
    let size = try XCTUnwrap(sizes.max())
    let position = try XCTUnwrap(sizes.firstIndex(of: size))
    XCTAssertEqual(sizes.filter { $0 == size }.count, 1)
    models[position]["size"] = 100_000_000_000
    index["models"] = models
    try JSONSerialization.data(withJSONObject: index).write(to: indexFile)
    let server = try StaticHTTPServer(directory: served.url)
    defer { server.shutDown() }
    let cache = try TemporaryDirectory()

    XCTAssertThrowsError(try open("\(server.baseURL)/store", cache: cache.url)) { error in
      XCTAssertEqual(
        "\(error)",
        "\(server.baseURL)/store/index.json: models[\(position)].size: 100000000000 bytes is more than --max-model-size allows (536870912 bytes)"
      )
    }
    // The real size under a limit just below it: refused the same way.
    models[position]["size"] = size
    index["models"] = models
    try JSONSerialization.data(withJSONObject: index).write(to: indexFile)
    XCTAssertThrowsError(
      try open("\(server.baseURL)/store", cache: cache.url, maximumModelSize: Int64(size - 1))
    ) {
      XCTAssertTrue(
        "\($0)".contains("models[\(position)].size: \(size) bytes is more than --max-model-size"), "\($0)")
    }
    XCTAssertNoThrow(try open("\(server.baseURL)/store", cache: cache.url, maximumModelSize: Int64(size)))
  }

  /// A model downloaded but not yet checked and renamed into the cache is a temporary of the
  /// run: SIGTERM then removes it like any other, and one a killed run left behind (its pid
  /// gone) is swept by the next that opens the store.
  func testSIGTERMAfterAModelDownloadLeavesNothingInTheCache() throws {
    let served = try TemporaryDirectory()
    try FileManager.default.copyItem(
      at: RepositoryRoot.url.appendingPathComponent("models"), to: served.url.appendingPathComponent("store"))
    let server = try StaticHTTPServer(directory: served.url)
    defer { server.shutDown() }
    let workspace = try Workspace(manifest: PublishFixtures.manifest)
    let models = workspace.file("cache/models")
    try FileManager.default.createDirectory(at: models, withIntermediateDirectories: true)
    // A pid that has ended: a run killed with SIGKILL left its temporary.
    let ended = Process()
    ended.executableURL = URL(fileURLWithPath: "/bin/true")
    try ended.run()
    ended.waitUntilExit()
    let abandoned = models.appendingPathComponent(
      ".\(String(repeating: "0", count: 64)).mlmodel.tmp-\(ended.processIdentifier)-abcdefgh")
    try Data("partial".utf8).write(to: abandoned)
    let gate = try TemporaryDirectory()

    let running = try RunningBinary(
      [
        "customer", "acme", "--dry-run", "--models", "\(server.baseURL)/store", "--cache",
        workspace.file("cache").path,
      ], in: workspace.root,
      environment: ReleaseBinary.environment([
        "RELEASE_PAUSE_AT": "model.downloaded", "RELEASE_PAUSE_GATE": gate.url.path,
      ]))
    XCTAssertTrue(
      running.reachedPausePoint(gate: gate.url, timeout: 60),
      "the download finished and paused before its check")
    let held = try FileManager.default.contentsOfDirectory(atPath: models.path)
    XCTAssertFalse(held.isEmpty, "the downloaded model is in the cache directory, not yet under its name")
    kill(running.pid, SIGTERM)
    let run = running.wait(timeout: 30)
    XCTAssertEqual(run.exitCode, 143, run.allOutput)
    XCTAssertEqual(
      try FileManager.default.contentsOfDirectory(atPath: models.path).filter {
        !$0.hasSuffix(".mlmodel") || $0.hasPrefix(".")
      },
      [], "nothing but checked models is left (held while paused: \(held))")
  }

  /// index.json may have 16 MiB: one byte more is refused, whether the server announces it
  /// (Content-Length) or not (chunked); exactly 16 MiB gets as far as being parsed.
  func testAnIndexLargerThan16MiBIsRefused() throws {
    let server = try FaultServerProcess(script: "fault_server.py")
    defer { server.stop() }
    let cache = try TemporaryDirectory()
    let limit = 16 * 1024 * 1024
    XCTAssertEqual(RemoteModelStore.maximumIndexSize, Int64(limit))
    for mode in ["length", "chunked"] {
      XCTAssertThrowsError(
        try open("http://127.0.0.1:\(server.port)/sized/\(limit + 1)/\(mode)", cache: cache.url)
      ) { error in
        XCTAssertTrue("\(error)".contains("cannot download the model store's index"), "\(mode): \(error)")
        XCTAssertTrue("\(error)".contains("more than \(limit) bytes"), "\(mode): \(error)")
      }
      XCTAssertThrowsError(
        try open("http://127.0.0.1:\(server.port)/sized/\(limit)/\(mode)", cache: cache.url)
      ) {
        error in
        XCTAssertTrue("\(error)".contains("index.json: expected {"), "\(mode): read and parsed: \(error)")
      }
    }
  }

  func testAStoreRedirectMayLeadOnlyToHTTPS() throws {
    // Every request, index.json included, answered with a redirect to a plain-http host elsewhere.
    let server = try FaultServerProcess(
      script: "redirect_server.py", arguments: ["http://models.example.invalid/store/index.json"])
    defer { server.stop() }
    let cache = try TemporaryDirectory()
    XCTAssertThrowsError(try open("http://127.0.0.1:\(server.port)/store", cache: cache.url)) { error in
      XCTAssertTrue("\(error)".contains("cannot download the model store's index"), "\(error)")
      XCTAssertTrue("\(error)".lowercased().contains("protocol"), "refused for its protocol: \(error)")
    }
  }

  /// Loopback is an address, not a prefix of a name: real loopback addresses get as far as
  /// connecting (port 1: nothing listens, so the index cannot be downloaded); hosts that only
  /// look like loopback, such as `127.attacker.example`, are refused when the settings are
  /// resolved (`SettingsResolutionTests`).
  func testRealLoopbackAddressesGetAsFarAsConnecting() throws {
    let cache = try TemporaryDirectory()
    for host in ["127.8.9.10", "[::1]", "LocalHost"] {
      XCTAssertThrowsError(try open("http://\(host):1/store", cache: cache.url), host) { error in
        XCTAssertTrue("\(error)".contains("cannot download the model store's index"), "\(host): \(error)")
      }
    }
  }
}

/// A Python server of Tests/Fixtures/Network on a free port of 127.0.0.1, which prints its port.
final class FaultServerProcess {
  let process = Process()
  let port: Int

  init(script: String, arguments: [String] = []) throws {
    let output = Pipe()
    process.executableURL = try PublishFixtures.program("python3", install: "install Python 3")
    process.arguments = [PublishFixtures.network.appendingPathComponent(script).path] + arguments
    process.standardInput = Pipe()
    process.standardOutput = output
    try process.run()
    guard let port = ScriptPort.read(from: output, timeout: 15) else {
      process.terminate()
      throw PublishSetupError(description: "fault_server.py did not report its port")
    }
    self.port = port
  }

  func stop() {
    process.terminate()
    process.waitUntilExit()
  }
}
