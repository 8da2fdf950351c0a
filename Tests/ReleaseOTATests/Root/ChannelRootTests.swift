import Foundation
import ReleaseOTA
import ReleaseSigning
import XCTest

/// The root documents of the signed channel: who may sign the next root and the manifests.
final class ChannelRootTests: XCTestCase {
  private let rootKeys = (0..<3).map { _ in try! SigningKey.generate() }
  private let manifestKey = try! SigningKey.generate()
  private let nextManifestKey = try! SigningKey.generate()

  private func first(threshold: Int = 2) -> ChannelRoot {
    ChannelRoot(
      version: 1, root: .init(keys: rootKeys.map(\.publicKey), threshold: threshold),
      manifest: .init(keys: [manifestKey.publicKey], threshold: 1))
  }

  private func second() -> ChannelRoot {
    var next = first()
    next.version = 2
    next.manifest = .init(keys: [nextManifestKey.publicKey], threshold: 1)
    return next
  }

  func testThePayloadNamesEachKeyByTheHexSHA256OfItsRawBytes() throws {
    let payload = try first().payload()
    let object = try XCTUnwrap(JSONSerialization.jsonObject(with: payload) as? [String: Any])
    XCTAssertEqual(object["schemaVersion"] as? Int, 1)
    XCTAssertEqual(object["version"] as? Int, 1)
    let root = try XCTUnwrap(object["root"] as? [String: Any])
    XCTAssertEqual(root["threshold"] as? Int, 2)
    let keys = try XCTUnwrap(root["keys"] as? [[String: String]])
    XCTAssertEqual(keys.map { $0["keyID"] }, rootKeys.map(\.keyID))
    XCTAssertEqual(
      keys.map { $0["publicKey"] }, rootKeys.map { $0.publicKey.rawRepresentation.base64EncodedString() })
    XCTAssertEqual(try ChannelRoot.decode(payload, location: "p"), first())
  }

  func testTheFirstRootIsOpenedWhenItsThresholdOfRootKeysSigned() throws {
    let envelope = try first().signed(by: Array(rootKeys.prefix(2)))
    XCTAssertEqual(try ChannelRoot.open(envelope, after: nil, location: "1.json"), first())
    let payload = try first().payload()
    let one = try DSSEEnvelope.sign(
      payload: payload, payloadType: ChannelRoot.payloadType, with: [rootKeys[0]])
    XCTAssertThrowsError(try ChannelRoot.open(try one.jsonData(), after: nil, location: "1.json")) {
      XCTAssertTrue("\($0)".contains("1 of the 3 root keys"), "\($0)")
    }
  }

  func testAKeyCountsOnceHoweverManySignaturesItHas() throws {
    let payload = try second().payload()
    let twice = try DSSEEnvelope.sign(
      payload: payload, payloadType: ChannelRoot.payloadType, with: [rootKeys[0], rootKeys[0]])
    XCTAssertThrowsError(try ChannelRoot.open(try twice.jsonData(), after: first(), location: "2.json"))
  }

  func testTheNextRootNeedsTheOldThresholdOfTheOldKeysAndTheNewOfTheNew() throws {
    let newRootKeys = (0..<2).map { _ in try! SigningKey.generate() }
    var next = second()
    next.root = .init(keys: newRootKeys.map(\.publicKey), threshold: 2)
    // Only the new keys: the old root did not vouch for it.
    XCTAssertThrowsError(
      try ChannelRoot.open(try next.signed(by: newRootKeys), after: first(), location: "2.json"))
    // Only the old keys: the new keys never agreed.
    let oldOnly = try DSSEEnvelope.sign(
      payload: try next.payload(), payloadType: ChannelRoot.payloadType, with: Array(rootKeys.prefix(2)))
    XCTAssertThrowsError(try ChannelRoot.open(try oldOnly.jsonData(), after: first(), location: "2.json"))
    let both = try next.signed(by: Array(rootKeys.prefix(2)) + newRootKeys)
    XCTAssertEqual(try ChannelRoot.open(both, after: first(), location: "2.json"), next)
  }

  func testTheNextRootMustBeExactlyOneVersionOnAndNeverSignedByAManifestKey() throws {
    var skipping = second()
    skipping.version = 3
    XCTAssertThrowsError(
      try ChannelRoot.open(try skipping.signed(by: rootKeys), after: first(), location: "3.json")
    ) { XCTAssertTrue("\($0)".contains("version 3"), "\($0)") }
    let byManifestKey = try DSSEEnvelope.sign(
      payload: try second().payload(), payloadType: ChannelRoot.payloadType, with: [manifestKey])
    XCTAssertThrowsError(
      try ChannelRoot.open(try byManifestKey.jsonData(), after: first(), location: "2.json"))
  }

  func testAPayloadWithABadKeyOrThresholdIsRefused() throws {
    var bad = first()
    bad.root.threshold = 4
    XCTAssertThrowsError(try ChannelRoot.decode(try bad.payload(), location: "x")) {
      XCTAssertTrue("\($0)".contains("root.threshold"), "\($0)")
    }
    let wrongID = Data(
      #"{"schemaVersion":1,"version":1,"root":{"keys":[{"keyID":"00","publicKey":"AAAA"}],"threshold":1},"manifest":{"keys":[],"threshold":1}}"#
        .utf8)
    XCTAssertThrowsError(try ChannelRoot.decode(wrongID, location: "x"))
  }

  func testAChainGivesTheCurrentManifestKeysAndTheRetiredOnes() throws {
    let chain = try RootChain(
      envelopes: [try first().signed(by: rootKeys), try second().signed(by: rootKeys)],
      locations: ["1.json", "2.json"])
    XCTAssertEqual(chain.current.version, 2)
    XCTAssertEqual(chain.current.manifest.keys, [nextManifestKey.publicKey])
    XCTAssertEqual(chain.retiredManifestKeys, [manifestKey.publicKey])
  }
}
