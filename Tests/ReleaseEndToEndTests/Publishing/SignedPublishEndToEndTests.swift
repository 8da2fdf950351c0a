import Foundation
import ReleaseArchive
import ReleaseCLITestSupport
import ReleaseSigning
import ReleaseSystem
import ReleaseTestSupport
import XCTest

@testable import ReleaseCore
@testable import ReleasePipeline

/// Issue 21 against moto_server: one `release all --publish s3://…` with a signing key, a
/// model offered over the air and `publish.otaDestination` in another bucket, shared by the
/// class's assertions. The release destination is private, the over-the-air one holds only
/// `ota/…`, each customer index names only its customer, and each zip's signature is accepted
/// by OpenSSH's `ssh-keygen -Y verify` and `release verify` until a byte of the zip changes.
final class SignedPublishEndToEndTests: XCTestCase {
  private static let server = SharedMoto.shared
  private static let shared = Locked<Result<Published, Error>?>(nil)

  static func moto() throws -> Moto {
    try server.moto()
  }

  override class func tearDown() {
    shared.set(nil)
    super.tearDown()
  }

  /// What the class's one publish made, and what the tests check it with.
  struct Published {
    let workspace: Workspace
    let moto: Moto
    let bucket: String
    let otaBucket: String
    let key: SigningKey
    let releases: [ExpectedRelease]
  }

  static func published() throws -> Published {
    try shared.withLock { done in
      if done == nil { done = Result { try publish() } }
      return done!
    }.get()
  }

