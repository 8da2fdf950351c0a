import Foundation
import ReleaseCLITestSupport
import ReleaseSigning
import ReleaseSystem
import ReleaseTestSupport
import XCTest

/// The SDK version a customer's first release takes (the repository's).
private let firstVersion = Workspace.sdkVersion()

/// Credentials in the environment never leave it: a release with `--json` events and a
/// directory publish (which tags, so the workspace is a git repository) runs with recognisable
/// planted secrets, and neither its output, nor `dist/`, nor the published files, nor the
/// generated package, nor its git objects, nor the environment `swift` and `git` were started
/// with (recorded by stand-ins on PATH) holds any of them. The signing key is a real one the
/// workspace trusts, so the run signs with it (every zip's `.sig`, the customer indexes). The run
/// skips the package's tests: `swift build` is started exactly as `swift test` would be, with
/// the same environment, so its record is the one that tells.
final class SecretEndToEndTests: XCTestCase {
  func testPlantedCredentialsAppearNowhere() throws {
    let marker = UUID().uuidString
    let workspace = try Workspace()
    let signing = try workspace.trustSigningKey()
    let secrets = [
      "AWS_SECRET_ACCESS_KEY": "RELEASE-TEST-SECRET-\(marker)-aws-secret",
      "AWS_SESSION_TOKEN": "RELEASE-TEST-SECRET-\(marker)-session-token",
      "GITHUB_TOKEN": "RELEASE-TEST-SECRET-\(marker)-github-token",
      "AWS_ACCESS_KEY_ID": "RELEASE-TEST-SECRET-\(marker)-access-key-id",
      // A proxy with a credential: libcurl gets it from the run, no child does.
      "https_proxy": "http://proxyuser:RELEASE-TEST-SECRET-\(marker)-proxy@127.0.0.1:9",
    ].merging(signing) { $1 }
    // The private key's base64 body (its seed), not the PEM's armour lines, which any key has.
    let keyBody = try XCTUnwrap(
      signing["RELEASE_SIGNING_KEY"]?.split(separator: "\n").first { !$0.hasPrefix("-----") }.map(String.init)
    )
    let needles =
      secrets.values.filter { $0.hasPrefix("RELEASE-TEST-SECRET-") } + [
        keyBody, "RELEASE-TEST-SECRET-\(marker)",
      ]
    // The key file trustSigningKey keeps in the workspace is the one place it may be.
    try FileManager.default.removeItem(at: workspace.file("keys/ota.pem"))
    try "dist/\n.release-cache/\n".write(to: workspace.file(".gitignore"), atomically: true, encoding: .utf8)
    for arguments in [
      ["init", "-q"], ["add", "-A"],
      ["-c", "user.name=t", "-c", "user.email=t@localhost", "commit", "-qm", "inputs"],
    ] {
      let result = try SystemProcessRunner().run(ProcessInvocation("git", arguments, in: workspace.root))
      XCTAssertEqual(result.exitCode, 0, "git \(arguments): \(result.standardError)")
    }
    let publish = FileManager.default.temporaryDirectory.appendingPathComponent(
      "release-faults-publish-\(marker)")
    defer { try? FileManager.default.removeItem(at: publish) }
    let shims = try ProgramShims(["swift", "git"])

    let run = try ReleaseBinary.run(
      [
        // --allow-dirty: tag before the state file records the release (what is scanned here
        // is every output, not the release-commit rule).
        "customer", "acme", "--skip-tests", "--json", "--allow-dirty", "--publish", "dir:\(publish.path)",
        "--cache",
        Workspace.sharedCache.path,
      ],
      in: workspace.root,
      environment: secrets.merging(["PATH": shims.path, "RELEASE_TEST_ENV_DUMP": shims.environmentDumps.path])
      { $1 })
    XCTAssertEqual(run.exitCode, 0, run.allOutput)

    // The run did what is scanned: events, a release, a publish, a build and git.
    let events = run.standardOutput.split(separator: "\n").compactMap {
      (try? JSONSerialization.jsonObject(with: Data($0.utf8))) as? [String: Any]
    }
    XCTAssertEqual(
      events.count, run.standardOutput.split(separator: "\n").count, "every stdout line is a JSON event")
    XCTAssertTrue(events.contains { $0["event"] as? String == "summary" }, run.standardOutput)
    XCTAssertTrue(
      FileManager.default.fileExists(
        atPath: workspace.file("dist/acme/\(firstVersion)/ContextSDK_Acme-\(firstVersion).zip").path)
    )
    XCTAssertTrue(FileManager.default.fileExists(atPath: publish.appendingPathComponent("index.json").path))
    XCTAssertTrue(
      FileManager.default.fileExists(
        atPath: publish.appendingPathComponent(
          "artifacts/acme/\(firstVersion)/ContextSDK_Acme-\(firstVersion).zip.sig"
        ).path),
      "the run signed with the planted key")
    let dumps = try FileManager.default.contentsOfDirectory(atPath: shims.environmentDumps.path)
    XCTAssertTrue(dumps.contains { $0.hasPrefix("swift-") }, "swift ran: \(dumps)")
    XCTAssertTrue(dumps.contains { $0.hasPrefix("git-") }, "git ran: \(dumps)")
    #if os(Linux)
      // What any child could read of the run itself: its environment block.
      XCTAssertTrue(dumps.contains { $0.hasPrefix("git-parent-") }, "git read its parent's block: \(dumps)")
    #endif

    // None of the secrets anywhere.
    for needle in needles {
      XCTAssertFalse(run.standardOutput.contains(needle), "stdout holds a secret")
      XCTAssertFalse(run.standardError.contains(needle), "stderr holds a secret")
    }
    let package = Workspace.sharedCache.appendingPathComponent("packages/acme")
    XCTAssertTrue(
      FileManager.default.fileExists(atPath: package.path), "the generated package is kept for the scan")
    var scanned = 0
    for (label, directory) in [
      ("workspace (dist/, state, .git)", workspace.root), ("publish directory", publish),
      ("generated package", package), ("cache logs", Workspace.sharedCache.appendingPathComponent("logs")),
      ("environments of swift and git", shims.environmentDumps),
    ] {
      scanned += (FileManager.default.enumerator(atPath: directory.path)?.allObjects.count ?? 0)
      XCTAssertEqual(filesContaining(needles, under: directory), [:], "\(label) holds a secret")
    }
    // Git objects are compressed: read the tags and commits git made through git itself.
    let refs = try SystemProcessRunner().run(
      ProcessInvocation(
        "git", ["for-each-ref", "--format=%(refname) %(contents)", "refs/tags"], in: workspace.root))
    XCTAssertTrue(
      refs.standardOutput.contains("refs/tags/acme/v\(firstVersion)"), "tagged: \(refs.standardOutput)")
    let log = try SystemProcessRunner().run(
      ProcessInvocation("git", ["log", "--all", "--format=%H %an %B"], in: workspace.root))
    for needle in needles {
      XCTAssertFalse(
        refs.standardOutput.contains(needle) || log.standardOutput.contains(needle), "git holds a secret")
    }
    // The stand-ins recorded real environments (so the scan of them means something).
    let anyDump = try String(
      contentsOf: shims.environmentDumps.appendingPathComponent(try XCTUnwrap(dumps.first)), encoding: .utf8)
    XCTAssertTrue(anyDump.contains("PATH="), anyDump)
    try checkVerifyNeverHoldsTheSecrets(workspace, secrets: secrets, needles: needles)
    print(
      "SecretEndToEndTests: \(needles.count) planted strings, \(scanned) paths scanned, \(dumps.count) child environments"
    )
  }

  /// `release verify` builds and runs the package under check: a stand-in for that code (`swift`,
  /// which succeeds without compiling) reads the environment block of the verify that started
  /// it, which must hold none of the secrets verify was started with.
  private func checkVerifyNeverHoldsTheSecrets(
    _ workspace: Workspace, secrets: [String: String], needles: [String]
  )
    throws
  {
    let shims = try ProgramShims(["swift"], compiles: false)
    let verify = try ReleaseBinary.run(
      ["verify", "dist/acme/\(firstVersion)"], in: workspace.root,
      environment: secrets.merging(["PATH": shims.path]) { $1 })
    let dumps = try FileManager.default.contentsOfDirectory(atPath: shims.environmentDumps.path)
    #if os(Linux)
      XCTAssertTrue(
        dumps.contains { $0.hasPrefix("swift-parent-") }, "the package's stand-in ran: \(verify.allOutput)")
    #endif
    XCTAssertEqual(
      filesContaining(needles, under: shims.environmentDumps), [:], "verify's block holds a secret")
    for needle in needles {
      XCTAssertFalse(verify.allOutput.contains(needle), "verify's output holds a secret")
    }
  }
}
