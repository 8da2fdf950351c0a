import Foundation
import ReleaseCLITestSupport
import ReleaseSystem
import ReleaseTestSupport
import XCTest

/// `release ota publish` into a directory: a publish interrupted between the revision file and
/// the pointer, a pointer changed while a publish holds a revision, and what is published in
/// which order.
final class PublishOTAStepEndToEndTests: XCTestCase {
  static let destination = ["--publish", "dir:published"]

  @discardableResult
  func succeed(
    _ workspace: Workspace, _ arguments: [String], file: StaticString = #filePath, line: UInt = #line
  ) -> Workspace.Run {
    let result = workspace.run(arguments)
    XCTAssertEqual(result.exitCode, 0, "\(arguments): \(result.allOutput)", file: file, line: line)
    return result
  }

  /// The published manifest of `customer` (the pointer, or one revision) as plain values.
  func manifest(_ workspace: Workspace, _ customer: String, revision: Int? = nil) throws -> [String: Any] {
    let name = revision.map { "models-\($0).json" } ?? "models.json"
    let url = workspace.file("published/ota/\(customer)/\(name)")
    return try jsonObject(Data(contentsOf: url), url.path)
  }

  /// The rollout percentage of acme's onboarding_upsell v74 in a published manifest.
  func percent(_ manifest: [String: Any]) throws -> Int {
    let flows = try XCTUnwrap(manifest["flows"] as? [String: Any])
    let flow = try XCTUnwrap(flows["onboarding_upsell"] as? [String: Any])
    let models = try XCTUnwrap(flow["models"] as? [[String: Any]])
    return try XCTUnwrap(models.first?["rolloutPercent"] as? Int)
  }

  func testAPublishKilledBetweenTheRevisionAndThePointerDoesNotJamLaterPublishes() throws {
    let workspace = try Workspace()
    let customers = try XCTUnwrap(
      try JSONSerialization.jsonObject(with: Data(contentsOf: workspace.file("customers.json")))
        as? [[String: Any]]
    ).compactMap { $0["id"] as? String }
    XCTAssertEqual(customers.first, "acme", "acme is published first, so a kill there leaves the others out")
    succeed(workspace, ["rollout", "acme", "onboarding_upsell", "74", "--percent", "10"])
    succeed(workspace, ["ota", "publish"] + Self.destination)
    XCTAssertEqual(try manifest(workspace, "acme")["revision"] as? Int, 1)

    // Killed after writing revision 2, before the pointer names it.
    succeed(workspace, ["rollout", "acme", "onboarding_upsell", "74", "--percent", "20"])
    let killed = try ReleaseBinary.run(
      ["ota", "publish"] + Self.destination, in: workspace.root,
      environment: ["RELEASE_KILL_AT": "ota.revision-created"])
    XCTAssertEqual(killed.signal, SIGKILL, killed.allOutput)
    let orphan = try Data(contentsOf: workspace.file("published/ota/acme/models-2.json"))
    XCTAssertEqual(try percent(try jsonObject(orphan, "models-2.json")), 20)
    XCTAssertEqual(
      try manifest(workspace, "acme")["revision"] as? Int, 1, "the pointer still names revision 1")

    // The offer changes again before anyone reruns: the orphan's revision is taken, the next
    // free one is published, and the orphan stays as it was.
    succeed(workspace, ["rollout", "acme", "onboarding_upsell", "74", "--percent", "30"])
    let rerun = succeed(workspace, ["ota", "publish"] + Self.destination)
    let pointer = try manifest(workspace, "acme")
    XCTAssertEqual(pointer["revision"] as? Int, 3, rerun.allOutput)
    XCTAssertEqual(try percent(pointer), 30)
    XCTAssertEqual(
      try Data(contentsOf: workspace.file("published/ota/acme/models-3.json")),
      try Data(contentsOf: workspace.file("published/ota/acme/models.json")))
    XCTAssertEqual(try Data(contentsOf: workspace.file("published/ota/acme/models-2.json")), orphan)
    // Every customer after acme, left out by the killed run, is published now.
    for customer in customers {
      XCTAssertEqual(try manifest(workspace, customer)["customer"] as? String, customer)
    }

    // And publishing goes on from there.
    succeed(workspace, ["rollout", "acme", "onboarding_upsell", "74", "--percent", "40"])
    succeed(workspace, ["ota", "publish"] + Self.destination)
    XCTAssertEqual(try manifest(workspace, "acme")["revision"] as? Int, 4)
    XCTAssertEqual(try percent(try manifest(workspace, "acme")), 40)
  }

