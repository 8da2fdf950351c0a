import Foundation
import XCTest

@testable import ReleaseModels

final class DirectoryModelStoreTests: XCTestCase {
  private var temporaryDirectory: URL!

  override func setUpWithError() throws {
    temporaryDirectory = FileManager.default.temporaryDirectory
      .appendingPathComponent("DirectoryModelStoreTests-\(UUID().uuidString)")
    try FileManager.default.createDirectory(at: temporaryDirectory, withIntermediateDirectories: true)
  }

  override func tearDownWithError() throws {
    try FileManager.default.removeItem(at: temporaryDirectory)
  }

  // MARK: - The committed store

  func testCommittedStoreListsItsFlowsAndVersions() throws {
    let store = DirectoryModelStore(root: CommittedModelStore.root, displayName: "models")
    XCTAssertEqual(store.displayName, "models")
    XCTAssertEqual(
      try store.flowNames(),
      ["onboarding_upsell", "paywall_timing", "rating_request", "tracking_permission", "trial_reminder"])
    XCTAssertEqual(try store.versions(of: "onboarding_upsell"), [72, 73, 74])
    XCTAssertEqual(try store.versions(of: "paywall_timing"), [12, 13, 14, 15])
    XCTAssertEqual(try store.versions(of: "tracking_permission"), [5])
    XCTAssertEqual(try store.versions(of: "rating_request"), [30, 31])
    XCTAssertEqual(try store.versions(of: "trial_reminder"), [3])
  }

  func testCommittedStoreAgreesWithIndex() throws {
    let store = DirectoryModelStore(root: CommittedModelStore.root)
    let entries = try CommittedModelStore.index()
    XCTAssertFalse(entries.isEmpty)
    let listed = try store.flowNames().flatMap { flow in
      try store.versions(of: flow).map { ModelReference(flowName: flow, version: $0) }
    }
    XCTAssertEqual(
      listed, entries.map { ModelReference(flowName: $0.flowName, version: $0.modelVersion) }.sorted())
    for entry in entries {
      let file = try store.localFile(
        for: ModelReference(flowName: entry.flowName, version: entry.modelVersion))
      XCTAssertEqual(
        file.standardizedFileURL,
        CommittedModelStore.root.appendingPathComponent(entry.path).standardizedFileURL)
    }
  }

  func testDisplayNameDefaultsToThePath() {
    XCTAssertEqual(DirectoryModelStore(root: URL(fileURLWithPath: "/srv/models")).displayName, "/srv/models")
  }

  // MARK: - What counts as a model

  func testOnlyPlainDecimalModelFilesInFlowDirectoriesCount() throws {
    try make([
      "index.json", "README.md", ".DS_Store", "stray.mlmodel", "7.mlmodel",
      "paywall_timing/9.mlmodel", "paywall_timing/10.mlmodel", "paywall_timing/0.mlmodel",
      "paywall_timing/072.mlmodel", "paywall_timing/+5.mlmodel", "paywall_timing/-5.mlmodel",
      "paywall_timing/5.mlmodel.bak", "paywall_timing/v6.mlmodel", "paywall_timing/6.MLMODEL",
      "paywall_timing/.11.mlmodel", "paywall_timing/1e3.mlmodel",
      "paywall_timing/99999999999999999999.mlmodel",
      "paywall_timing/12.mlmodel/nested.txt",
      "notes/todo.txt", ".hidden_flow/1.mlmodel",
    ])
    try FileManager.default.createDirectory(
      at: temporaryDirectory.appendingPathComponent("empty_flow"), withIntermediateDirectories: true)
    let store = DirectoryModelStore(root: temporaryDirectory, displayName: "store")

    XCTAssertEqual(try store.flowNames(), ["paywall_timing"])
    XCTAssertEqual(try store.versions(of: "paywall_timing"), [0, 9, 10])
    XCTAssertEqual(try store.versions(of: "notes"), [])
    XCTAssertEqual(try store.versions(of: "empty_flow"), [])
    XCTAssertEqual(try store.versions(of: "unknown_flow"), [])
    XCTAssertEqual(try store.versions(of: ".hidden_flow"), [])
    XCTAssertEqual(try store.versions(of: "../\(temporaryDirectory.lastPathComponent)/paywall_timing"), [])
  }

