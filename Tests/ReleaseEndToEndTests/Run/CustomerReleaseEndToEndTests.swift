import Foundation
import ReleaseArchive
import ReleaseCLITestSupport
import ReleaseGeneration
import ReleaseSystem
import ReleaseTestSupport
import XCTest

@testable import ReleaseCore
@testable import ReleaseFlow
@testable import ReleasePipeline

/// The SDK version a customer's first release takes (the repository's).
private let firstVersion = Workspace.sdkVersion()

/// `release customer` for real: generation, `swift build`, `swift test`, zip, stage. The
/// expectations come from the inputs (template tree, manifest, model files), never from the
/// tool's own output.
final class CustomerReleaseEndToEndTests: XCTestCase {
  static let manifest = EndToEndManifests.twoCustomers

  func testReleasesOneCustomerWithExactlyItsOwnModelsReproducibly() throws {
    let workspace = try Workspace(manifest: Self.manifest)
    let first = workspace.run(["customer", "acme"])
    XCTAssertEqual(first.exitCode, 0, first.allOutput)

    let release = workspace.dist.appendingPathComponent("acme/\(firstVersion)")
    let zip = release.appendingPathComponent("ContextSDK_Acme-\(firstVersion).zip")
    XCTAssertTrue(FileManager.default.fileExists(atPath: zip.path), first.allOutput)
    // Only the named customer was released.
    XCTAssertFalse(
      FileManager.default.fileExists(atPath: workspace.dist.appendingPathComponent("bluebird").path))

    // The entries are the template's files (".tmpl" rendered away) but those of the ATT
    // feature, which Acme's flows do not need, plus Acme's configuration, privacy manifest,
    // release notes and two models.
    let models = ["onboarding_upsell": 73, "paywall_timing": 14]
    var expected = Set(try Self.templateFiles(workspace.file("templates/ContextSDK"))).subtracting(
      PackageGenerator.toolInputFiles
    ).filter { !$0.hasPrefix("Sources/ContextSDKATT/") && !$0.hasPrefix("Tests/ContextSDKATTTests/") }
    expected.formUnion([PackageGenerator.changelogFile, PackageGenerator.customerFile, PrivacyManifest.file])
    for (flow, version) in models {
      expected.insert("Sources/ContextSDK/Resources/Models/\(flow)_v\(version).mlmodel")
    }
    let entries = try ZipReader.entries(of: zip)
    XCTAssertEqual(
      Set(entries.filter { $0.kind == .file }.map(\.path)), Set(expected.map { "ContextSDK_Acme/" + $0 }))
    XCTAssertTrue(entries.allSatisfy { $0.path.hasPrefix("ContextSDK_Acme/") })

    // Model bytes are the store's, and no other model of the store is inside.
    var digests: [String: String] = [:]
    try ZipReader.forEachFile(in: zip) { entry, data in digests[entry.path] = try data.sha256AndSize().sha256
    }
    for (flow, version) in models {
      let stored = try SHA256Digest.hex(ofFileAt: workspace.file("models/\(flow)/\(version).mlmodel"))
      XCTAssertEqual(
        digests["ContextSDK_Acme/Sources/ContextSDK/Resources/Models/\(flow)_v\(version).mlmodel"], stored)
    }
    let foreign = try Self.storeDigests(workspace.file("models"))
      .filter { reference, _ in !models.contains { "\($0.key)/\($0.value).mlmodel" == reference } }
    XCTAssertFalse(foreign.isEmpty)
    for (reference, digest) in foreign {
      XCTAssertFalse(digests.values.contains(digest), "\(reference) must not be in Acme's archive")
    }

    // `unzip` agrees (an independent reader), and the checksum file matches sha256sum.
    let unzip = try SystemProcessRunner().run(ProcessInvocation("unzip", ["-Z1", zip.path]))
    XCTAssertEqual(
      Set(unzip.standardOutput.split(separator: "\n").map(String.init)), Set(entries.map(\.path)))
    let sha256sum = try SystemProcessRunner().run(
      ProcessInvocation("sha256sum", ["ContextSDK_Acme-\(firstVersion).zip"], in: release))
    XCTAssertEqual(
      try String(
        contentsOf: release.appendingPathComponent("ContextSDK_Acme-\(firstVersion).zip.sha256"),
        encoding: .utf8),
      sha256sum.standardOutput)

    // release.json describes it; the state file records the version.
    let record = try ReleaseRecord.load(from: release.appendingPathComponent("release.json"))
    XCTAssertEqual(record.customer.appID, "3f2b8c1e-6d4a-4e9b-9a51-0c7d2e8f4a10")
    XCTAssertEqual(record.models.map(\.flowName), ["onboarding_upsell", "paywall_timing"])
    XCTAssertGreaterThan(record.testCount ?? 0, 0)
    let state = try ReleaseState.load(from: workspace.file("release-state.json"), displayPath: "state")
    XCTAssertEqual(state.customers["acme"]?.version, Workspace.sdk)
    XCTAssertNil(state.customers["bluebird"])

    // A forced rebuild from the same inputs gives the same bytes. The archive is made from the
    // generated tree, never from a build, so this run's `swift` compiles nothing.
    let firstBytes = try Data(contentsOf: zip)
    let second = try workspace.runWithoutCompiling(["customer", "acme", "--force", "--skip-tests"])
    XCTAssertEqual(second.exitCode, 0, second.allOutput)
    XCTAssertEqual(try Data(contentsOf: zip), firstBytes)
  }

  /// Relative paths of the template's files as they appear in a generated package.
  static func templateFiles(_ template: URL) throws -> [String] {
    let enumerator = FileManager.default.enumerator(atPath: template.path)!
    var files: [String] = []
    while let path = enumerator.nextObject() as? String {
      guard enumerator.fileAttributes?[.type] as? FileAttributeType == .typeRegular else { continue }
      files.append(path.hasSuffix(".tmpl") ? String(path.dropLast(5)) : path)
    }
    return files
  }

  /// `<flow>/<version>.mlmodel` → SHA-256 for every model of a store directory.
  static func storeDigests(_ store: URL) throws -> [String: String] {
    var digests: [String: String] = [:]
    for flow in try FileManager.default.contentsOfDirectory(atPath: store.path) {
      let directory = store.appendingPathComponent(flow)
      guard let files = try? FileManager.default.contentsOfDirectory(atPath: directory.path) else { continue }
      for file in files where file.hasSuffix(".mlmodel") {
        digests["\(flow)/\(file)"] = try SHA256Digest.hex(ofFileAt: directory.appendingPathComponent(file))
      }
    }
    return digests
  }
}
