import Foundation
import ReleaseArchive
import ReleaseCLITestSupport
import ReleaseManifest
import ReleaseSystem
import ReleaseTestSupport
import XCTest

@testable import ReleaseModels
@testable import ReleasePipeline

/// Issue 12, "a restored dist/ is only a cache": CI restores dist/ from a cache, so a release
/// there is believed only after its archive proves to hold exactly the package the template
/// makes for that customer, byte for byte. A planted release — its release.json and .sha256
/// made consistent with the planted zip — is refused before anything is published or tagged,
/// and `release verify` never runs its code.
final class RestoredDistEndToEndTests: XCTestCase {
  /// The customers built once for the test process (`BuiltFixture`, without tests); each test
  /// plants into a workspace of its own holding a copy of that dist/, committed.
  private func workspace() throws -> (Workspace, release: URL, zip: URL) {
    let workspace = try BuiltFixture.shared.get().copy()
    let release = try XCTUnwrap(
      try FileManager.default.contentsOfDirectory(
        at: workspace.dist.appendingPathComponent("acme"),
        includingPropertiesForKeys: nil
      ).first { !$0.lastPathComponent.hasPrefix(".") })
    let zip = try XCTUnwrap(
      try FileManager.default.contentsOfDirectory(at: release, includingPropertiesForKeys: nil).first {
        $0.pathExtension == "zip"
      })
    return (workspace, release, zip)
  }

  private func plant(_ release: URL, zip: URL, change: (URL) throws -> Void) throws {
    try PlantedRelease.plant(release, zip: zip, change: change)
  }

  private func tags(_ workspace: Workspace) throws -> String {
    try SystemProcessRunner().run(ProcessInvocation("git", ["tag", "-l"], in: workspace.root)).standardOutput
  }

  func testAPlantedPackageManifestIsRefusedBeforePublishingAndVerifyNeverEvaluatesIt() throws {
    let (workspace, release, zip) = try workspace()
    let marker = FileManager.default.temporaryDirectory.appendingPathComponent(
      "evaluated-\(UUID().uuidString)")
    defer { try? FileManager.default.removeItem(at: marker) }
    try plant(release, zip: zip) { package in
      let manifest = package.appendingPathComponent("Package.swift")
      let text = try String(contentsOf: manifest, encoding: .utf8)
      try
        (text
        + "\nimport Foundation\n_ = FileManager.default.createFile(atPath: \"\(marker.path)\", contents: nil)\n")
        .write(to: manifest, atomically: true, encoding: .utf8)
    }
    let stateBefore = try Data(contentsOf: workspace.file("release-state.json"))
    let published = workspace.file("published")

    let run = workspace.run(["all", "--skip-tests", "--publish", "dir:\(published.path)", "--allow-dirty"])
    XCTAssertEqual(run.exitCode, 1, run.allOutput)
    XCTAssertTrue(
      run.allOutput.contains(
        "acme: \(zip.lastPathComponent): Package.swift differs from what the template makes"),
      run.allOutput)
    XCTAssertTrue(run.allOutput.contains("--force"), "the message says how to rebuild: \(run.allOutput)")
    XCTAssertFalse(FileManager.default.fileExists(atPath: published.path), "nothing published")
    XCTAssertEqual(try tags(workspace), "", "nothing tagged")
    XCTAssertEqual(
      try Data(contentsOf: workspace.file("release-state.json")), stateBefore, "no state written")

    // Over the whole dist/, and with the build on over acme's release (bluebird's, which is
    // sound, would be built and tested for real: what only VerifyCommandEndToEndTests needs).
    for arguments in [["verify", "dist", "--no-build"], ["verify", release.path]] {
      let verify = workspace.run(arguments)
      XCTAssertEqual(verify.exitCode, 1, "\(arguments): \(verify.allOutput)")
      XCTAssertTrue(
        verify.allOutput.contains("Package.swift differs from what the template makes"),
        "\(arguments): \(verify.allOutput)")
    }
    XCTAssertFalse(FileManager.default.fileExists(atPath: marker.path), "the planted manifest was evaluated")

    // --force rebuilds it from the inputs, and the run goes through (with a stand-in `swift`,
    // `StandInSwift`: the archive is made from the inputs, not by the compiler).
    let swift = try StandInSwift()
    let forced = workspace.run(
      ["all", "--skip-tests", "--force"] + swift.cacheArguments, environment: swift.environment)
    XCTAssertEqual(forced.exitCode, 0, forced.allOutput)
    XCTAssertFalse(FileManager.default.fileExists(atPath: marker.path))
  }