  func testSymbolicLinksInsideTheStoreAreFollowedAndLinksOutOfItRefused() throws {
    try make(["store/models_v2/3.mlmodel", "elsewhere/3.mlmodel"])
    let root = temporaryDirectory.appendingPathComponent("store")
    try FileManager.default.createDirectory(
      at: root.appendingPathComponent("trial_reminder"), withIntermediateDirectories: true)
    try FileManager.default.createSymbolicLink(
      at: root.appendingPathComponent("trial_reminder/3.mlmodel"),
      withDestinationURL: root.appendingPathComponent("models_v2/3.mlmodel"))
    try FileManager.default.createSymbolicLink(
      at: root.appendingPathComponent("linked_flow"),
      withDestinationURL: root.appendingPathComponent("models_v2"))
    let store = DirectoryModelStore(root: root, displayName: "store")
    XCTAssertEqual(try store.flowNames(), ["linked_flow", "models_v2", "trial_reminder"])
    XCTAssertEqual(try store.versions(of: "trial_reminder"), [3])
    XCTAssertEqual(try store.versions(of: "linked_flow"), [3])

    // Out of the store, as a model file or as a flow directory: refused, naming the entry.
    try FileManager.default.createSymbolicLink(
      at: root.appendingPathComponent("trial_reminder/4.mlmodel"),
      withDestinationURL: temporaryDirectory.appendingPathComponent("elsewhere/3.mlmodel"))
    XCTAssertThrowsError(try store.versions(of: "trial_reminder")) { error in
      XCTAssertEqual(
        "\(error)",
        "store/trial_reminder/4.mlmodel: a symbolic link to \(temporaryDirectory.path)/elsewhere/3.mlmodel, outside the model store; only regular files inside it are models"
      )
    }
    try FileManager.default.createSymbolicLink(
      at: root.appendingPathComponent("outside_flow"),
      withDestinationURL: temporaryDirectory.appendingPathComponent("elsewhere"))
    XCTAssertThrowsError(try store.versions(of: "outside_flow")) { error in
      XCTAssertTrue("\(error)".hasPrefix("store/outside_flow/3.mlmodel: a symbolic link to "), "\(error)")
      XCTAssertTrue("\(error)".hasSuffix("outside the model store; only regular files inside it are models"))
    }
  }

  // MARK: - Errors

  func testMissingVersionNamesTheVersionsThereAre() throws {
    try make(["paywall_timing/9.mlmodel", "paywall_timing/10.mlmodel", "rating_request/30.mlmodel"])
    let store = DirectoryModelStore(root: temporaryDirectory, displayName: "store/")
    let reference = ModelReference(flowName: "paywall_timing", version: 99)
    XCTAssertThrowsError(try store.localFile(for: reference)) { error in
      XCTAssertEqual(
        error as? DirectoryModelStoreError,
        .modelNotFound(
          store: "store/", reference: reference, available: [9, 10],
          flows: ["paywall_timing", "rating_request"]))
      XCTAssertEqual(
        "\(error)", "store/paywall_timing/99.mlmodel: no such model; paywall_timing has versions 9, 10")
    }
  }

  func testMissingFlowNamesTheFlowsThereAre() throws {
    try make(["paywall_timing/9.mlmodel", "rating_request/30.mlmodel"])
    let store = DirectoryModelStore(root: temporaryDirectory, displayName: "store")
    XCTAssertThrowsError(try store.localFile(for: ModelReference(flowName: "paywall", version: 9))) { error in
      XCTAssertEqual(
        "\(error)",
        "store/paywall/9.mlmodel: no such model; the store has no flow \"paywall\" "
          + "(flows in the store: paywall_timing, rating_request)")
    }
  }

  func testAFileThatIsNotAModelNameIsNotFound() throws {
    try make(["paywall_timing/9.mlmodel", "paywall_timing/10.mlmodel/inside.txt"])
    let store = DirectoryModelStore(root: temporaryDirectory, displayName: "store")
    XCTAssertThrowsError(try store.localFile(for: ModelReference(flowName: "paywall_timing", version: 10))) {
      error in
      XCTAssertEqual(
        "\(error)", "store/paywall_timing/10.mlmodel: no such model; paywall_timing has versions 9")
    }
    XCTAssertThrowsError(try store.localFile(for: ModelReference(flowName: "..", version: 9))) { error in
      XCTAssertEqual(
        "\(error)",
        "store/../9.mlmodel: no such model; the store has no flow \"..\" (flows in the store: paywall_timing)"
      )
    }
  }

  func testMissingRoot() {
    let store = DirectoryModelStore(
      root: temporaryDirectory.appendingPathComponent("absent"), displayName: "absent")
    XCTAssertThrowsError(try store.flowNames()) { error in
      XCTAssertEqual(error as? DirectoryModelStoreError, .rootNotFound(store: "absent"))
      XCTAssertEqual(
        "\(error)",
        "absent: model store directory not found; expected <flowName>/<version>.mlmodel files there")
    }
    XCTAssertThrowsError(try store.localFile(for: ModelReference(flowName: "paywall_timing", version: 1))) {
      error in
      XCTAssertEqual(error as? DirectoryModelStoreError, .rootNotFound(store: "absent"))
    }
  }

  func testRootThatIsAFile() throws {
    try make(["models"])
    let store = DirectoryModelStore(
      root: temporaryDirectory.appendingPathComponent("models"), displayName: "models")
    XCTAssertThrowsError(try store.flowNames()) { error in
      XCTAssertEqual(
        "\(error)",
        "models: model store is not a directory; expected <flowName>/<version>.mlmodel files there")
    }
  }

  // MARK: - Helpers

  /// Creates each path under the temporary directory as a small file (its parents as directories).
  private func make(_ paths: [String]) throws {
    for path in paths {
      let file = temporaryDirectory.appendingPathComponent(path)
      try FileManager.default.createDirectory(
        at: file.deletingLastPathComponent(), withIntermediateDirectories: true)
      try Data(path.utf8).write(to: file)
    }
  }
}
