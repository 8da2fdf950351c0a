import Foundation
import ReleaseCLITestSupport
import ReleaseOTA
import ReleaseSigning
import ReleaseSystem
import ReleaseTestSupport
import XCTest

@testable import ReleaseCLI

/// `release ota verify` in this process against a channel published into a directory: a good
/// channel exits 0 with a summary line; each fault exits 1 with exactly one line naming the
/// object, what was found and what was expected.
final class ChannelVerifyCommandTests: XCTestCase {
  private let channel = PublishedChannel.channel
  private var pointer: String { "published/ota/\(channel)/manifest.json" }

  func testAGoodChannelExits0WithOneSummaryLine() throws {
    let published = try PublishedChannel()
    let result = published.run(["ota", "verify", "dir:published"])
    XCTAssertEqual(result.code, 0, result.allOutput)
    XCTAssertEqual(result.standardError, [], result.allOutput)
    XCTAssertEqual(
      result.standardOutput,
      [
        "acme: ok, revision 3 (3 revision files verified), expires \(SignedOTAChannel.timestamp(published.expires)) (in 7 days), 1 model checked"
      ])

    // Named explicitly, and as a plain path: the same.
    let named = published.run(["ota", "verify", "published", "acme"])
    XCTAssertEqual(named.code, 0, named.allOutput)
    XCTAssertEqual(named.standardOutput, result.standardOutput)
  }

  /// Each fault a bucket writer (or a broken publish) can cause: exit 1, one problem line
  /// naming the object, then the one-line total.
  func testEachFaultExits1WithOneLine() throws {
    let faults: [(name: String, expectedLine: String, make: (PublishedChannel) throws -> Void)] = [
      (
        "signed by another key", "\(pointer): DSSE envelope is signed only by untrusted keys",
        { try $0.write($0.pointerPath, try $0.envelope(revision: 3, signer: $0.other)) }
      ),
      (
        "unsigned envelope", "\(pointer): DSSE envelope is not signed; expected an envelope of type",
        { published in
          let envelope: [String: Any] = [
            "payloadType": SignedOTAChannel.payloadType,
            "payload": try published.manifest(revision: 3).encoded().base64EncodedString(), "signatures": [],
          ]
          try published.write(published.pointerPath, try JSONSerialization.data(withJSONObject: envelope))
        }
      ),
      (
        "payload changed after signing", "\(pointer): DSSE signature by trusted key",
        { published in
          var envelope = try XCTUnwrap(
            try JSONSerialization.jsonObject(with: try published.read(published.pointerPath))
              as? [String: Any])
          let payload = try XCTUnwrap(Data(base64Encoded: try XCTUnwrap(envelope["payload"] as? String)))
          let changed = String(decoding: payload, as: UTF8.self).replacingOccurrences(
            of: "\"rolloutPercent\" : 10", with: "\"rolloutPercent\" : 100")
          XCTAssertNotEqual(Data(changed.utf8), payload, "the payload was changed")
          envelope["payload"] = Data(changed.utf8).base64EncodedString()
          try published.write(published.pointerPath, try JSONSerialization.data(withJSONObject: envelope))
        }
      ),
      (
        "expired", "\(pointer): expired: expires ",
        { published in
          let past = published.clock.now().addingTimeInterval(-3600)
          try published.write(published.pointerPath, try published.envelope(revision: 3, expires: past))
          try published.write(published.revisionPath(3), try published.envelope(revision: 3, expires: past))
        }
      ),
      (
        "a revision file that goes back",
        "published/ota/\(channel)/manifest-2.json: holds revision 1, expected 2 as its name says",
        { try $0.write($0.revisionPath(2), try $0.read($0.revisionPath(1))) }
      ),
      (
        "the pointer below the highest revision",
        "\(pointer): holds revision 2, below the highest revision file (manifest-3.json); expected 3",
        { try $0.write($0.pointerPath, try $0.read($0.revisionPath(2))) }
      ),
      (
        "another customer's valid manifest as the pointer",
        "\(pointer): signed, but not a manifest devices of \"acme\" accept: the manifest of \"bluebird\"",
        { try $0.write($0.pointerPath, try $0.envelope(revision: 3, customer: "bluebird")) }
      ),
      (
        "the pointer's own revision file missing",
        "published/ota/\(channel)/manifest-3.json: missing; expected the file of revision 3, the pointer's",
        { try $0.remove($0.revisionPath(3)) }
      ),
      (
        "a forged revision file above the pointer",
        "published/ota/\(channel)/manifest-4.json: DSSE envelope is signed only by untrusted keys",
        { try $0.write($0.revisionPath(4), try $0.envelope(revision: 4, signer: $0.other)) }
      ),
      (
        "a missing model", "published/ota/models/",
        { try $0.remove($0.modelPath) }
      ),
      (
        "a model with wrong bytes", "published/ota/models/",
        { published in
          var bytes = published.model
          bytes[100] ^= 1
          try published.write(published.modelPath, bytes)
        }
      ),
    ]
    for fault in faults {
      let published = try PublishedChannel()
      try fault.make(published)
      let result = published.run(["ota", "verify", "dir:published"])
      XCTAssertEqual(result.code, 1, "\(fault.name): \(result.allOutput)")
      XCTAssertEqual(
        result.standardError.count, 2, "\(fault.name): one problem line and the total: \(result.allOutput)")
      let line = result.standardError.first ?? ""
      XCTAssertTrue(line.hasPrefix(fault.expectedLine), "\(fault.name): \(line)")
      XCTAssertEqual(
        result.standardError.last, "error: ota verify: 1 problem in 1 of 1 channel (acme)", fault.name)
      XCTAssertEqual(result.standardOutput.count, 1, "\(fault.name): \(result.allOutput)")
      XCTAssertTrue(result.standardOutput.first?.hasPrefix("acme: 1 problem") == true, result.allOutput)
      if fault.name == "a revision file that goes back" {
        XCTAssertTrue(
          result.standardOutput.first?.contains("revision 3 (2 revision files verified)") == true,
          "the file that goes back is not counted as verified: \(result.allOutput)")
      }
    }
  }

