import Foundation
import ReleaseCLITestSupport
import ReleaseSigning
import ReleaseSystem
import ReleaseTestSupport
import XCTest

@testable import ReleaseCore
@testable import ReleasePipeline
@testable import ReleasePublishing
@testable import ReleaseVerification

/// Releases private, the over-the-air channel public, releases signed (issue 21), without a
/// build or a server: what is refused before anything is built, and the signature and index
/// formats against the keys.
final class ReleaseChannelsEndToEndTests: XCTestCase {
  func destination(_ text: String, endpoint: String? = nil) throws -> PublishDestination {
    try PublishDestination.parse(text, s3Endpoint: endpoint, baseURL: nil)
  }

  // MARK: channel separation

  func testAnOtaDestinationOverlappingAReleaseDestinationIsNamedAndOthersPass() throws {
    let release = try destination("s3://releases/sdk")
    for overlapping in ["s3://releases/sdk", "s3://releases", "s3://releases/sdk/ota"] {
      let reason = ChannelSeparation.overlap(ota: try destination(overlapping), release: release)
      XCTAssertNotNil(reason, overlapping)
      XCTAssertTrue(reason?.hasPrefix("\(overlapping) ") == true, reason ?? "")
      XCTAssertTrue(reason?.contains("release destination s3://releases/sdk") == true, reason ?? "")
    }
    XCTAssertTrue(
      ChannelSeparation.overlap(ota: try destination("s3://releases/sdk"), release: release)?.contains(
        "is the same bucket and prefix as") == true)
    // Apart: another bucket, a sibling prefix (not a string prefix: sdk-ota is not below sdk),
    // a directory.
    for apart in ["s3://sdk-ota/sdk", "s3://releases/ota", "s3://releases/sdk-ota", "dir:ota"] {
      XCTAssertNil(ChannelSeparation.overlap(ota: try destination(apart), release: release), apart)
    }
  }

  func testAPublicURLServingAReleaseDestinationIsNamed() throws {
    let moto = try destination("s3://releases/sdk", endpoint: "http://127.0.0.1:5000")
    for url in [
      "http://127.0.0.1:5000/releases", "http://127.0.0.1:5000/releases/sdk/",
      "http://releases.127.0.0.1:5000/sdk",
    ] {
      XCTAssertNotNil(ChannelSeparation.publicURLServes(url, release: moto), url)
    }
    let aws = try destination("s3://releases/sdk")
    for url in [
      "https://s3.eu-west-1.amazonaws.com/releases/sdk", "https://releases.s3.amazonaws.com/",
      "https://releases.s3.us-east-1.amazonaws.com/sdk/artifacts",
    ] {
      XCTAssertNotNil(ChannelSeparation.publicURLServes(url, release: aws), url)
    }
    for url in [
      "http://127.0.0.1:5000/other/sdk", "http://127.0.0.1:5000/releases/ota", "https://cdn.example.com/sdk",
      "http://127.0.0.1:5001/releases/sdk",
    ] {
      XCTAssertNil(ChannelSeparation.publicURLServes(url, release: moto), url)
    }
  }

  // MARK: refused before anything is built

  static let credentials = [
    "AWS_ACCESS_KEY_ID": "AKIAEXAMPLE", "AWS_SECRET_ACCESS_KEY": "secret-for-tests", "AWS_SESSION_TOKEN": "",
    "RELEASE_SIGNING_KEY": "",
  ]

  /// Runs `arguments`, expects exit 2 with one line on stderr containing each of `parts`, and
  /// the workspace unchanged (nothing built, written or published).
  func assertRefused(
    _ workspace: Workspace, _ arguments: [String], containing parts: [String],
    environment: [String: String] = credentials, file: StaticString = #filePath, line: UInt = #line
  ) {
    let before = Workspace.snapshot(workspace.root)
    let result = workspace.run(arguments, environment: environment)
    XCTAssertEqual(result.exitCode, 2, result.allOutput, file: file, line: line)
    XCTAssertEqual(result.standardError.count, 1, result.allOutput, file: file, line: line)
    for part in parts {
      XCTAssertTrue(result.allOutput.contains(part), "\(part): \(result.allOutput)", file: file, line: line)
    }
    XCTAssertEqual(Workspace.snapshot(workspace.root), before, "nothing written", file: file, line: line)
  }

  func offer74(_ workspace: Workspace) throws {
    try
      #"{"customers": {"acme": {"onboarding_upsell": {"paused": false, "models": [{"modelVersion": 74, "rolloutPercent": 10, "status": "active", "salt": "00000000000000000000000000000001"}]}}}}"#
      .write(to: workspace.file("rollouts.json"), atomically: true, encoding: .utf8)
  }