  func testARerunAfterAKillWithTheSameOfferPublishesTheRevisionTheKilledRunWrote() throws {
    let workspace = try Workspace()
    succeed(workspace, ["rollout", "acme", "onboarding_upsell", "74", "--percent", "10"])
    let killed = try ReleaseBinary.run(
      ["ota", "publish"] + Self.destination, in: workspace.root,
      environment: ["RELEASE_KILL_AT": "ota.revision-created"])
    XCTAssertEqual(killed.signal, SIGKILL, killed.allOutput)
    XCTAssertFalse(
      FileManager.default.fileExists(atPath: workspace.file("published/ota/acme/models.json").path))
    let written = try Data(contentsOf: workspace.file("published/ota/acme/models-1.json"))
    succeed(workspace, ["ota", "publish"] + Self.destination)
    XCTAssertEqual(try Data(contentsOf: workspace.file("published/ota/acme/models.json")), written)
    XCTAssertFalse(
      FileManager.default.fileExists(atPath: workspace.file("published/ota/acme/models-2.json").path))
  }
}

/// What `ota publish` writes, in which order, and the exact bytes of a manifest.
final class OTAPublishedFormatEndToEndTests: XCTestCase {
  /// Two models offered, to two customers: acme onboarding_upsell v74, cobalt paywall_timing v13.
  static let twoOffers = """
    {"customers": {
      "acme": {"onboarding_upsell": {"paused": false, "models": [
        {"modelVersion": 74, "rolloutPercent": 10, "status": "active", "salt": "00000000000000000000000000000001"}]}},
      "cobalt": {"paywall_timing": {"paused": false, "models": [
        {"modelVersion": 13, "rolloutPercent": 50, "status": "active", "salt": "00000000000000000000000000000002"}]}}}}
    """

  func testEveryModelIsUploadedBeforeAnyManifestNamingIt() throws {
    let moto = try SharedMoto.shared.moto()
    let proxy = try FaultProxy(upstreamPort: moto.port)
    defer { proxy.shutDown() }
    let workspace = try Workspace()
    try Self.twoOffers.write(to: workspace.file("rollouts.json"), atomically: true, encoding: .utf8)
    let models = try ["onboarding_upsell/74", "paywall_timing/13"].map {
      "sdk/ota/models/\(try SHA256Digest.hex(ofFileAt: workspace.file("models/\($0).mlmodel"))).mlmodel"
    }

    // Stopped after two PUTs: both models, and not one manifest.
    let cut = try moto.makeBucket()
    let publish = { (bucket: String) in
      workspace.run(
        ["ota", "publish", "--publish", "s3://\(bucket)/sdk", "--s3-endpoint", proxy.endpoint],
        environment: moto.credentials)
    }
    try proxy.command("fail-after-puts 2")
    let interrupted = publish(cut)
    XCTAssertEqual(interrupted.exitCode, 1, interrupted.allOutput)
    XCTAssertEqual(Set(try moto.objects(cut).keys), Set(models))

    // The whole publish, in order: the models' PUTs come before every manifest's.
    try proxy.command("heal")
    let bucket = try moto.makeBucket()
    let before = try proxy.relayedPuts().count
    let published = publish(bucket)
    XCTAssertEqual(published.exitCode, 0, published.allOutput)
    let puts = try proxy.relayedPuts().dropFirst(before).map { String($0.dropFirst("/\(bucket)/".count)) }
    XCTAssertEqual(Set(puts.prefix(2)), Set(models), "\(puts)")
    let manifests = puts.dropFirst(2)
    let customers = try XCTUnwrap(
      try JSONSerialization.jsonObject(with: Data(contentsOf: workspace.file("customers.json"))) as? [Any]
    ).count
    XCTAssertEqual(
      manifests.count, 2 * customers, "a revision and the pointer for each of \(customers) customers: \(puts)"
    )
    XCTAssertTrue(manifests.allSatisfy { $0.hasPrefix("sdk/ota/") && $0.hasSuffix(".json") }, "\(puts)")
    // Each customer's revision before its pointer.
    for pair in stride(from: 0, to: manifests.count, by: 2) {
      let revision = manifests[manifests.startIndex + pair]
      let pointer = manifests[manifests.startIndex + pair + 1]
      XCTAssertTrue(revision.hasSuffix("/models-1.json"), revision)
      XCTAssertEqual(pointer, revision.replacingOccurrences(of: "/models-1.json", with: "/models.json"))
    }
  }