  /// A model's line names what was found and what was expected.
  func testAModelLineNamesFoundAndExpected() throws {
    let published = try PublishedChannel()
    let sha256 = published.modelSHA256
    let expected = "expected onboarding_upsell v74: 3000 bytes with sha256 \(sha256)"
    try published.remove(published.modelPath)
    XCTAssertEqual(
      published.run(["ota", "verify", "dir:published"]).standardError.first,
      "published/ota/models/\(sha256).mlmodel: missing; \(expected)")

    let other = Data(repeating: 7, count: 3001)
    try published.write(published.modelPath, other)
    XCTAssertEqual(
      published.run(["ota", "verify", "dir:published"]).standardError.first,
      "published/ota/models/\(sha256).mlmodel: holds 3001 bytes with sha256 \(SHA256Digest.hex(of: other)); \(expected)"
    )
  }

  func testExpiringWithinTwoDaysIsAWarningAndExits0() throws {
    let published = try PublishedChannel(expiresIn: 36 * 3600)
    let result = published.run(["ota", "verify", "dir:published"])
    XCTAssertEqual(result.code, 0, result.allOutput)
    XCTAssertEqual(result.standardError.count, 1, result.allOutput)
    XCTAssertTrue(
      result.standardError.first?.hasPrefix(
        "warning: \(pointer): expires \(SignedOTAChannel.timestamp(published.expires)), in 1 day 12 hours (less than 2 days)"
      ) == true, result.allOutput)
    XCTAssertTrue(result.standardOutput.first?.hasPrefix("acme: ok, revision 3") == true, result.allOutput)
  }