  func testANearCopyOfAnotherCustomersModelAddedAsAnyFileIsRefused() throws {
    let (workspace, release, zip) = try workspace()
    // bluebird's onboarding_upsell v72 with its last byte changed: the exact-digest scan for
    // other customers' models does not know these bytes.
    var stolen = try Data(contentsOf: workspace.file("models/onboarding_upsell/72.mlmodel"))
    stolen[stolen.count - 1] ^= 0x01
    try plant(release, zip: zip) { package in
      try stolen.write(to: package.appendingPathComponent("Sources/ContextSDK/Resources/Models/weights.bin"))
    }
    let run = workspace.run(["all", "--skip-tests"])
    XCTAssertEqual(run.exitCode, 1, run.allOutput)
    XCTAssertTrue(
      run.allOutput.contains(
        "acme: \(zip.lastPathComponent): Sources/ContextSDK/Resources/Models/weights.bin is not part of the package the template makes"
      ), run.allOutput)
    let verify = workspace.run(["verify", "dist", "--no-build"])
    XCTAssertEqual(verify.exitCode, 1, verify.allOutput)
    XCTAssertTrue(verify.allOutput.contains("weights.bin is not part of the package"), verify.allOutput)
  }

  func testAReleaseRecordOfAnotherCustomerVersionOrPackageIsRefused() throws {
    let (workspace, release, _) = try workspace()
    let recordFile = release.appendingPathComponent(ReleaseRecord.fileName)
    let original = try ReleaseRecord.load(from: recordFile)
    let lies: [(String, (inout ReleaseRecord) -> Void)] = [
      ("customer.id", { $0.customer.id = "bluebird" }),
      ("customer.appID", { $0.customer.appID = "a91c44d2-0b7e-4c3f-8d26-5e1f9b0a7c33" }),
      ("version", { $0.version = "9.9.9" }),
      ("packageName", { $0.packageName = "ContextSDK_Bluebird" }),
    ]
    for (field, lie) in lies {
      var record = original
      lie(&record)
      try record.encoded().write(to: recordFile)
      let run = workspace.run(["all", "--skip-tests"])
      XCTAssertEqual(run.exitCode, 1, "\(field): \(run.allOutput)")
      XCTAssertTrue(run.allOutput.contains("acme: release.json: \(field) is"), "\(field): \(run.allOutput)")
    }
    try original.encoded().write(to: recordFile)
    let clean = workspace.run(["all", "--skip-tests"])
    XCTAssertEqual(clean.exitCode, 0, clean.allOutput)
  }