  func testAModelKeyHoldingOtherBytesFailsAndNothingElseIsPublished() throws {
    let workspace = try Workspace()
    try Self.twoOffers.write(to: workspace.file("rollouts.json"), atomically: true, encoding: .utf8)
    // The key of the model uploaded second (models go in flow order), holding other bytes.
    let sha256 = try SHA256Digest.hex(ofFileAt: workspace.file("models/paywall_timing/13.mlmodel"))
    let planted = workspace.file("published/ota/models/\(sha256).mlmodel")
    try FileManager.default.createDirectory(
      at: planted.deletingLastPathComponent(), withIntermediateDirectories: true)
    try Data("other bytes".utf8).write(to: planted)
    let before = Workspace.snapshot(workspace.file("published"))
    let result = workspace.run(["ota", "publish", "--publish", "dir:published"])
    XCTAssertEqual(result.exitCode, 1, result.allOutput)
    XCTAssertEqual(
      result.standardError,
      [
        "error: publish over the air: published/ota/models/\(sha256).mlmodel: holds bytes with sha256 \(SHA256Digest.hex(of: Data("other bytes".utf8))) (11 bytes), not the model its name says; a published model is never overwritten: find out what wrote it"
      ])
    XCTAssertEqual(Workspace.snapshot(workspace.file("published")), before, "nothing else published")
  }

  /// The bytes of `ota/acme/models.json` with one offer, against Tests/Fixtures/OTA/models.json
  /// (rewritten by UPDATE_GOLDEN=1, with its copy the SDK template's updater tests read).
  func testAManifestWithOneOfferIsByteForByteTheGolden() throws {
    let workspace = try Workspace(manifest: EndToEndManifests.acme)
    try
      #"{"customers": {"acme": {"onboarding_upsell": {"paused": false, "models": [{"modelVersion": 74, "rolloutPercent": 10, "status": "active", "salt": "00000000000000000000000000000001"}]}}}}"#
      .write(to: workspace.file("rollouts.json"), atomically: true, encoding: .utf8)
    // A public URL needs a trusted key (the legacy manifest is still published beside the
    // signed channel, which acme, with no channel id yet, does not have, for a customer with a
    // released package that pins no keys: its record says none).
    let signer = try workspace.trustSigningKey()
    let record = workspace.file("dist/acme/1.0.0/release.json")
    try FileManager.default.createDirectory(
      at: record.deletingLastPathComponent(), withIntermediateDirectories: true)
    try Data(#"{"version": "1.0.0"}"#.utf8).write(to: record)
    let result = workspace.run(
      ["ota", "publish", "--publish", "dir:published", "--public-url", OTAGolden.publicURL],
      environment: signer)
    XCTAssertEqual(result.exitCode, 0, result.allOutput)
    let published = try Data(contentsOf: workspace.file("published/ota/acme/models.json"))
    let model = try Data(contentsOf: workspace.file("models/onboarding_upsell/74.mlmodel"))
    let fixture = OTAGolden.templateFixture(manifest: published, model: model)
    if ProcessInfo.processInfo.environment["UPDATE_GOLDEN"] == "1" {
      try published.write(to: OTAGolden.manifest)
      try Data(fixture.utf8).write(to: OTAGolden.template)
      print(
        "OTAPublishedFormatEndToEndTests: rewrote \(OTAGolden.manifest.path) and \(OTAGolden.template.path)")
      return
    }
    let hint =
      "if the change is intended, run UPDATE_GOLDEN=1 swift test --filter OTAPublishedFormatEndToEndTests and review it"
    XCTAssertEqual(
      String(decoding: published, as: UTF8.self), try String(contentsOf: OTAGolden.manifest, encoding: .utf8),
      "\(OTAGolden.manifest.path): \(hint)")
    XCTAssertEqual(
      fixture, try String(contentsOf: OTAGolden.template, encoding: .utf8),
      "\(OTAGolden.template.path): \(hint)")
    // What varies, checked against its sources rather than the tool: the model's digest and size.
    let manifest = try jsonObject(published, "models.json")
    let offer = try XCTUnwrap(
      ((manifest["flows"] as? [String: Any])?["onboarding_upsell"] as? [String: Any])?["models"]
        as? [[String: Any]])
    let (sha256, size) = try SHA256Digest.hexAndSize(
      ofFileAt: workspace.file("models/onboarding_upsell/74.mlmodel"))
    XCTAssertEqual(offer.first?["sha256"] as? String, sha256)
    XCTAssertEqual((offer.first?["size"] as? Int).map(Int64.init), size)
    XCTAssertEqual(offer.first?["url"] as? String, "\(OTAGolden.publicURL)/ota/models/\(sha256).mlmodel")
  }
}

/// The golden over-the-air manifest, and its copy in the SDK template's tests: the updater is
/// tested on a manifest the tool published, not on one written by hand. The copy is Swift
/// source (the manifest and the model it offers, as literals), so the template's test target
/// needs no resources and depends on nothing of the tool.
enum OTAGolden {
  static let publicURL = "https://cdn.example.com/sdk"
  static let manifest = RepositoryRoot.url.appendingPathComponent("Tests/Fixtures/OTA/models.json")
  static let template = RepositoryRoot.url.appendingPathComponent(
    "templates/ContextSDK/Tests/ContextSDKCoreTests/PublishedManifest.swift")

