import Foundation
import ReleaseManifest
import ReleaseSystem
import ReleaseTestSupport
import XCTest

@testable import ReleaseModels
@testable import ReleasePipeline

/// The foreign-model scan needs the digest of every model of a directory store; the cache
/// (`<cache>/model-digests.json`) spares reading the ones whose file is unchanged, keyed by
/// path, device, inode, size, modification and change time.
final class ModelDigestCacheTests: XCTestCase {
  private func store() throws -> (TemporaryDirectory, DirectoryModelStore) {
    let directory = try TemporaryDirectory()
    let root = directory.url.appendingPathComponent("models")
    try FileManager.default.copyItem(at: RepositoryRoot.url.appendingPathComponent("models"), to: root)
    return (directory, DirectoryModelStore(root: root, displayName: "models"))
  }

  func testUnchangedModelsAreNotReadAgainAndAChangedOneIs() throws {
    let (directory, store) = try store()
    let cacheDirectory = directory.url.appendingPathComponent("cache")
    let first = ModelDigestCache(directory: cacheDirectory)
    let fresh = try StoreModels(store, digests: first)
    try first.save()
    let count = fresh.count
    XCTAssertGreaterThan(count, 5)
    XCTAssertEqual(first.filesRead, count, "an empty cache reads every model")

    let second = ModelDigestCache(directory: cacheDirectory)
    let cached = try StoreModels(store, digests: second)
    XCTAssertEqual(second.filesRead, 0, "nothing changed, nothing read")
    XCTAssertEqual(cached.hashes, fresh.hashes)
    try second.save()

    // One model changes (rewritten, one byte more): only it is read again, with its new digest.
    let reference = ModelReference(flowName: "onboarding_upsell", version: 72)
    let file = try store.localFile(for: reference)
    var bytes = try Data(contentsOf: file)
    bytes.append(0)
    try bytes.write(to: file)
    let third = ModelDigestCache(directory: cacheDirectory)
    let changed = try StoreModels(store, digests: third)
    XCTAssertEqual(third.filesRead, 1)
    XCTAssertEqual(changed.hashes[reference], try SHA256Digest.hex(ofFileAt: file))
  }

  /// The cache is input the tool did not check: an unreadable one only costs the reads.
  func testACacheThatIsNotOneIsIgnored() throws {
    let (directory, store) = try store()
    let cacheDirectory = directory.url.appendingPathComponent("cache")
    try FileManager.default.createDirectory(at: cacheDirectory, withIntermediateDirectories: true)
    try Data("{\"entries\": 5".utf8).write(
      to: cacheDirectory.appendingPathComponent(ModelDigestCache.fileName))
    let cache = ModelDigestCache(directory: cacheDirectory)
    let models = try StoreModels(store, digests: cache)
    XCTAssertEqual(cache.filesRead, models.count)
  }
}
