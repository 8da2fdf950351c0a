import Foundation
import ReleaseCLITestSupport
import ReleaseGeneration
import ReleaseManifest
import ReleaseSystem
import ReleaseTestSupport
import XCTest

@testable import ReleaseModels

/// Issue 12, "model store entries": only regular files are models. A link to /dev/zero, a FIFO,
/// a link leading out of the store, and a model over the size limit are each refused with one
/// clear line (exit 2) within seconds — never a hang — by `release all` (also when every customer
/// is up to date, where the foreign-model scan hashes the whole store) and by `release verify`.
/// Each run is its own process with a short time limit, so a hang fails the test instead of
/// blocking the suite.
final class ModelStoreEntryEndToEndTests: XCTestCase {
  /// A workspace whose acme (onboarding_upsell v73) is built and up to date in dist/: a copy of
  /// the test process's one build of the fixture customers.
  private func builtWorkspace() throws -> Workspace {
    try BuiltFixture.shared.get().copy()
  }

  private func assertRefusedQuickly(
    _ arguments: [String], in workspace: Workspace, expected: String, file: StaticString = #filePath,
    line: UInt = #line
  ) throws {
    let run = try ReleaseBinary.run(
      arguments
        + (["all", "customer"].contains(arguments[0]) ? ["--cache", Workspace.sharedCache.path] : []),
      in: workspace.root, timeout: 20)
    XCTAssertFalse(run.timedOut, "\(arguments) hung: \(run.allOutput)", file: file, line: line)
    XCTAssertEqual(run.exitCode, 2, "\(arguments): \(run.allOutput)", file: file, line: line)
    XCTAssertTrue(
      run.standardError.contains(expected), "\(arguments): \(run.standardError)", file: file, line: line)
  }

  func testALinkToDevZeroIsRefusedWithinSeconds() throws {
    let workspace = try builtWorkspace()
    let entry = workspace.file("models/paywall_timing/99.mlmodel")
    try FileManager.default.createSymbolicLink(atPath: entry.path, withDestinationPath: "/dev/zero")
    let expected =
      "models/paywall_timing/99.mlmodel: a symbolic link to /dev/zero, outside the model store; only regular files inside it are models"
    try assertRefusedQuickly(["all"], in: workspace, expected: expected)
    try assertRefusedQuickly(["verify", "dist", "--no-build"], in: workspace, expected: expected)
  }

  func testAFIFOIsRefusedWithinSeconds() throws {
    let workspace = try builtWorkspace()
    let entry = workspace.file("models/onboarding_upsell/80.mlmodel")
    XCTAssertEqual(mkfifo(entry.path, 0o644), 0, String(cString: strerror(errno)))
    let expected =
      "models/onboarding_upsell/80.mlmodel: a FIFO, not a regular file; only regular files are models"
    try assertRefusedQuickly(["all"], in: workspace, expected: expected)
    try assertRefusedQuickly(["customer", "acme"], in: workspace, expected: expected)
    try assertRefusedQuickly(["verify", "dist", "--no-build"], in: workspace, expected: expected)
  }

  func testALinkInsideTheStoreIsAModelAndOneOutsideIsNot() throws {
    let workspace = try builtWorkspace()
    // Inside: an alias of another model file of the store is fine.
    try FileManager.default.createSymbolicLink(
      atPath: workspace.file("models/onboarding_upsell/75.mlmodel").path, withDestinationPath: "74.mlmodel")
    let inside = try ReleaseBinary.run(
      ["all", "--skip-tests", "--cache", Workspace.sharedCache.path], in: workspace.root, timeout: 120)
    XCTAssertEqual(inside.exitCode, 0, inside.allOutput)
    // Outside: a real model, but not the store's.
    let elsewhere = workspace.file("elsewhere.mlmodel")
    try FileManager.default.copyItem(at: workspace.file("models/onboarding_upsell/74.mlmodel"), to: elsewhere)
    try FileManager.default.createSymbolicLink(
      atPath: workspace.file("models/onboarding_upsell/76.mlmodel").path, withDestinationPath: elsewhere.path)
    try assertRefusedQuickly(
      ["all"], in: workspace,
      expected:
        "models/onboarding_upsell/76.mlmodel: a symbolic link to \(elsewhere.path), outside the model store; only regular files inside it are models"
    )
  }