  static func templateFixture(manifest: Data, model: Data) -> String {
    // Every customer's package holds this file: its identifiers are example ones, not acme's.
    let json = String(decoding: manifest, as: UTF8.self)
      .replacingOccurrences(
        of: "3f2b8c1e-6d4a-4e9b-9a51-0c7d2e8f4a10", with: "0000000a-0000-4000-8000-00000000000b"
      )
      .replacingOccurrences(of: #""customer" : "acme""#, with: #""customer" : "example""#)
    let quotes = String(repeating: "\"", count: 3)
    let base64 = model.base64EncodedString().chunked(76).map { "      \"\($0)\"" }
    let lines = [
      "import Foundation",
      "",
      "/// A `models.json` as the release tool publishes it with one offer (onboarding_upsell",
      "/// v74 to 10% of devices), byte for byte but for example identifiers, and the model it",
      "/// offers: written by the tool's tests (OTAPublishedFormatEndToEndTests, UPDATE_GOLDEN=1)",
      "/// from its golden Tests/Fixtures/OTA/models.json, which they check. Do not edit by hand.",
      "enum PublishedManifest {",
      "  /// The public URL it was published with: model URLs start with it.",
      "  static let publicURL = \"\(publicURL)\"",
      "",
      "  static let json = #\(quotes)",
      json + quotes + "#",
      "",
      "  /// The bytes of the offered model (onboarding_upsell v74), base64.",
      "  static let model = Data(",
      "    base64Encoded: [",
      base64.joined(separator: ",\n"),
      "    ].joined())!",
      "}",
    ]
    return lines.joined(separator: "\n") + "\n"
  }
}

extension String {
  fileprivate func chunked(_ size: Int) -> [String] {
    stride(from: 0, to: count, by: size).map {
      let start = index(startIndex, offsetBy: $0)
      return String(self[start..<(index(start, offsetBy: size, limitedBy: endIndex) ?? endIndex)])
    }
  }
}

/// The pointer's compare-and-replace: a publish held after writing its revision file while
/// another one publishes on top of it; then the held one's replace (If-Match on S3, the lock in
/// a directory) finds the pointer changed, reads it again and fails with one line naming the
/// revision there now. Nothing is overwritten, and its rerun publishes the next revision.
final class OTAPointerRaceEndToEndTests: XCTestCase {
  func testDirectory() throws {
    let published = try TemporaryDirectory()
    try assertAHeldPublishLosesToAChangedPointer(
      destination: ["--publish", "dir:\(published.url.path)"], environment: [:],
      location: "\(published.url.path)/ota/acme/models.json"
    ) { key in try Data(contentsOf: published.url.appendingPathComponent(key)) }
  }

