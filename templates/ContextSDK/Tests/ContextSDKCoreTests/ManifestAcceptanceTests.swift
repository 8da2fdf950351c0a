@testable import ContextSDKCore
import Foundation
import XCTest

/// What a device accepts of the signed channel beyond the signature: a revision it accepted
/// served again with other content, revisions past the largest JSON carries exactly, an
/// `expires` a little behind the device's clock (skew) or too far ahead, and the file that
/// keeps what it accepted, in the format before the payload's digest was kept too.
final class ManifestAcceptanceTests: DeviceTestCase {
  private let now = Date(timeIntervalSince1970: 1_800_000_000)

  private let configuration = CustomerConfiguration(
    appID: "0000000A-0000-4000-8000-00000000000B", bundleIdentifiers: ["com.example.app"],
    sdkVersion: "2.4.0",
    models: [
      FlowModel(
        flowId: 1, flowName: "example_flow", modelVersion: 3, sha256: "", inputNames: ["x"],
        specificationVersion: 4, resourceName: "example_flow_v3.mlmodel")
    ])

  /// A manifest offering nothing, at `revision`, expiring `expires` seconds after `now`;
  /// `paused` changes the content and nothing else.
  private func serve(revision: String, expiresIn seconds: TimeInterval = 7 * 86_400, paused: Bool = false) {
    let formatter = ISO8601DateFormatter()
    formatter.formatOptions = [.withInternetDateTime]
    let expires = formatter.string(from: now.addingTimeInterval(seconds))
    let payload = """
      {"schemaVersion": 2, "customer": "example", "appID": "\(configuration.appID)", "revision": \(revision),
       "expires": "\(expires)", "flows": {"example_flow": {"flowId": 1, "bundledVersion": 3, "paused": \(paused),
       "models": []}}}
      """
    server.route(
      "/ota/example/manifest.json", body: TestSigner.envelope(Data(payload.utf8), signedBy: [.rfc8032]))
  }

  private func update(at instant: Date? = nil) async -> ModelUpdateReport {
    let instant = instant ?? now
    return await ModelUpdater(
      channel: .signed(
        manifestURL: server.url("/ota/example/manifest.json"), customer: "example",
        trustedKeys: [TestSigner.rfc8032.trustedKey]),
      configuration: configuration, installID: "device-1",
      settings: ModelUpdateConfiguration(
        modelsDirectory: downloads, stateDirectory: state, minimumCheckInterval: 0, requestTimeout: 5),
      sdkVersion: "2.4.0", now: { instant }
    ).update()
  }

  /// Why the update at `instant` refused the manifest; nil when it followed it.
  private func rejection(at instant: Date? = nil) async -> ModelManifest.Problem? {
    guard case .manifestRejected(_, let problem) = await update(at: instant).error else { return nil }
    return problem
  }

  /// The update's error; nil when it followed the manifest.
  private func updateError() async -> ModelUpdateError? { await update().error }

  private var revisionFile: URL { state.appendingPathComponent(ModelUpdater.revisionFileName) }

  func testTheSameRevisionWithOtherContentIsRefused() async throws {
    serve(revision: "3")
    let first = await update()
    XCTAssertNil(first.error)
    XCTAssertEqual(first.revision, 3)
    // The same manifest again: accepted, as every poll between two publishes.
    let again = await updateError()
    XCTAssertNil(again)
    // Revision 3 again, with other content (a refresh that re-signed another manifest).
    serve(revision: "3", paused: true)
    let changed = await rejection()
    XCTAssertEqual(changed, .revisionContentChanged(revision: 3))
    // The next revision is followed.
    serve(revision: "4", paused: true)
    let next = await update()
    XCTAssertNil(next.error)
    XCTAssertEqual(next.revision, 4)
  }

  func testAStateFileWithTheRevisionAloneStillReads() async throws {
    try FileManager.default.createDirectory(at: state, withIntermediateDirectories: true)
    try Data("3".utf8).write(to: revisionFile)
    serve(revision: "2")
    let older = await rejection()
    XCTAssertEqual(older, .revisionRolledBack(found: 2, accepted: 3))
    serve(revision: "3")
    let same = await updateError()
    XCTAssertNil(same, "the accepted revision, its content not known yet")
    serve(revision: "3", paused: true)
    let changed = await rejection()
    XCTAssertEqual(changed, .revisionContentChanged(revision: 3), "its content is known from then on")
  }

  func testRevisionsAboveTheLargestExactJSONIntegerAreRefused() async throws {
    for revision in ["9007199254740992", "9223372036854775807", "0", "-1"] {
      serve(revision: revision)
      let refused = await rejection()
      XCTAssertEqual(refused, .revisionOutOfRange, revision)
      XCTAssertFalse(FileManager.default.fileExists(atPath: revisionFile.path), revision)
    }
    serve(revision: "9007199254740991")
    let largest = await updateError()
    XCTAssertNil(largest)
    // A state file beyond the range (only a leaked key could have signed such a revision, and
    // an older SDK accepted it) is not believed: the device follows the channel again rather
    // than refuse every later manifest for ever.
    try Data("9223372036854775807".utf8).write(to: revisionFile)
    serve(revision: "5")
    let report = await update()
    XCTAssertNil(report.error)
    XCTAssertEqual(report.revision, 5)
  }

  func testExpiryAllowsFiveMinutesOfClockSkewAndAtMost31DaysAhead() async throws {
    serve(revision: "1", expiresIn: -4 * 60)
    let withinSkew = await updateError()
    XCTAssertNil(withinSkew, "expired 4 minutes ago by this device's clock: within the skew")
    serve(revision: "2", expiresIn: -6 * 60)
    let expired = await rejection()
    guard case .expired = expired else {
      return XCTFail("expired 6 minutes ago: \(String(describing: expired))")
    }
    serve(revision: "3", expiresIn: 31 * 86_400)
    let ahead = await updateError()
    XCTAssertNil(ahead, "31 days ahead")
    serve(revision: "4", expiresIn: 31 * 86_400 + 3600)
    let tooFar = await rejection()
    guard case .expiresTooFarAhead = tooFar else {
      return XCTFail("more than 31 days ahead: \(String(describing: tooFar))")
    }
  }
}