  /// Without names, every customer with a channel is checked; one bad channel fails the run
  /// and the good one still gets its summary.
  func testEveryChannelOfTheStateAndJSONLines() throws {
    let published = try PublishedChannel()
    let missing = "fedcba9876543210fedcba9876543210"
    try published.writeState(channels: ["acme": PublishedChannel.channel, "bluebird": missing])
    let result = published.run(["ota", "verify", "dir:published", "--json"])
    XCTAssertEqual(result.code, 1, result.allOutput)
    XCTAssertEqual(
      result.standardError,
      [
        "published/ota/\(missing)/manifest.json: missing; expected the pointer devices poll, a signed manifest envelope",
        "error: ota verify: 1 problem in 1 of 2 channels (bluebird)",
      ])
    XCTAssertEqual(result.standardOutput.count, 2, result.allOutput)
    let objects = try result.standardOutput.map {
      try XCTUnwrap(try JSONSerialization.jsonObject(with: Data($0.utf8)) as? [String: Any])
    }
    XCTAssertEqual(objects.map { $0["customer"] as? String }, ["acme", "bluebird"])
    XCTAssertEqual(objects.map { $0["ok"] as? Bool }, [true, false])
    XCTAssertEqual(objects[0]["revision"] as? Int, 3)
    XCTAssertEqual(objects[0]["models"] as? Int, 1)
    XCTAssertEqual((objects[1]["problems"] as? [String])?.count, 1)
  }

  func testBadArgumentsExit2WithOneLine() throws {
    let published = try PublishedChannel()
    for (arguments, expected) in [
      (["ota", "verify"], "ota verify: found no destination; expected dir:<path>"),
      (["ota", "verify", "dir:nowhere"], "ota verify dir:nowhere: found no directory there; expected"),
      (
        ["ota", "verify", "dir:published", "bluebird"],
        "ota verify bluebird: no channel in release-state.json (found channels of acme); expected"
      ),
      (
        ["ota", "verify", "http://cdn.example.com/sdk"],
        "plain http only to 127.0.0.1, ::1 or localhost; expected https://"
      ),
      (
        ["ota", "verify", "https://cdn.example.com/sdk?sig=x"], "found a query or fragment; expected https://"
      ),
      (["ota", "verify", "ftp://cdn.example.com/sdk"], "not a destination; expected dir:<path>"),
      (["ota", "verify", "s3://A_B"], "ota verify s3://A_B: not a bucket location; expected s3://<bucket>"),
      (["ota", "verify", "s3://bucket/sdk"], "ota verify s3://bucket/sdk: AWS_ACCESS_KEY_ID is not set"),
    ] {
      let result = published.run(
        arguments, environment: ["AWS_ACCESS_KEY_ID": "", "AWS_SECRET_ACCESS_KEY": ""])
      XCTAssertEqual(result.code, 2, "\(arguments): \(result.allOutput)")
      XCTAssertEqual(result.standardError.count, 1, "\(arguments): \(result.allOutput)")
      XCTAssertTrue(result.allOutput.contains(expected), "\(arguments): \(result.allOutput)")
      XCTAssertEqual(result.standardOutput, [], "\(arguments)")
    }

    // No trusted key, or no channel at all: bad input, not a failed check.
    try published.write("release.config.json", Data("{}".utf8))
    let untrusted = published.run(["ota", "verify", "dir:published"])
    XCTAssertEqual(untrusted.code, 2, untrusted.allOutput)
    XCTAssertTrue(untrusted.allOutput.contains("trusts no key"), untrusted.allOutput)
    try published.write("release.config.json", Data(#"{"signing": {"trustedKeys": ["keys/ota.pub"]}}"#.utf8))
    try published.writeState(channels: [:])
    let none = published.run(["ota", "verify", "dir:published"])
    XCTAssertEqual(none.code, 2, none.allOutput)
    XCTAssertTrue(none.allOutput.contains("release-state.json has no channels"), none.allOutput)
  }

  func testDurationsReadAsTwoUnits() {
    XCTAssertEqual(ChannelCheck.duration(36 * 3600), "1 day 12 hours")
    XCTAssertEqual(ChannelCheck.duration(7 * 86400), "7 days")
    XCTAssertEqual(ChannelCheck.duration(3600 + 120 + 5), "1 hour 2 minutes")
    XCTAssertEqual(ChannelCheck.duration(0.5), "0 seconds")
  }
}