  /// Every field of release.json is held to what the job makes, not only its identity: a
  /// planted name, SDK version or model inputs were planned "up to date" and published into
  /// customers/acme/index.json (issue 12 audit). Refused, naming the field; nothing published.
  func testEveryRecordedFieldIsHeldToTheJob() throws {
    let (workspace, release, _) = try workspace()
    let recordFile = release.appendingPathComponent(ReleaseRecord.fileName)
    let original = try ReleaseRecord.load(from: recordFile)
    let published = workspace.file("published")
    let lies: [(String, (inout ReleaseRecord) -> Void)] = [
      ("customer.name", { $0.customer.name = "Evil Corp" }),
      ("sdkVersion", { $0.sdkVersion = "9.9.9" }),
      ("models[0].inputNames", { $0.models[0].inputNames = ["planted"] }),
      ("customer.bundleIdentifiers", { $0.customer.bundleIdentifiers = ["com.evil.app"] }),
      ("models[0].minimumSDKVersion", { $0.models[0].minimumSDKVersion = "0.0.1" }),
      ("models[0].size", { $0.models[0].size += 1 }),
      ("models[0].metadata", { $0.models[0].metadata["description"] = "planted" }),
      ("models[0].flowId", { $0.models[0].flowId = 1 }),
      ("toolchain", { $0.toolchain = "planted toolchain" }),
      ("releaseNotes", { $0.releaseNotes = nil }),
    ]
    for (field, lie) in lies {
      var record = original
      lie(&record)
      try record.encoded().write(to: recordFile)
      let run = workspace.run(["all", "--skip-tests", "--publish", "dir:\(published.path)", "--allow-dirty"])
      XCTAssertEqual(run.exitCode, 1, "\(field): \(run.allOutput)")
      // The field, or one inside it (models[0].metadata.description).
      XCTAssertTrue(run.allOutput.contains("acme: release.json: \(field)"), "\(field): \(run.allOutput)")
      XCTAssertFalse(FileManager.default.fileExists(atPath: published.path), "\(field): nothing published")
    }
    try original.encoded().write(to: recordFile)
    let clean = workspace.run(["all", "--skip-tests", "--publish", "dir:\(published.path)", "--allow-dirty"])
    XCTAssertEqual(clean.exitCode, 0, clean.allOutput)
    let index = try String(
      contentsOf: published.appendingPathComponent("customers/acme/index.json"), encoding: .utf8)
    XCTAssertFalse(index.contains("Evil Corp") || index.contains("planted"), index)
  }

  /// The foreign-model scan takes the digests of models no customer of the run embeds from
  /// `<cache>/model-digests.json`, which anyone who can write the cache can edit. With the entry
  /// of a model neither acme nor bluebird embeds (paywall_timing v14, another customer's) giving
  /// a wrong digest, acme's archive holding an exact copy of that
  /// model is not named by the scan — and is refused all the same, as a file the template does
  /// not make (ModelDigestCache says why that always holds).
  func testAWrongCachedDigestCannotLetAnotherCustomersModelShip() throws {
    let (workspace, release, zip) = try workspace()
    let cache = workspace.file("planted-cache")
    let store = DirectoryModelStore(root: workspace.file("models"), displayName: "models")
    let digests = ModelDigestCache(directory: cache)
    _ = try StoreModels(store, digests: digests)
    try digests.save()
    let stolenFile = workspace.file("models/paywall_timing/14.mlmodel")
    let realDigest = try SHA256Digest.hex(ofFileAt: stolenFile)
    let cacheFile = cache.appendingPathComponent(ModelDigestCache.fileName)
    let cached = try String(contentsOf: cacheFile, encoding: .utf8)
    XCTAssertTrue(cached.contains(realDigest))
    try cached.replacingOccurrences(of: realDigest, with: String(repeating: "0", count: 64)).write(
      to: cacheFile, atomically: true, encoding: .utf8)
    let stolen = try Data(contentsOf: stolenFile)
    try plant(release, zip: zip) { package in
      try stolen.write(to: package.appendingPathComponent("Sources/ContextSDK/Resources/notes.bin"))
    }
    let published = workspace.file("published")
    let run = workspace.run([
      "all", "--skip-tests", "--cache", cache.path, "--publish", "dir:\(published.path)", "--allow-dirty",
    ])
    XCTAssertEqual(run.exitCode, 1, run.allOutput)
    XCTAssertFalse(
      run.allOutput.contains("a model this customer does not ship"), "the cache was used: \(run.allOutput)")
    XCTAssertTrue(
      run.allOutput.contains(
        "acme: \(zip.lastPathComponent): Sources/ContextSDK/Resources/notes.bin is not part of the package the template makes"
      ), run.allOutput)
    XCTAssertFalse(FileManager.default.fileExists(atPath: published.path), "nothing published")
  }
}
