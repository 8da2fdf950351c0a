import Foundation
import ReleaseCLITestSupport
import ReleaseManifest
import ReleaseSettings
import ReleaseSystem
import ReleaseTestSupport
import XCTest

@testable import ReleaseCLI
@testable import ReleaseCore
@testable import ReleaseModels
@testable import ReleasePipeline

/// The SDK version a customer's first release takes (the repository's).
private let firstVersion = Workspace.sdkVersion()

/// `--models http://…` and `--models s3://…`: the store's index.json lists the models, each
/// is downloaded through libcurl into `<cache>/models/<sha256>.mlmodel` and used only when
/// its SHA-256 is the index's. Served by python's http.server and by moto_server on 127.0.0.1.
final class PublishRemoteModelStoreEndToEndTests: XCTestCase {
  private static let server = SharedMoto.shared

  static func moto() throws -> Moto {
    try server.moto()
  }

  struct IndexModel: Decodable {
    var flowName: String
    var modelVersion: Int
    var path: String
    var sha256: String
    var reference: ModelReference { ModelReference(flowName: flowName, version: modelVersion) }
  }

  /// The repository's models/index.json: what every store below serves.
  static func repositoryIndex() throws -> [IndexModel] {
    struct File: Decodable { var models: [IndexModel] }
    return try JSONDecoder().decode(
      File.self, from: Data(contentsOf: RepositoryRoot.url.appendingPathComponent("models/index.json"))
    ).models
  }

  /// Customer id → status, from the `--json` summary event.
  static func statuses(_ run: Workspace.Run) throws -> [String: String] {
    let summary = try XCTUnwrap(run.events.last { $0["event"] as? String == "summary" }, "no summary event")
    let customers = try XCTUnwrap(summary["customers"] as? [[String: Any]])
    return Dictionary(
      uniqueKeysWithValues: customers.map { ($0["id"] as? String ?? "?", $0["status"] as? String ?? "?") })
  }

  /// A served directory holding `store/`, a copy of the repository's models/.
  func servedCopy() throws -> TemporaryDirectory {
    let served = try TemporaryDirectory()
    try FileManager.default.copyItem(
      at: RepositoryRoot.url.appendingPathComponent("models"), to: served.url.appendingPathComponent("store"))
    return served
  }

  func open(_ location: String, cache: URL, environment: [String: String] = [:], s3Endpoint: String? = nil)
    throws
    -> ModelStore
  {
    var inputs = InputSettings()
    inputs.modelsPath = location
    inputs.s3Endpoint = s3Endpoint
    inputs.cachePath = cache.path
    let services = Services(
      processRunner: ScriptedProcessRunner(), clock: ManualClock(), root: cache, environment: environment,
      output: CapturedOutput())
    return try ModelStoreLocation.open(inputs, services: services)
  }

  func testHTTPStoreListsTheIndexDownloadsIntoAContentAddressedCacheAndReusesItOffline() throws {
    let served = try servedCopy()
    let server = try StaticHTTPServer(directory: served.url)
    defer { server.shutDown() }
    let cache = try TemporaryDirectory()
    let index = try Self.repositoryIndex()

    let store = try open("\(server.baseURL)/store", cache: cache.url)
    XCTAssertEqual(try store.flowNames(), Set(index.map(\.flowName)).sorted())
    for flow in Set(index.map(\.flowName)) {
      XCTAssertEqual(
        try store.versions(of: flow), index.filter { $0.flowName == flow }.map(\.modelVersion).sorted(), flow)
    }
    for model in index {
      let file = try store.localFile(for: model.reference)
      XCTAssertEqual(file.path, cache.url.appendingPathComponent("models/\(model.sha256).mlmodel").path)
      XCTAssertEqual(
        try Data(contentsOf: file),
        try Data(contentsOf: RepositoryRoot.url.appendingPathComponent("models/\(model.path)")),
        model.path)
    }
    let modelRequests = { server.requests.filter { $0.contains(".mlmodel") } }
    XCTAssertEqual(modelRequests().count, index.count, "each model downloaded once: \(server.requests)")
    XCTAssertThrowsError(try store.localFile(for: ModelReference(flowName: "onboarding_upsell", version: 99)))
    {
      XCTAssertTrue("\($0)".contains("onboarding_upsell has versions 72, 73, 74"), "\($0)")
    }

    // The models are gone from the server: a new store (index still served) uses the cache.
    for flow in Set(index.map(\.flowName)) {
      try FileManager.default.removeItem(at: served.url.appendingPathComponent("store/\(flow)"))
    }
    let reopened = try open("\(server.baseURL)/store", cache: cache.url)
    for model in index {
      XCTAssertEqual(
        try SHA256Digest.hex(ofFileAt: try reopened.localFile(for: model.reference)), model.sha256)
    }
    XCTAssertEqual(modelRequests().count, index.count, "no model fetched again: \(server.requests)")
  }