  private static func publish() throws -> Published {
    let moto = try moto()
    let bucket = try moto.makeBucket()
    let otaBucket = try moto.makeBucket()
    let workspace = try BuiltFixture.shared.get().copy()
    let key = try SigningKey.generate()
    try FileManager.default.createDirectory(at: workspace.file("keys"), withIntermediateDirectories: true)
    try key.publicKey.pemEncoded.write(
      to: workspace.file("keys/release.pub"), atomically: true, encoding: .utf8)
    try #"""
    {"signing": {"trustedKeys": ["keys/release.pub"],
                 "allowedSignersURL": "https://example.com/contextsdk/allowed_signers"},
     "publish": {"otaDestination": "s3://\#(otaBucket)/public"}}
    """#.write(to: workspace.file("release.config.json"), atomically: true, encoding: .utf8)
    try
      #"{"customers": {"acme": {"onboarding_upsell": {"paused": false, "models": [{"modelVersion": 74, "rolloutPercent": 10, "status": "active", "salt": "00000000000000000000000000000001"}]}}}}"#
      .write(to: workspace.file("rollouts.json"), atomically: true, encoding: .utf8)
    let run = try workspace.runWithoutCompiling(
      [
        "all", "--skip-tests", "--allow-dirty", "--publish", "s3://\(bucket)/sdk", "--s3-endpoint",
        moto.endpoint,
      ],
      environment: moto.credentials.merging(["RELEASE_SIGNING_KEY": key.pemEncoded]) { $1 })
    guard run.exitCode == 0 else {
      throw PublishSetupError(
        description: "the signed publish failed (exit \(run.exitCode)):\n\(run.allOutput)")
    }
    for secret in KeysTestSupport.secretLines(ofPEM: key.pemEncoded) where run.allOutput.contains(secret) {
      throw PublishSetupError(description: "the publish printed the private key")
    }
    return Published(
      workspace: workspace, moto: moto, bucket: bucket, otaBucket: otaBucket, key: key,
      releases: try PublishFixtures.customers.map { try ExpectedRelease(dist: workspace.dist, id: $0) })
  }

  func testReleasesArePrivateTheOtaChannelApartAndEachIndexNamesOnlyItsCustomer() throws {
    let published = try Self.published()
    let moto = published.moto

    // The release destination: the zips, their checksums and signatures, the customer indexes
    // and the top-level index; nothing over the air, nothing with a public cache header.
    var expected: Set<String> = ["sdk/index.json"]
    for release in published.releases {
      expected.formUnion((release.artifactKeys + [release.artifactKeys[0] + ".sig"]).map { "sdk/\($0)" })
      expected.insert("sdk/customers/\(release.record.customer.id)/index.json")
    }
    let keys = Set(try moto.snapshot(published.bucket).keys)
    XCTAssertEqual(keys, expected)
    // The tool sets the header by the kind of object: every kind, as the first customer has it.
    let firstCustomer = try XCTUnwrap(published.releases.first).record.customer.id
    let representatives = keys.filter { $0 == "sdk/index.json" || $0.contains("/\(firstCustomer)/") }
    XCTAssertEqual(
      representatives.count, 5, "the index, and the first customer's zip, checksum, signature and index")
    for key in representatives.sorted() {
      let cacheControl = try moto.getObject(published.bucket, key).metadata["CacheControl"] as? String
      XCTAssertEqual(cacheControl?.hasPrefix("private,"), true, "\(key): \(cacheControl ?? "none")")
      XCTAssertEqual(cacheControl?.contains("public"), false, "\(key): \(cacheControl ?? "none")")
    }

    // The over-the-air destination: only ota/…, below its own prefix, cached publicly.
    let otaKeys = try moto.snapshot(published.otaBucket).keys.sorted()
    XCTAssertTrue(otaKeys.contains("public/ota/acme/models.json"), "\(otaKeys)")
    XCTAssertTrue(otaKeys.contains { $0.hasPrefix("public/ota/models/") }, "\(otaKeys)")
    for key in otaKeys {
      XCTAssertTrue(key.hasPrefix("public/ota/"), key)
    }
    let pointer = try moto.getObject(published.otaBucket, "public/ota/acme/models.json")
    XCTAssertEqual((pointer.metadata["CacheControl"] as? String)?.hasPrefix("public"), true)

    // Each customer index: a DSSE envelope signed by the key, whose payload is that customer's
    // index only, pointing at the zip's S3 URL.
    let customers = published.releases.map(\.record.customer)
    let objects = try moto.objects(published.bucket)
    for release in published.releases {
      let id = release.record.customer.id
      let key = "sdk/customers/\(id)/index.json"
      let data = try XCTUnwrap(objects[key], key)
      let verified = try DSSEEnvelope.verify(
        json: data, payloadType: "application/vnd.contextsdk.release-index+json",
        trustedKeys: [published.key.publicKey])
      XCTAssertEqual(verified.keyIDs, [published.key.keyID])
      let index = try jsonObject(verified.payload, key)
      XCTAssertEqual(index["id"] as? String, id)
      let versions = try XCTUnwrap(index["versions"] as? [[String: Any]])
      XCTAssertEqual(
        versions.map { $0["url"] as? String },
        ["\(moto.endpoint)/\(published.bucket)/sdk/\(release.artifactKeys[0])"])
      let text = String(decoding: verified.payload, as: UTF8.self)
      for other in customers where other.id != id {
        for name in [other.id, other.appID, other.name].compactMap({ $0 }) {
          XCTAssertFalse(text.contains(name), "\(key) names \(name), of another customer")
        }
      }
    }
  }

  func testAZipChangedByOneByteFailsSSHKeygenAndReleaseVerify() throws {
    let published = try Self.published()
    let workspace = published.workspace
    let release = try XCTUnwrap(published.releases.first { $0.record.customer.id == "acme" })
    let zipKey = "sdk/" + release.artifactKeys[0]
    let directory = try TemporaryDirectory()
    let zip = directory.url.appendingPathComponent(release.record.artifact.file)
    let signature = directory.url.appendingPathComponent(release.record.artifact.file + ".sig")
    try published.moto.getObject(published.bucket, zipKey).data.write(to: zip)
    try published.moto.getObject(published.bucket, zipKey + ".sig").data.write(to: signature)

    // As a customer: the allowed_signers line the vendor hands out, and stock ssh-keygen.
    let signers = workspace.run(["keys", "allowed-signers"])
    XCTAssertEqual(signers.exitCode, 0, signers.allOutput)
    let line = try XCTUnwrap(signers.standardOutput.first { !$0.hasPrefix("#") })
    try (line + "\n").write(
      to: directory.url.appendingPathComponent("allowed_signers"), atomically: true, encoding: .utf8)
    let verify = KeysTestSupport.sshVerifyArguments(
      identity: "release@contextsdk", signature: signature.lastPathComponent)
    let accepted = try KeysTestSupport.tool("ssh-keygen", verify, in: directory.url, input: zip)
    XCTAssertEqual(accepted.exitCode, 0, accepted.standardOutput + accepted.standardError)
    // The line trusts the key for release signatures only: the same key's signature in another
    // namespace (a git commit's, a file's) is refused by ssh-keygen itself.
    XCTAssertTrue(line.contains(#" namespaces="contextsdk-release" "#), line)
    let otherNamespace = directory.url.appendingPathComponent("other.sig")
    let signingKey = published.key
    try SSHSignature.sign(fileAt: zip, namespace: "file", with: signingKey)
      .write(to: otherNamespace, atomically: true, encoding: .utf8)
    let otherArguments = [
      "-Y", "verify", "-f", "allowed_signers", "-I", "release@contextsdk", "-n", "file", "-s",
    ]
    let foreign = try KeysTestSupport.tool(
      "ssh-keygen", otherArguments + [otherNamespace.path], in: directory.url, input: zip)
    XCTAssertNotEqual(foreign.exitCode, 0, "another namespace accepted: \(foreign.standardOutput)")

    // The package's README says so: the key's fingerprint and this command for this zip.
    var readme: String?
    try ZipReader.forEachFile(in: zip) { entry, data in
      guard entry.path == release.record.packageName + "/README.md" else { return }
      var bytes = Data()
      try data.forEachBlock { bytes.append(contentsOf: $0) }
      readme = String(decoding: bytes, as: UTF8.self)
    }
    let text = try XCTUnwrap(readme, "no README.md in \(zip.lastPathComponent)")
    XCTAssertTrue(text.contains("\n## Checking the signature\n"), text)
    XCTAssertTrue(text.contains("- `\(published.key.publicKey.sshFingerprint)`"), text)
    // release verify below regenerates this README from release.config.json, URL included.
    XCTAssertTrue(text.contains("at `https://example.com/contextsdk/allowed_signers`."), text)
    XCTAssertTrue(
      text.contains(
        "\n" + (["ssh-keygen"] + verify).joined(separator: " ") + " < \(zip.lastPathComponent)\n"),
      text)

    var bytes = try Data(contentsOf: zip)
    bytes[bytes.count / 2] ^= 0x01
    try bytes.write(to: zip)
    let refused = try KeysTestSupport.tool("ssh-keygen", verify, in: directory.url, input: zip)
    XCTAssertNotEqual(refused.exitCode, 0, refused.standardOutput + refused.standardError)

    // release verify: the signature beside the zip in dist/ is the published one; it passes
    // and names the key, and fails once a byte of a copy's zip changed.
    XCTAssertEqual(
      try Data(contentsOf: release.directory.appendingPathComponent(release.record.artifact.file + ".sig")),
      try Data(contentsOf: signature))
    let fingerprint = published.key.publicKey.sshFingerprint
    let good = workspace.run(["verify", release.directory.path, "--no-build"])
    XCTAssertEqual(good.exitCode, 0, good.allOutput)
    XCTAssertTrue(
      good.standardOutput.contains(
        "  ok  \(release.record.artifact.file).sig: signed by key \(published.key.keyID) (\(fingerprint))"),
      good.allOutput)

    let copy = workspace.file("tampered/acme/\(release.record.version)")
    try FileManager.default.createDirectory(
      at: copy.deletingLastPathComponent(), withIntermediateDirectories: true)
    try FileManager.default.copyItem(at: release.directory, to: copy)
    let copiedZip = copy.appendingPathComponent(release.record.artifact.file)
    var copied = try Data(contentsOf: copiedZip)
    copied[copied.count / 2] ^= 0x01
    try copied.write(to: copiedZip)
    let bad = workspace.run(["verify", copy.path, "--no-build"])
    XCTAssertEqual(bad.exitCode, 1, bad.allOutput)
    XCTAssertTrue(
      bad.standardError.contains(
        "  FAIL \(release.record.artifact.file).sig: SSH signature by \(fingerprint) does not match the data (changed since it was signed?)"
      ), bad.allOutput)

    // A published release whose signature is gone fails too: it was published signed.
    let unsigned = workspace.file("unsigned/acme/\(release.record.version)")
    try FileManager.default.createDirectory(
      at: unsigned.deletingLastPathComponent(), withIntermediateDirectories: true)
    try FileManager.default.copyItem(at: release.directory, to: unsigned)
    try FileManager.default.removeItem(
      at: unsigned.appendingPathComponent(release.record.artifact.file + ".sig"))
    let missing = workspace.run(["verify", unsigned.path, "--no-build"])
    XCTAssertEqual(missing.exitCode, 1, missing.allOutput)
    XCTAssertTrue(
      missing.standardError.contains(
        "  FAIL \(release.record.artifact.file).sig: missing, and published.json says this release was published signed; restore the signature from the destination (\(release.record.artifact.file).sig beside the zip)"
      ), missing.allOutput)
  }

  /// Reruns converge: the same key signs the same bytes (nothing uploaded again); after a
  /// rotation the signature a trusted key made stays and the indexes are signed by the new key;
  /// a run that trusts no key refuses to touch a signed index, changing nothing.
  func testARerunOrARotatedKeyKeepsThePublishedSignaturesAndAnUnsignedRunIsRefused() throws {
    let moto = try Self.moto()
    let bucket = try moto.makeBucket()
    let workspace = try BuiltFixture.shared.get().copy()
    let old = try SigningKey.generate()
    let new = try SigningKey.generate()
    try FileManager.default.createDirectory(at: workspace.file("keys"), withIntermediateDirectories: true)
    for (name, key) in [("old", old), ("new", new)] {
      try key.publicKey.pemEncoded.write(
        to: workspace.file("keys/\(name).pub"), atomically: true, encoding: .utf8)
    }
    let configuration = workspace.file("release.config.json")
    try #"{"signing": {"trustedKeys": ["keys/old.pub", "keys/new.pub"]}}"#.write(
      to: configuration, atomically: true, encoding: .utf8)
    func publish(_ key: SigningKey?, _ extra: [String] = []) throws -> Workspace.Run {
      try workspace.runWithoutCompiling(
        [
          "all", "--skip-tests", "--allow-dirty", "--publish", "s3://\(bucket)/sdk", "--s3-endpoint",
          moto.endpoint,
        ] + extra,
        environment: moto.credentials.merging(["RELEASE_SIGNING_KEY": key?.pemEncoded ?? ""]) { $1 })
    }
    func signers(_ id: String) throws -> [String] {
      try DSSEEnvelope.verify(
        json: try moto.getObject(bucket, "sdk/customers/\(id)/index.json").data,
        payloadType: "application/vnd.contextsdk.release-index+json",
        trustedKeys: [old.publicKey, new.publicKey]
      ).keyIDs
    }

    let first = try publish(old)
    XCTAssertEqual(first.exitCode, 0, first.allOutput)
    let releases = try PublishFixtures.customers.map { try ExpectedRelease(dist: workspace.dist, id: $0) }
    let files = releases.count * 3
    let artifacts = { try moto.snapshot(bucket).filter { $0.key.contains("/artifacts/") } }
    let published = try artifacts()
    XCTAssertEqual(published.count, files)

    let again = try publish(old)
    XCTAssertEqual(again.exitCode, 0, again.allOutput)
    XCTAssertTrue(again.allOutput.contains("0 new objects, \(files) already in place"), again.allOutput)
    XCTAssertEqual(try artifacts(), published, "no object rewritten")

    let rotated = try publish(new)
    XCTAssertEqual(rotated.exitCode, 0, rotated.allOutput)
    XCTAssertTrue(rotated.allOutput.contains("0 new objects, \(files) already in place"), rotated.allOutput)
    XCTAssertEqual(try artifacts(), published, "the old key's signatures stay")
    let objects = try moto.objects(bucket)
    for release in releases {
      let zip = try XCTUnwrap(objects["sdk/" + release.artifactKeys[0]])
      let signature = try XCTUnwrap(objects["sdk/" + release.artifactKeys[0] + ".sig"])
      let directory = try TemporaryDirectory()
      let file = directory.url.appendingPathComponent("release.zip")
      try zip.write(to: file)
      XCTAssertEqual(
        ReleaseSignature.verify(zipAt: file, signature: signature, trusted: [old.publicKey]),
        .success(old.publicKey))
      XCTAssertEqual(try signers(release.record.customer.id), [new.keyID])
    }

    try checkAPlantedUnsignedIndexIsRefusedUnlessAdopted(
      moto: moto, bucket: bucket, key: new, publish: { try publish(new, $0) }, signers: signers)

    // Without trusted keys the signed indexes can be neither checked nor signed again.
    try "{}".write(to: configuration, atomically: true, encoding: .utf8)
    let before = try moto.snapshot(bucket)
    let unsigned = try publish(nil)
    XCTAssertEqual(unsigned.exitCode, 1, unsigned.allOutput)
    XCTAssertTrue(
      unsigned.allOutput.contains(
        "s3://\(bucket)/sdk/customers/acme/index.json: not an index written by release (it is signed, and this run trusts no key (signing.trustedKeys) to check it and sign it again)"
      ), unsigned.allOutput)
    XCTAssertEqual(try moto.snapshot(bucket), before, "nothing published")
  }

  /// With trusted keys, a plain-JSON customer index in the bucket (what a bucket writer can
  /// put there, listing whatever it likes) is neither merged nor signed: the run fails naming
  /// the way to adopt an existing unsigned index once, `--adopt-unsigned-index`, which signs it.
  private func checkAPlantedUnsignedIndexIsRefusedUnlessAdopted(
    moto: Moto, bucket: String, key: SigningKey, publish: ([String]) throws -> Workspace.Run,
    signers: (String) throws -> [String]
  ) throws {
    let indexKey = "sdk/customers/acme/index.json"
    let plain = try DSSEEnvelope(json: try moto.getObject(bucket, indexKey).data).payload
    let directory = try TemporaryDirectory()
    let file = directory.url.appendingPathComponent("index.json")
    try plain.write(to: file)
    try moto.aws(["s3api", "put-object", "--bucket", bucket, "--key", indexKey, "--body", file.path])
    let planted = try moto.snapshot(bucket)

    let refused = try publish([])
    XCTAssertEqual(refused.exitCode, 1, refused.allOutput)
    XCTAssertTrue(
      refused.allOutput.contains(
        "s3://\(bucket)/sdk/customers/acme/index.json: not an index written by release (it is plain JSON, not signed, and this run trusts keys (signing.trustedKeys): anyone who can write the destination could have put it there; check it, then publish once with --adopt-unsigned-index to sign it)"
      ), refused.allOutput)
    XCTAssertEqual(try moto.snapshot(bucket), planted, "nothing published, the planted index not signed")

    let adopted = try publish(["--adopt-unsigned-index"])
    XCTAssertEqual(adopted.exitCode, 0, adopted.allOutput)
    XCTAssertEqual(try signers("acme"), [key.keyID], "adopted and signed")
  }
}
