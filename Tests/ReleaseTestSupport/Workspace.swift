import Foundation
import ReleaseCore
import ReleaseSystem
import XCTest

/// A temporary project checkout for end-to-end tests: `customers.json`, `models/`,
/// `templates/` and `release-state.json` copied from the repository (each replaceable), an
/// empty `dist/`. Every workspace of the test process shares one build cache, so the SDK
/// core compiles once per `swift test` run and each customer then costs only its own module.
package final class Workspace: Sendable {
  package let root: URL

  /// Shared by every workspace in this process, so later tests reuse its warm build slots;
  /// removed when the process exits (two slots' builds are about 100 MB, and every `swift
  /// test` run has its own).
  package static let sharedCache: URL = {
    let url = sharedCachePath()
    try? FileManager.default.createDirectory(at: url, withIntermediateDirectories: true)
    atexit { try? FileManager.default.removeItem(at: Workspace.sharedCachePath()) }
    return url
  }()

  private static func sharedCachePath() -> URL {
    FileManager.default.temporaryDirectory.appendingPathComponent("release-tests-cache-\(getpid())")
  }

  /// The repository's SDK version (`release-state.json`), which a workspace's state starts at
  /// and its customers' first releases take: tests name release paths by it, so `release
  /// bump` changes no test.
  package static let sdk: SemanticVersion = {
    let url = RepositoryRoot.url.appendingPathComponent("release-state.json")
    guard let state = try? ReleaseState.load(from: url, displayPath: "release-state.json") else {
      fatalError("Workspace: \(url.path) is not a readable state file")
    }
    return state.sdkVersion
  }()

  /// `sdk` with `patches` more patch releases (a customer's release after a model change: 1).
  package static func sdkVersion(plusPatches patches: Int = 0) -> String {
    "\(sdk.major).\(sdk.minor).\(sdk.patch + patches)"
  }

  package init(manifest: String? = nil, state: String? = nil) throws {
    root = FileManager.default.temporaryDirectory.appendingPathComponent(
      "release-workspace-\(UUID().uuidString)")
    let fileManager = FileManager.default
    try fileManager.createDirectory(at: root, withIntermediateDirectories: true)
    for item in ["models", "templates"] {
      try fileManager.copyItem(
        at: RepositoryRoot.url.appendingPathComponent(item), to: root.appendingPathComponent(item))
    }
    if let manifest {
      try manifest.write(to: root.appendingPathComponent("customers.json"), atomically: true, encoding: .utf8)
    } else {
      try fileManager.copyItem(
        at: RepositoryRoot.url.appendingPathComponent("customers.json"),
        to: root.appendingPathComponent("customers.json"))
    }
    try (state ?? #"{"sdkVersion": "\#(Self.sdk)", "customers": {}}"#)
      .write(to: root.appendingPathComponent("release-state.json"), atomically: true, encoding: .utf8)
  }

  deinit { try? FileManager.default.removeItem(at: root) }

  package var dist: URL { root.appendingPathComponent("dist") }

  package func file(_ path: String) -> URL { root.appendingPathComponent(path) }

  /// Every file below `directory` (relative path → SHA-256); empty when it does not exist.
  /// Used to show that a failed or refused run changed nothing.
  package static func snapshot(_ directory: URL) -> [String: String] {
    var files: [String: String] = [:]
    guard let enumerator = FileManager.default.enumerator(atPath: directory.path) else { return files }
    while let path = enumerator.nextObject() as? String {
      guard enumerator.fileAttributes?[.type] as? FileAttributeType == .typeRegular else { continue }
      files[path] = (try? SHA256Digest.hex(ofFileAt: directory.appendingPathComponent(path))) ?? "unreadable"
    }
    return files
  }
}

/// The `release` executable built beside the tests, for runs that need their own process
/// (SIGKILL, two concurrent runs, environment, timeouts).
package enum ReleaseBinary {
  package static var url: URL {
    let candidates = [
      Bundle.main.bundleURL.appendingPathComponent("release"),
      Bundle.main.bundleURL.deletingLastPathComponent().appendingPathComponent("release"),
      RepositoryRoot.url.appendingPathComponent(".build/debug/release"),
    ]
    guard let found = candidates.first(where: { FileManager.default.isExecutableFile(atPath: $0.path) })
    else {
      XCTFail("the release executable was not built beside the tests (looked in \(candidates.map(\.path)))")
      return candidates[2]
    }
    return found
  }
}