  func testATamperedModelIsRejectedNamingItAndNothingIsCached() throws {
    let served = try servedCopy()
    let tampered = try XCTUnwrap(
      try Self.repositoryIndex().first { $0.flowName == "onboarding_upsell" && $0.modelVersion == 73 })
    // Same size, other bytes (its last byte flipped): the digest is what tells (a larger file
    // is cut off by its size, URLModelStoreLimitEndToEndTests).
    let file = served.url.appendingPathComponent("store/\(tampered.path)")
    var bytes = try Data(contentsOf: file)
    bytes[bytes.count - 1] ^= 0x01
    try bytes.write(to: file)
    let server = try StaticHTTPServer(directory: served.url)
    defer { server.shutDown() }
    let cache = try TemporaryDirectory()

    let store = try open("\(server.baseURL)/store", cache: cache.url)
    XCTAssertThrowsError(try store.localFile(for: tampered.reference)) { error in
      let message = "\(error)"
      XCTAssertTrue(
        message.hasPrefix("onboarding_upsell v73 (\(server.baseURL)/store/onboarding_upsell/73.mlmodel)"),
        message)
      XCTAssertTrue(message.contains("index.json says \(tampered.sha256)"), message)
    }
    let cached =
      (try? FileManager.default.contentsOfDirectory(atPath: cache.url.appendingPathComponent("models").path))
      ?? []
    XCTAssertEqual(cached, [], "neither the final name nor a partial download is left")

    // Through the CLI: exit 2, the model named, nothing written.
    let workspace = try Workspace(manifest: PublishFixtures.manifest)
    let run = workspace.run(["customer", "acme", "--skip-tests", "--models", "\(server.baseURL)/store"])
    XCTAssertEqual(run.exitCode, 2, run.allOutput)
    XCTAssertTrue(run.allOutput.contains("onboarding_upsell v73"), run.allOutput)
    XCTAssertTrue(run.allOutput.contains("index.json says \(tampered.sha256)"), run.allOutput)
    XCTAssertFalse(FileManager.default.fileExists(atPath: workspace.dist.path), "nothing written")
  }