  func testAModelOverTheSizeLimitIsRefused() throws {
    let workspace = try builtWorkspace()
    // The limit holds for every model of the store (the scan for other customers' models reads
    // them all): one byte under the largest, as make-models recorded the sizes, refuses the
    // first of the largest in flow and version order.
    let index = try XCTUnwrap(
      JSONSerialization.jsonObject(with: Data(contentsOf: workspace.file("models/index.json")))
        as? [String: Any])
    let models = try XCTUnwrap(index["models"] as? [[String: Any]]).compactMap {
      entry -> (String, Int, Int)? in
      guard let flow = entry["flowName"] as? String, let version = entry["modelVersion"] as? Int,
        let size = entry["size"] as? Int
      else { return nil }
      return (flow, version, size)
    }
    let size = try XCTUnwrap(models.map(\.2).max())
    let largest = try XCTUnwrap(models.filter { $0.2 == size }.min { ($0.0, $0.1) < ($1.0, $1.1) })
    try assertRefusedQuickly(
      ["all", "--max-model-size", "\(size - 1)"], in: workspace,
      expected:
        "models/\(largest.0)/\(largest.1).mlmodel: \(size) bytes, over the limit of \(size - 1) bytes per model (--max-model-size)"
    )
    let within = try ReleaseBinary.run(
      ["all", "--skip-tests", "--max-model-size", "\(size)", "--cache", Workspace.sharedCache.path],
      in: workspace.root,
      timeout: 120)
    XCTAssertEqual(within.exitCode, 0, within.allOutput)
    try assertRefusedQuickly(
      ["all", "--max-model-size", "12x"], in: workspace,
      expected: "--max-model-size: expected a size in bytes, or with KB, MB or GB (e.g. 512MB), found \"12x\""
    )
  }

  /// The store checks an entry with lstat/stat, and its readers open it later: a FIFO put in its
  /// place in between (after the listing) blocked every reader in open(2) with nothing to say
  /// why. Each reader of a model's bytes opens without blocking and refuses what is not a
  /// regular file. Bounded: a reader still blocked after 5 s is released by opening the FIFO for
  /// writing, and fails the test.
  func testAFIFOSwappedInAfterTheCheckIsRefusedByEveryReader() throws {
    let directory = try TemporaryDirectory()
    let root = directory.url.appendingPathComponent("models")
    try FileManager.default.copyItem(at: RepositoryRoot.url.appendingPathComponent("models"), to: root)
    let store = DirectoryModelStore(root: root, displayName: "models")
    let reference = ModelReference(flowName: "onboarding_upsell", version: 73)
    let file = try store.localFile(for: reference)
    let (sha256, size) = try SHA256Digest.hexAndSize(ofFileAt: file)
    try FileManager.default.removeItem(at: file)
    XCTAssertEqual(mkfifo(file.path, 0o644), 0, String(cString: strerror(errno)))

    let model = CustomModel(flowId: 8362, flowName: "onboarding_upsell", modelVersion: 73)
    let readers: [(String, @Sendable () throws -> Void)] = [
      ("SHA-256", { _ = try SHA256Digest.hexAndSize(ofFileAt: file) }),
      ("Core ML reader", { _ = try CoreMLModelInfo.load(contentsOf: file) }),
      (
        "package generator",
        {
          let output = FileManager.default.temporaryDirectory.appendingPathComponent(
            "fifo-\(UUID().uuidString)")
          defer { try? FileManager.default.removeItem(at: output) }
          let customer = try XCTUnwrap(
            try ManifestLoader.load(
              contentsOf: RepositoryRoot.url.appendingPathComponent("customers.json"),
              displayPath: "customers.json",
              store: DirectoryModelStore(root: RepositoryRoot.url.appendingPathComponent("models"))
            ).customer(matching: "acme"))
          let templates = RepositoryRoot.url.appendingPathComponent("templates/ContextSDK")
          let sdkVersion = try PackageGenerator.templateSDKVersion(templates)
          let input = GenerationInput(
            customer: customer, version: sdkVersion, sdkVersion: sdkVersion,
            models: [
              EmbeddedModel(
                model: model, sourceFile: file, sha256: sha256, size: size, inputNames: [],
                specificationVersion: 4)
            ])
          _ = try PackageGenerator.generate(
            input, template: try PackageTemplate.load(templates), into: output)
        }
      ),
    ]
    for (name, read) in readers {
      let finished = DispatchSemaphore(value: 0)
      let outcome = Locked<Result<Void, Error>?>(nil)
      Thread.detachNewThread {
        outcome.set(Result { try read() })
        finished.signal()
      }
      if finished.wait(timeout: .now() + 5) == .timedOut {
        // Release the blocked reader: a writer opening and closing the FIFO gives it an EOF.
        let writer = open(file.path, O_WRONLY | O_NONBLOCK)
        if writer >= 0 { close(writer) }
        _ = finished.wait(timeout: .now() + 5)
        XCTFail("\(name): blocked on the FIFO")
        continue
      }
      switch outcome.value {
      case .failure(let error)?:
        XCTAssertTrue("\(error)".contains("a FIFO, not a regular file"), "\(name): \(error)")
      default:
        XCTFail("\(name): read the FIFO as if it were a model")
      }
    }
  }
}