  func testS3() throws {
    let moto = try SharedMoto.shared.moto()
    let bucket = try moto.makeBucket()
    try assertAHeldPublishLosesToAChangedPointer(
      destination: ["--publish", "s3://\(bucket)/sdk", "--s3-endpoint", moto.endpoint],
      environment: moto.credentials, location: "s3://\(bucket)/sdk/ota/acme/models.json"
    ) { key in try moto.getObject(bucket, "sdk/" + key).data }
  }

  private func assertAHeldPublishLosesToAChangedPointer(
    destination: [String], environment: [String: String], location: String, read: (String) throws -> Data
  ) throws {
    func revision(_ key: String) throws -> (revision: Int, percent: Int) {
      let manifest = try jsonObject(try read(key), key)
      let flows = try XCTUnwrap(manifest["flows"] as? [String: Any])
      let models = try XCTUnwrap(
        (flows["onboarding_upsell"] as? [String: Any])?["models"] as? [[String: Any]])
      return (
        try XCTUnwrap(manifest["revision"] as? Int), try XCTUnwrap(models.first?["rolloutPercent"] as? Int)
      )
    }
    let held = try Workspace()
    let other = try Workspace()
    for (workspace, arguments) in [
      (held, ["rollout", "acme", "onboarding_upsell", "74", "--percent", "10"]),
      (held, ["ota", "publish"] + destination),
      (held, ["rollout", "acme", "onboarding_upsell", "74", "--percent", "20"]),
      (other, ["rollout", "acme", "onboarding_upsell", "74", "--percent", "30"]),
    ] {
      let result = workspace.run(arguments, environment: environment)
      XCTAssertEqual(result.exitCode, 0, "\(arguments): \(result.allOutput)")
    }
    XCTAssertEqual(try revision("ota/acme/models.json").revision, 1)

    let gate = try TemporaryDirectory()
    let running = try RunningBinary(
      ["ota", "publish"] + destination, in: held.root,
      environment: ReleaseBinary.environment(
        environment.merging(["RELEASE_PAUSE_AT": "ota.revision-created", "RELEASE_PAUSE_GATE": gate.url.path])
        {
          $1
        }))
    XCTAssertTrue(
      running.reachedPausePoint(gate: gate.url, timeout: 60), "the held publish wrote its revision file")
    XCTAssertEqual(try revision("ota/acme/models-2.json").percent, 20)

    // Revision 2 is the held publish's, unnamed: the other takes 3 and moves the pointer.
    let meanwhile = other.run(["ota", "publish"] + destination, environment: environment)
    XCTAssertEqual(meanwhile.exitCode, 0, meanwhile.allOutput)
    let pointer = try read("ota/acme/models.json")
    XCTAssertEqual(try revision("ota/acme/models.json").revision, 3)

    _ = FileManager.default.createFile(atPath: gate.url.appendingPathComponent("open").path, contents: nil)
    let lost = running.wait(timeout: 120)
    XCTAssertEqual(lost.exitCode, 1, lost.allOutput)
    XCTAssertEqual(
      lost.standardErrorLines.filter { $0.contains("error:") },
      [
        "error: publish over the air: \(location): changed while this publish held revision 1: it now holds revision 3 (another rollout was published); nothing was overwritten: rerun 'release ota publish' to publish on top of it"
      ], lost.allOutput)
    XCTAssertEqual(try read("ota/acme/models.json"), pointer, "the other's revision is not overwritten")
    XCTAssertEqual(try revision("ota/acme/models-2.json").percent, 20)

    // Its rerun publishes on top: every revision kept, the pointer at the newest.
    let rerun = held.run(["ota", "publish"] + destination, environment: environment)
    XCTAssertEqual(rerun.exitCode, 0, rerun.allOutput)
    XCTAssertEqual(try revision("ota/acme/models.json").revision, 4)
    XCTAssertEqual(try revision("ota/acme/models.json").percent, 20)
    XCTAssertEqual(try revision("ota/acme/models-3.json").percent, 30)
    XCTAssertEqual(try read("ota/acme/models-4.json"), try read("ota/acme/models.json"))
  }
}