  /// A model the index lists but the store cannot deliver (here HTTP 404) is not bad input:
  /// the customers using it fail, the others are released, the run exits 1. The runs build with
  /// a stand-in `swift` (`StandInSwift`): acme fails in the store, before a build, and what is
  /// checked of bluebird's release is the files the tool writes around its build.
  func testAModelTheStoreCannotDeliverFailsOnlyTheCustomersUsingIt() throws {
    let served = try servedCopy()
    let lost = try XCTUnwrap(
      try Self.repositoryIndex().first { $0.flowName == "onboarding_upsell" && $0.modelVersion == 73 })
    try FileManager.default.removeItem(at: served.url.appendingPathComponent("store/\(lost.path)"))
    let server = try StaticHTTPServer(directory: served.url)
    defer { server.shutDown() }
    let workspace = try Workspace(manifest: PublishFixtures.manifest)
    let state = try Data(contentsOf: workspace.file("release-state.json"))
    let swift = try StandInSwift()

    let run = workspace.run(
      ["all", "--skip-tests", "--json", "--models", "\(server.baseURL)/store"] + swift.cacheArguments,
      environment: swift.environment)
    XCTAssertEqual(run.exitCode, 1, run.allOutput)
    XCTAssertEqual(try Self.statuses(run), ["acme": "failed", "bluebird": "built"], run.allOutput)
    let failed = try XCTUnwrap(
      run.events.first { $0["event"] as? String == "customer_failed" }, run.allOutput)
    XCTAssertEqual(failed["id"] as? String, "acme")
    XCTAssertEqual(failed["failed_step"] as? String, "fetch models")
    let reason = try XCTUnwrap(failed["reason"] as? String)
    XCTAssertTrue(reason.contains("onboarding_upsell v73"), reason)
    XCTAssertTrue(reason.contains("HTTP 404"), reason)
    XCTAssertEqual(run.standardError.last, "error: 1 customer failed: acme", run.allOutput)
    // bluebird's release is complete; nothing of acme's; no version recorded.
    XCTAssertTrue(
      FileManager.default.fileExists(
        atPath: workspace.file("dist/bluebird/\(firstVersion)/release.json").path))
    XCTAssertFalse(FileManager.default.fileExists(atPath: workspace.file("dist/acme").path))
    XCTAssertEqual(try Data(contentsOf: workspace.file("release-state.json")), state)
    XCTAssertEqual(DistInspection.problems(in: workspace.dist), [])

    // --fail-fast: the failure before building stops the others from starting.
    let fast = workspace.run(
      ["all", "--skip-tests", "--json", "--fail-fast", "--force", "--models", "\(server.baseURL)/store"]
        + swift.cacheArguments, environment: swift.environment)
    XCTAssertEqual(fast.exitCode, 1, fast.allOutput)
    XCTAssertEqual(try Self.statuses(fast), ["acme": "failed", "bluebird": "cancelled"], fast.allOutput)
  }

  func testReleaseWithAnHTTPModelStoreFindsTheSameModelsAsTheDirectory() throws {
    let served = try servedCopy()
    let server = try StaticHTTPServer(directory: served.url)
    defer { server.shutDown() }
    let workspace = try BuiltFixture.shared.get().copy()

    // The fixture was built from the models/ directory; the same bytes from the URL store
    // give the same input digests, so every customer is up to date.
    // An empty cache of its own, so what is downloaded shows in the server's log.
    let emptyCache = try TemporaryDirectory()
    let run = workspace.run(
      [
        "all", "--skip-tests", "--json", "--models", "\(server.baseURL)/store/", "--cache",
        emptyCache.url.path,
      ])
    XCTAssertEqual(run.exitCode, 0, run.allOutput)
    XCTAssertEqual(try Self.statuses(run), ["acme": "up to date", "bluebird": "up to date"], run.allOutput)
    XCTAssertTrue(server.requests.contains { $0.hasPrefix("GET /store/index.json ") }, "\(server.requests)")
    // Only the customers' own models are ever downloaded: the content checks scan for the
    // store's other models by the digests in its index.
    let fetched = server.requests.filter { $0.hasPrefix("GET /store/") && $0.contains(".mlmodel") }
    XCTAssertEqual(
      fetched.map { $0.split(separator: " ")[1] }.sorted(),
      ["/store/onboarding_upsell/72.mlmodel", "/store/onboarding_upsell/73.mlmodel"])
    for other in ["paywall_timing", "rating_request", "tracking_permission", "trial_reminder"] {
      XCTAssertFalse(fetched.contains { $0.contains("/\(other)/") }, "\(other) downloaded: \(fetched)")
    }

    // The same store named by release.config.json.
    try #"{"models": "\#(server.baseURL)/store"}"#.write(
      to: workspace.file("release.config.json"), atomically: true, encoding: .utf8)
    let indexFetches = server.requests.filter { $0.hasPrefix("GET /store/index.json ") }.count
    let configured = workspace.run(["all", "--skip-tests", "--json"])
    XCTAssertEqual(configured.exitCode, 0, configured.allOutput)
    XCTAssertEqual(
      try Self.statuses(configured), ["acme": "up to date", "bluebird": "up to date"], configured.allOutput)
    XCTAssertEqual(server.requests.filter { $0.hasPrefix("GET /store/index.json ") }.count, indexFetches + 1)

