import Foundation
import ReleaseCLITestSupport
import ReleaseGeneration
import ReleaseSystem
import ReleaseTestSupport
import XCTest

@testable import ReleasePipeline

/// The SDK version a customer's first release takes (the repository's).
private let firstVersion = Workspace.sdkVersion()

/// `release verify` on a real release: content checks, then a build and test of the extracted
/// package and a consumer that depends on it by path.
///
/// The releases are made without compiling (`runWithoutCompiling`): a release's archive is its
/// generated package either way, and what proves that package builds, passes its tests and
/// serves a consumer is verify's own build, which runs the real toolchain.
final class VerifyCommandEndToEndTests: XCTestCase {
  func testVerifiesARealReleaseAndCatchesTampering() throws {
    let workspace = try Workspace(manifest: EndToEndManifests.twoCustomers)
    let release = try workspace.runWithoutCompiling(["customer", "acme", "--skip-tests"])
    XCTAssertEqual(release.exitCode, 0, release.allOutput)

    let full = workspace.run(["verify", "dist/acme/\(firstVersion)"])
    XCTAssertEqual(full.exitCode, 0, full.allOutput)
    let okLines = full.standardOutput.filter { $0.hasPrefix("  ok ") }
    XCTAssertEqual(okLines.count, 3, full.allOutput)
    XCTAssertTrue(okLines[1].contains("swift test of the extracted package"), okLines[1])
    // The consumer made one call per flow plus the bundle-identifier check.
    XCTAssertTrue(okLines[2].contains("(3 checks passed)"), okLines[2])
    XCTAssertEqual(full.standardOutput.last, "1 of 1 release verified")

    // A release.json that hides a file: the archive holds something it does not list.
    let recordURL = workspace.dist.appendingPathComponent("acme/\(firstVersion)/release.json")
    let original = try Data(contentsOf: recordURL)
    var record = try ReleaseRecord.load(from: recordURL)
    let hidden = record.files.removeFirst()
    try record.encoded().write(to: recordURL)
    let tampered = workspace.run([
      "verify", "dist/acme/\(firstVersion)/ContextSDK_Acme-\(firstVersion).zip", "--no-build",
    ])
    XCTAssertEqual(tampered.exitCode, 1)
    XCTAssertTrue(
      tampered.standardError.contains { $0.contains("\(hidden.path) is not listed in release.json") },
      tampered.allOutput)

    // A manifest that no longer gives acme these models.
    try original.write(to: recordURL)
    let manifest = EndToEndManifests.twoCustomers.replacingOccurrences(
      of: "\"modelVersion\": 14", with: "\"modelVersion\": 12")
    try manifest.write(to: workspace.file("customers.json"), atomically: true, encoding: .utf8)
    let drifted = workspace.run(["verify", "dist", "--no-build"])
    XCTAssertEqual(drifted.exitCode, 1)
    XCTAssertTrue(
      drifted.standardError.contains {
        $0.contains("the manifest names onboarding_upsell v73, paywall_timing v12")
      },
      drifted.allOutput)
  }

  /// A release built with `--public-url` carries its manifest URL in the package; verify
  /// regenerates the package with the same option (as `release all` takes it) to compare.
  func testAReleaseBuiltWithAPublicURLVerifiesWithTheSameURL() throws {
    let workspace = try Workspace(manifest: EndToEndManifests.acme)
    // A public URL needs a trusted key; the package pins it and its signed channel's URL.
    try workspace.trustSigningKey()
    let url = "http://127.0.0.1:8000"
    let release = try workspace.runWithoutCompiling(["all", "--skip-tests", "--public-url", url])
    XCTAssertEqual(release.exitCode, 0, release.allOutput)

    let without = workspace.run(["verify", "dist", "--no-build"])
    XCTAssertEqual(without.exitCode, 1, without.allOutput)
    XCTAssertTrue(
      without.standardError.contains { $0.contains(PackageGenerator.customerFile) },
      without.allOutput)

    let same = workspace.run(["verify", "dist", "--no-build", "--public-url", url])
    XCTAssertEqual(same.exitCode, 0, same.allOutput)
    XCTAssertEqual(same.standardOutput.last, "1 of 1 release verified")

    let other = workspace.run(["verify", "dist", "--no-build", "--public-url", "http://127.0.0.1:9000"])
    XCTAssertEqual(other.exitCode, 1, other.allOutput)

    let secret = "s3cr3t-\(UUID().uuidString)"
    let credential = workspace.run([
      "verify", "dist", "--no-build", "--public-url", "https://user:\(secret)@cdn.example.com",
    ])
    XCTAssertEqual(credential.exitCode, 2, credential.allOutput)
    XCTAssertEqual(credential.standardError.count, 1, credential.allOutput)
    XCTAssertTrue(credential.standardError[0].hasPrefix("error: --public-url "), credential.allOutput)
    XCTAssertFalse(credential.allOutput.contains(secret))

    // The same URL from release.config.json is named by its key, as `release all` names it.
    try #"{"publish": {"publicURL": "https://user:\#(secret)@cdn.example.com"}}"#.write(
      to: workspace.file("release.config.json"), atomically: true, encoding: .utf8)
    let configured = workspace.run(["verify", "dist", "--no-build"])
    XCTAssertEqual(configured.exitCode, 2, configured.allOutput)
    XCTAssertEqual(
      configured.standardError,
      [
        "error: release.config.json: publish.publicURL: https://user:***@cdn.example.com: a credential in a URL ends up in every package and index; serve the destination without one"
      ])
  }
}