  func testAnS3ReleaseDestinationWithOffersNeedsAnOtaDestination() throws {
    let workspace = try Workspace()
    try offer74(workspace)
    let publish = ["all", "--publish", "s3://releases/sdk", "--s3-endpoint", "http://127.0.0.1:9"]
    assertRefused(
      workspace, publish,
      containing: [
        "error: rollouts.json: ", "s3://releases/sdk holds releases, which are private",
        "publish.otaDestination",
      ])

    // An otaDestination that is the release destination, or a public URL serving it.
    try #"{"publish": {"otaDestination": "s3://releases/sdk/ota"}}"#.write(
      to: workspace.file("release.config.json"), atomically: true, encoding: .utf8)
    assertRefused(
      workspace, publish,
      containing: [
        "error: publish.otaDestination s3://releases/sdk/ota lies inside the release destination s3://releases/sdk"
      ])
    // A public URL needs a trusted key (else that is refused first).
    let signing = try workspace.trustSigningKey(
      configuration: #"{"publish": {"otaDestination": "s3://sdk-ota/public"}}"#)
    assertRefused(
      workspace, publish + ["--public-url", "http://127.0.0.1:9/releases"],
      containing: [
        "error: --public-url http://127.0.0.1:9/releases: serves the release destination s3://releases/sdk"
      ], environment: Self.credentials.merging(signing) { _, signing in signing })
  }

