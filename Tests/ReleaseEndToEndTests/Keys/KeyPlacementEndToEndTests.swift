import Foundation
import ReleaseCLITestSupport
import ReleaseSystem
import ReleaseTestSupport
import XCTest

#if canImport(Glibc)
  import Glibc
#elseif canImport(Darwin)
  import Darwin
#endif

/// Where `release keys generate` may put a private key: never where `git add -A` would stage
/// it, in a directory only its owner can enter whatever the umask; and the run that makes it
/// leaves no secret of its environment where its child (`git`) can read it.
final class KeyPlacementEndToEndTests: XCTestCase {
  private var directory: TemporaryDirectory!
  private var root: URL { directory.url }

  override func setUpWithError() throws { directory = try TemporaryDirectory() }
  override func tearDown() { directory = nil }

  /// The CLI in this process; its `git` calls run the real git.
  private func generate(_ arguments: [String] = []) -> InProcessCLI.Run {
    InProcessCLI.run(
      ["keys", "generate", "keys"] + arguments, root: root, environment: ["RELEASE_SIGNING_KEY": ""],
      processRunner: .realGit())
  }

  private func git(_ arguments: [String]) throws {
    let result = try SystemProcessRunner().run(ProcessInvocation("git", arguments, in: root))
    XCTAssertEqual(result.exitCode, 0, "git \(arguments): \(result.standardError)")
  }

  private func mode(_ path: String) throws -> Int {
    let attributes = try FileManager.default.attributesOfItem(atPath: root.appendingPathComponent(path).path)
    return try XCTUnwrap(attributes[.posixPermissions] as? NSNumber).intValue
  }

  func testAKeyGitWouldCommitIsRefusedAndNothingIsWritten() throws {
    try git(["init", "-q"])
    try "dist/\n".write(to: root.appendingPathComponent(".gitignore"), atomically: true, encoding: .utf8)
    let before = Workspace.snapshot(root)

    let refused = generate(["--name", "ota"])
    XCTAssertEqual(refused.code, 2, refused.allOutput)
    XCTAssertEqual(
      refused.standardError,
      [
        "error: keys/ota.pem: inside a git work tree and not ignored by git ('git check-ignore' says so), so 'git add -A' would commit the private key; add '*.pem' to .gitignore or give a directory outside the work tree"
      ])
    XCTAssertEqual(Workspace.snapshot(root), before, "nothing written")
    XCTAssertFalse(FileManager.default.fileExists(atPath: root.appendingPathComponent("keys").path))

    try "dist/\n*.pem\n".write(
      to: root.appendingPathComponent(".gitignore"), atomically: true, encoding: .utf8)
    let ignored = generate(["--name", "ota"])
    XCTAssertEqual(ignored.code, 0, ignored.allOutput)
    XCTAssertEqual(try mode("keys/ota.pem"), 0o600)
  }

  func testOutsideAGitWorkTreeTheKeyIsWritten() throws {
    let result = generate()
    XCTAssertEqual(result.code, 0, result.allOutput)
    XCTAssertTrue(
      FileManager.default.fileExists(atPath: root.appendingPathComponent("keys/signing.pem").path))
  }

  func testTheKeyDirectoryIsTheOwnersAloneWhateverTheUmask() throws {
    let previous = umask(0)
    defer { umask(previous) }
    let result = generate()
    XCTAssertEqual(result.code, 0, result.allOutput)
    XCTAssertEqual(try mode("keys"), 0o700)
    XCTAssertEqual(try mode("keys/signing.pem"), 0o600)
  }

  func testTheRepositorysOwnIgnoreFileCoversPrivateKeys() throws {
    let result = try SystemProcessRunner().run(
      ProcessInvocation(
        "git", ["check-ignore", "-q", "--no-index", "--", "keys/ota.pem"], in: RepositoryRoot.url))
    XCTAssertEqual(result.exitCode, 0, "*.pem is not in the repository's .gitignore")
  }

  /// The executable with planted secrets (proxies with a credential among them) and a stand-in
  /// for `git` that writes down its own environment and reads the environment block of the
  /// `release` that started it (`/proc/<parent>/environ`).
  func testTheChildGitFindsNoSecretInItsParent() throws {
    #if os(Linux)
      try git(["init", "-q"])
      try "*.pem\n".write(to: root.appendingPathComponent(".gitignore"), atomically: true, encoding: .utf8)
      let marker = "RELEASE-TEST-SECRET-\(UUID().uuidString)"
      let secrets = [
        "AWS_SECRET_ACCESS_KEY": "\(marker)-aws", "AWS_SESSION_TOKEN": "\(marker)-session",
        "RELEASE_SIGNING_KEY": "\(marker)-signing", "MODELS_MIRROR": "https://user:\(marker)-url@host/models",
        // libcurl's proxies: one with a credential is a secret like the others.
        "https_proxy": "http://proxyuser:\(marker)-https-proxy@127.0.0.1:9",
        "http_proxy": "http://proxyuser:\(marker)-http-proxy@127.0.0.1:9",
        "ALL_PROXY": "socks5://proxyuser:\(marker)-all-proxy@127.0.0.1:9",
      ]
      let shims = try ProgramShims(["git"])
      let run = try ReleaseBinary.run(
        ["keys", "generate", "keys"], in: root,
        environment: secrets.merging([
          "PATH": shims.path, "RELEASE_TEST_ENV_DUMP": shims.environmentDumps.path,
        ]) {
          $1
        },
        timeout: 60)
      XCTAssertEqual(run.exitCode, 0, run.allOutput)
      // git's own environment (git-…) and its parent's block (git-parent-…).
      let dumps = try FileManager.default.contentsOfDirectory(atPath: shims.environmentDumps.path)
      XCTAssertTrue(dumps.contains { $0.hasPrefix("git-parent-") }, "git read its parent's block: \(dumps)")
      XCTAssertTrue(
        dumps.contains { !$0.hasPrefix("git-parent-") }, "git wrote its own environment: \(dumps)")
      for dump in dumps {
        let text = try String(
          contentsOf: shims.environmentDumps.appendingPathComponent(dump), encoding: .utf8)
        XCTAssertTrue(text.contains("PATH="), "the dump is a real environment: \(text.prefix(200))")
        XCTAssertFalse(text.contains(marker), "\(dump) holds a secret")
      }
    #else
      throw XCTSkip("/proc/<pid>/environ is Linux's")
    #endif
  }
}
