import Foundation
import ReleaseCore
import ReleaseSystem
import ReleaseTestSupport
import XCTest

@testable import ReleasePipeline

/// A customer's releases repository is read with `git clone`, and anyone who can push to it
/// (or a hostile server) decides how big it is: the clone stops at a limit, leaves nothing
/// behind, and the publish goes no further. Real git against a bare repository in a temporary
/// directory (a `file://` URL, so git's transport writes the pack as a remote's would).
final class ReleasesRepositoryCloneLimitTests: XCTestCase {
  /// A bare repository whose one commit holds `size` random (incompressible) bytes.
  private func remote(holding size: Int, in scratch: URL) throws -> URL {
    let work = scratch.appendingPathComponent("work")
    try FileManager.default.createDirectory(at: work, withIntermediateDirectories: true)
    let random = try XCTUnwrap(FileHandle(forReadingAtPath: "/dev/urandom"))
    defer { try? random.close() }
    try XCTUnwrap(try random.read(upToCount: size)).write(to: work.appendingPathComponent("model.bin"))
    try TestGit.run(["init", "--quiet", "--initial-branch=main"], in: work)
    try TestGit.run(["add", "--all"], in: work)
    try TestGit.run(["commit", "--quiet", "-m", "big"], in: work)
    let bare = scratch.appendingPathComponent("releases.git")
    try TestGit.run(["clone", "--quiet", "--bare", "--", work.path, bare.path], in: scratch)
    return bare
  }

  private func repository(limit: Int64, root: URL) -> ReleasesRepository {
    let services = Services(
      processRunner: SystemProcessRunner(), clock: ManualClock(), root: root,
      environment: ProcessInfo.processInfo.environment.merging(TestGit.environment) { $1 },
      output: CapturedOutput(), http: TestHTTP.Unreachable())
    return ReleasesRepository(locator: "", services: services, commitTime: 0, cloneLimit: limit)
  }

  func testACloneLargerThanTheLimitIsRefusedAndRemoved() throws {
    let scratch = try TemporaryDirectory()
    let bare = try remote(holding: 1024 * 1024, in: scratch.url)
    let refsBefore = try TestGit.refs(bare)
    let url = "file://" + bare.path
    let work = scratch.url.appendingPathComponent("cache/releases/acme")
    try FileManager.default.createDirectory(
      at: work.deletingLastPathComponent(), withIntermediateDirectories: true)

    XCTAssertThrowsError(try repository(limit: 128 * 1024, root: scratch.url).clone(url, into: work)) {
      error in
      guard case ReleasesRepository.PublishError.cloneTooLarge(url, let written, 131_072) = error else {
        return XCTFail("expected cloneTooLarge for \(url), got \(error)")
      }
      XCTAssertGreaterThan(written, 131_072)
      XCTAssertEqual(
        "\(error)",
        "\(url): cloning the releases repository wrote \(written) bytes, more than the 131072 a clone may; stopped, nothing published"
      )
    }
    XCTAssertFalse(FileManager.default.fileExists(atPath: work.path), "the partial clone is removed")
    XCTAssertEqual(try TestGit.refs(bare), refsBefore, "the releases repository is as it was")
  }

  func testACloneWithinTheLimitIsMade() throws {
    let scratch = try TemporaryDirectory()
    let bare = try remote(holding: 64 * 1024, in: scratch.url)
    let work = scratch.url.appendingPathComponent("acme")
    try repository(limit: 1024 * 1024, root: scratch.url).clone("file://" + bare.path, into: work)
    XCTAssertEqual(
      try TestGit.run(["rev-parse", "refs/remotes/origin/main"], in: work),
      try TestGit.run(["rev-parse", "refs/heads/main"], in: bare))
  }
}