  func testPublishingWithTrustedKeysAndNoPrivateKeyIsRefused() throws {
    let workspace = try Workspace()
    let key = try SigningKey.generate()
    try FileManager.default.createDirectory(at: workspace.file("keys"), withIntermediateDirectories: true)
    try key.publicKey.pemEncoded.write(
      to: workspace.file("keys/release.pub"), atomically: true, encoding: .utf8)
    try #"{"signing": {"trustedKeys": ["keys/release.pub"]}}"#.write(
      to: workspace.file("release.config.json"), atomically: true, encoding: .utf8)
    assertRefused(
      workspace, ["all", "--publish", "dir:published"],
      containing: ["signing.trustedKeys", "no private key", "RELEASE_SIGNING_KEY", "--signing-key"])
    XCTAssertFalse(FileManager.default.fileExists(atPath: workspace.file("published").path))
  }

  // MARK: signatures and signed indexes

  func testAZipSignatureVerifiesWithSSHKeygenAndFailsOnceOneByteChanges() throws {
    let directory = try TemporaryDirectory()
    let zip = directory.url.appendingPathComponent("ContextSDK_Acme-2.4.1.zip")
    try Data((0..<4096).map { UInt8($0 % 251) }).write(to: zip)
    let key = try SigningKey.generate()
    let other = try SigningKey.generate()
    let signing = SigningSetup(trusted: [key.publicKey], signers: [key])
    let armored = try ReleaseSignature.sign(zipAt: zip, signing)
    let signature = directory.url.appendingPathComponent("ContextSDK_Acme-2.4.1.zip.sig")
    try armored.write(to: signature, atomically: true, encoding: .utf8)
    try
      (try key.publicKey.allowedSignersLine(identity: "release@contextsdk", namespace: "contextsdk-release")
      + "\n").write(
        to: directory.url.appendingPathComponent("allowed_signers"), atomically: true, encoding: .utf8)

    let verify = KeysTestSupport.sshVerifyArguments(
      identity: "release@contextsdk", signature: signature.lastPathComponent)
    let accepted = try KeysTestSupport.tool("ssh-keygen", verify, in: directory.url, input: zip)
    XCTAssertEqual(accepted.exitCode, 0, accepted.standardOutput + accepted.standardError)
    XCTAssertEqual(
      ReleaseSignature.verify(zipAt: zip, signature: Data(armored.utf8), trusted: [key.publicKey]),
      .success(key.publicKey))
    XCTAssertEqual(
      ReleaseSignature.verify(zipAt: zip, signature: Data(armored.utf8), trusted: [other.publicKey]),
      .failure(.untrustedKey(fingerprint: key.publicKey.sshFingerprint)))

    var bytes = try Data(contentsOf: zip)
    bytes[100] ^= 0x01
    try bytes.write(to: zip)
    let refused = try KeysTestSupport.tool("ssh-keygen", verify, in: directory.url, input: zip)
    XCTAssertNotEqual(refused.exitCode, 0, refused.standardOutput + refused.standardError)
    XCTAssertEqual(
      ReleaseSignature.verify(zipAt: zip, signature: Data(armored.utf8), trusted: [key.publicKey]),
      .failure(.badSignature(fingerprint: key.publicKey.sshFingerprint)))
  }

  func index(_ id: String) -> CustomerIndex {
    CustomerIndex(
      id: id, name: "Acme Fitness", packageName: "ContextSDK_Acme", latest: "2.4.1",
      versions: [
        .init(
          version: "2.4.1", sdkVersion: "2.4.0", minimumSDKVersion: "2.4.0",
          url: "https://s3.example.com/releases/sdk/artifacts/acme/2.4.1/ContextSDK_Acme-2.4.1.zip",
          sha256: String(repeating: "a", count: 64), size: 1234, models: [], releaseNotes: nil)
      ])
  }

  func testASignedCustomerIndexIsAnEnvelopeOfItsJSONAndReadersCheckIt() throws {
    let key = try SigningKey.generate()
    let other = try SigningKey.generate()
    let signing = SigningSetup(trusted: [key.publicKey], signers: [key])
    let index = index("acme")
    let signed = try index.encoded(signing)
    let envelope = try DSSEEnvelope(json: signed)
    XCTAssertEqual(envelope.payloadType, "application/vnd.contextsdk.release-index+json")
    XCTAssertEqual(envelope.payload, try StableJSON.encode(index))
    XCTAssertEqual(envelope.signatures.map(\.keyID), [key.keyID])

    XCTAssertEqual(try CustomerIndex.decode(signed, trusted: [key.publicKey], location: "x"), index)
    XCTAssertEqual(try CustomerIndex.decode(signed, trusted: nil, location: "x"), index)
    // Unsigned without signers, and read as it is by a run without trusted keys; with them only
    // when adopted (--adopt-unsigned-index): anyone who can write the bucket can write plain JSON.
    let plain = try index.encoded(SigningSetup())
    XCTAssertEqual(plain, try StableJSON.encode(index))
    XCTAssertEqual(try CustomerIndex.decode(plain, trusted: [], location: "x"), index)
    XCTAssertEqual(try CustomerIndex.decode(plain, trusted: nil, location: "x"), index)
    XCTAssertThrowsError(try CustomerIndex.decode(plain, trusted: [key.publicKey], location: "x")) {
      XCTAssertTrue("\($0)".contains("--adopt-unsigned-index"), "\($0)")
    }
    XCTAssertEqual(
      try CustomerIndex.decode(plain, trusted: [key.publicKey], location: "x", adoptUnsigned: true), index)

    // Signed by a key not trusted, or read by a run that trusts none: refused, naming it.
    for trusted in [[other.publicKey], []] {
      XCTAssertThrowsError(
        try CustomerIndex.decode(signed, trusted: trusted, location: "s3://b/sdk/customers/acme/index.json")
      ) {
        let message = "\($0)"
        XCTAssertTrue(message.hasPrefix("s3://b/sdk/customers/acme/index.json: not an index"), message)
      }
    }
    // Another payload type (an OTA manifest's envelope) is not an index.
    let manifest = try DSSEEnvelope.sign(
      payload: try StableJSON.encode(index), payloadType: "application/vnd.contextsdk.ota-manifest+json",
      with: [key]
    ).jsonData()
    XCTAssertThrowsError(try CustomerIndex.decode(manifest, trusted: nil, location: "x"))
  }

  func testVerifyReportsASignatureAsUnsignedUncheckedSignedOrFailed() throws {
    let directory = try TemporaryDirectory()
    let file = "ContextSDK_Acme-2.4.1.zip"
    let zip = directory.url.appendingPathComponent(file)
    try Data("zip bytes".utf8).write(to: zip)
    let key = try SigningKey.generate()
    func check(_ trusted: [PublicKey]) -> ArtifactChecks.SignatureCheck {
      ArtifactChecks.signature(releaseDirectory: directory.url, archive: file, trusted: trusted)
    }
    XCTAssertEqual(check([key.publicKey]), .unsigned)
    try ReleaseSignature.sign(zipAt: zip, SigningSetup(trusted: [key.publicKey], signers: [key])).write(
      to: directory.url.appendingPathComponent(file + ".sig"), atomically: true, encoding: .utf8)
    XCTAssertEqual(check([]), .unchecked(file: file + ".sig"))
    XCTAssertEqual(check([key.publicKey]), .signed(file: file + ".sig", key: key.publicKey))
    try Data("zip bytez".utf8).write(to: zip)
    XCTAssertEqual(
      check([key.publicKey]),
      .failed(
        "\(file).sig: SSH signature by \(key.publicKey.sshFingerprint) does not match the data (changed since it was signed?)"
      ))
  }
}