    // A URL without an index: exit 2 naming it.
    let missing = workspace.run(["all", "--skip-tests", "--models", "\(server.baseURL)/nothing-here"])
    XCTAssertEqual(missing.exitCode, 2, missing.allOutput)
    XCTAssertTrue(
      missing.allOutput.contains("\(server.baseURL)/nothing-here/index.json: cannot download"),
      missing.allOutput)
    XCTAssertTrue(missing.allOutput.contains("HTTP 404"), missing.allOutput)
  }

  func testS3ModelStoreThroughMotoWithSignedRequests() throws {
    let moto = try Self.moto()
    let bucket = try moto.makeBucket()
    try moto.aws(
      [
        "s3", "cp", "--recursive", "--quiet", RepositoryRoot.url.appendingPathComponent("models").path,
        "s3://\(bucket)/store",
      ])
    let index = try Self.repositoryIndex()

    let cache = try TemporaryDirectory()
    let store = try open(
      "s3://\(bucket)/store", cache: cache.url, environment: moto.credentials, s3Endpoint: moto.endpoint)
    XCTAssertEqual(try store.flowNames(), Set(index.map(\.flowName)).sorted())
    let model = index[0]
    XCTAssertEqual(
      try Data(contentsOf: try store.localFile(for: model.reference)),
      try Data(contentsOf: RepositoryRoot.url.appendingPathComponent("models/\(model.path)")))
    XCTAssertThrowsError(
      try open("s3://\(bucket)/store", cache: cache.url, environment: [:], s3Endpoint: moto.endpoint)
    ) {
      XCTAssertTrue("\($0)".contains("AWS_ACCESS_KEY_ID is not set"), "\($0)")
    }

    let workspace = try BuiltFixture.shared.get().copy()
    let runCache = try TemporaryDirectory()
    let run = workspace.run(
      [
        "all", "--skip-tests", "--json", "--models", "s3://\(bucket)/store", "--s3-endpoint", moto.endpoint,
        "--cache", runCache.url.path,
      ],
      environment: moto.credentials)
    XCTAssertEqual(run.exitCode, 0, run.allOutput)
    XCTAssertEqual(try Self.statuses(run), ["acme": "up to date", "bluebird": "up to date"], run.allOutput)
    // Exactly the customers' models were downloaded, verified; the content checks scanned for
    // the others by the index's digests.
    let used = index.filter { $0.flowName == "onboarding_upsell" && [72, 73].contains($0.modelVersion) }
    let cached = try FileManager.default.contentsOfDirectory(
      atPath: runCache.url.appendingPathComponent("models").path
    ).filter { !$0.hasPrefix(".") }
    XCTAssertEqual(cached.sorted(), used.map { "\($0.sha256).mlmodel" }.sorted())
    for model in used {
      let file = runCache.url.appendingPathComponent("models/\(model.sha256).mlmodel")
      XCTAssertEqual(try SHA256Digest.hex(ofFileAt: file), model.sha256, model.path)
    }

    var unsigned = moto.credentials
    unsigned["AWS_SECRET_ACCESS_KEY"] = ""
    let refused = workspace.run(
      ["all", "--skip-tests", "--models", "s3://\(bucket)/store", "--s3-endpoint", moto.endpoint],
      environment: unsigned)
    XCTAssertEqual(refused.exitCode, 2, refused.allOutput)
    XCTAssertEqual(refused.standardError.count, 1, refused.allOutput)
    XCTAssertTrue(
      refused.allOutput.contains("--models s3://\(bucket)/store: AWS_SECRET_ACCESS_KEY is not set"),
      refused.allOutput)
  }
}
