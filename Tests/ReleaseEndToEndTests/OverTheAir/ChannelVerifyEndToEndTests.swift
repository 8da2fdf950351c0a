import Foundation
import ReleaseCLITestSupport
import ReleaseOTA
import ReleaseSystem
import ReleaseTestSupport
import XCTest

@testable import ReleaseCLI

/// `release ota verify` against a channel in a bucket (moto_server, signatures checked) and
/// served over http on 127.0.0.1 (python's http.server), as a monitor reads it: a good channel
/// exits 0; a model object with more bytes than the manifest says exits 1 with one line (the
/// download stopped at the manifest's size), a missing one too.
final class ChannelVerifyEndToEndTests: XCTestCase {
  private func moto() throws -> Moto {
    try SharedMoto.shared.moto()
  }

  func testAChannelInABucket() throws {
    let moto = try moto()
    let bucket = try moto.makeBucket()
    let published = try PublishedChannel()
    // Object by object, as the publisher uploads them.
    let directory = published.root.appendingPathComponent("published")
    for path in try FileManager.default.subpathsOfDirectory(atPath: directory.path).sorted() {
      var isDirectory: ObjCBool = false
      let file = directory.appendingPathComponent(path)
      guard FileManager.default.fileExists(atPath: file.path, isDirectory: &isDirectory),
        !isDirectory.boolValue
      else { continue }
      try moto.put(bucket, "sdk/" + path, try Data(contentsOf: file))
    }
    let arguments = ["ota", "verify", "s3://\(bucket)/sdk", "acme", "--s3-endpoint", moto.endpoint]

    let good = published.run(arguments, environment: moto.credentials)
    XCTAssertEqual(good.code, 0, good.allOutput)
    XCTAssertEqual(good.standardError, [], good.allOutput)
    XCTAssertEqual(good.standardOutput.count, 1, good.allOutput)
    XCTAssertTrue(
      good.standardOutput.first?.hasPrefix("acme: ok, revision 3 (3 revision files verified), expires ")
        == true,
      good.allOutput)

    let modelKey = "sdk/" + OTAManifest.modelKey(sha256: published.modelSHA256)
    try moto.put(bucket, modelKey, published.model + Data(repeating: 0, count: 4096))
    let larger = published.run(arguments, environment: moto.credentials)
    XCTAssertEqual(larger.code, 1, larger.allOutput)
    XCTAssertEqual(
      larger.standardError,
      [
        "s3://\(bucket)/\(modelKey): holds more than 3000 bytes; expected onboarding_upsell v74: 3000 bytes with sha256 \(published.modelSHA256)",
        "error: ota verify: 1 problem in 1 of 1 channel (acme)",
      ])

    try moto.aws(["s3api", "delete-object", "--bucket", bucket, "--key", modelKey])
    let missing = published.run(arguments, environment: moto.credentials)
    XCTAssertEqual(missing.code, 1, missing.allOutput)
    XCTAssertEqual(
      missing.standardError.first,
      "s3://\(bucket)/\(modelKey): missing; expected onboarding_upsell v74: 3000 bytes with sha256 \(published.modelSHA256)"
    )
    XCTAssertEqual(missing.standardError.count, 2, missing.allOutput)
  }

  func testAChannelOverHTTPOnLoopback() throws {
    let published = try PublishedChannel()
    let server = try StaticHTTPServer(directory: published.root.appendingPathComponent("published"))
    defer { server.shutDown() }
    let arguments = ["ota", "verify", server.baseURL + "/"]

    let good = published.run(arguments)
    XCTAssertEqual(good.code, 0, good.allOutput)
    XCTAssertEqual(good.standardError, [], good.allOutput)
    XCTAssertTrue(good.standardOutput.first?.hasPrefix("acme: ok, revision 3") == true, good.allOutput)
    XCTAssertTrue(
      server.requests.contains("GET /ota/\(PublishedChannel.channel)/manifest.json HTTP/1.1"),
      "\(server.requests)")

    let modelURL = "\(server.baseURL)/" + OTAManifest.modelKey(sha256: published.modelSHA256)
    try published.write(published.modelPath, published.model + Data(repeating: 0, count: 4096))
    let larger = published.run(arguments)
    XCTAssertEqual(larger.code, 1, larger.allOutput)
    XCTAssertEqual(
      larger.standardError.first,
      "\(modelURL): holds more than 3000 bytes; expected onboarding_upsell v74: 3000 bytes with sha256 \(published.modelSHA256)"
    )
    XCTAssertEqual(larger.standardError.count, 2, larger.allOutput)

    try published.remove(published.pointerPath)
    let noPointer = published.run(arguments)
    XCTAssertEqual(noPointer.code, 1, noPointer.allOutput)
    XCTAssertEqual(
      noPointer.standardError.first,
      "\(server.baseURL)/ota/\(PublishedChannel.channel)/manifest.json: missing; expected the pointer devices poll, a signed manifest envelope"
    )
    XCTAssertEqual(noPointer.standardError.count, 2, noPointer.allOutput)
  }
}
