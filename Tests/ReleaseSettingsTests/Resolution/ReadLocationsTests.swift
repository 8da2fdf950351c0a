import Foundation
import ReleaseCore
import ReleaseSettings
import ReleaseSystem
import ReleaseTestSupport
import XCTest

/// The locations commands read from (`ota verify`'s channel, `ota evaluate --outcomes`),
/// accepted or refused by the settings phase before anything is read.
final class ReadLocationsTests: XCTestCase {
  private var directory: TemporaryDirectory!

  override func setUpWithError() throws {
    directory = try TemporaryDirectory()
  }

  private func resolution() throws -> SettingsResolution {
    let services = Services(
      processRunner: ScriptedProcessRunner(), clock: ManualClock(), root: directory.url, environment: [:],
      output: CapturedOutput(), http: TestHTTP.Unreachable())
    return try SettingsResolution(CommandLineSettings(), services: services)
  }

  /// The one line of a refusal (exit 2); it never holds `secret`.
  private func refusal(hiding secret: String = "", _ body: () throws -> Any) -> String {
    do {
      _ = try body()
      XCTFail("not refused")
    } catch let error as ReleaseError {
      XCTAssertEqual(error.exitCode, 2)
      XCTAssertEqual(error.lines.count, 1, "\(error.lines)")
      if !secret.isEmpty { XCTAssertFalse(error.lines.joined().contains(secret)) }
      return error.lines.first ?? ""
    } catch {
      XCTFail("\(error)")
    }
    return ""
  }

  func testAChannelIsReadFromADirectoryABucketOrAnHTTPSBase() throws {
    try FileManager.default.createDirectory(
      at: directory.url.appendingPathComponent("published"), withIntermediateDirectories: true)
    let settings = try resolution()
    XCTAssertEqual(try settings.channelSource("dir:published"), .directory(path: "published"))
    XCTAssertEqual(
      try settings.channelSource("s3://ota-bucket/channels/"), .s3(bucket: "ota-bucket", prefix: "channels"))
    XCTAssertEqual(
      try settings.channelSource("https://cdn.example.com/ota/"), .web("https://cdn.example.com/ota"))
    XCTAssertEqual(try settings.channelSource("http://127.0.0.1:9000"), .web("http://127.0.0.1:9000"))
  }

  func testAChannelURLWithACredentialOrPlainHTTPElsewhereIsRefused() throws {
    let settings = try resolution()
    let credential = refusal(hiding: "hunter2") {
      try settings.channelSource("https://ops:hunter2@cdn.example.com")
    }
    XCTAssertTrue(credential.contains("found a credential in the URL"), credential)
    let plain = refusal { try settings.channelSource("http://cdn.example.com/ota") }
    XCTAssertTrue(plain.contains("plain http only to 127.0.0.1"), plain)
    let query = refusal(hiding: "X-Amz-Signature=abc") {
      try settings.channelSource("https://cdn.example.com/ota?X-Amz-Signature=abc")
    }
    XCTAssertTrue(query.contains("found a query or fragment"), query)
  }

  func testOutcomesComeFromAFileABucketKeyOrAnHTTPSURL() throws {
    let settings = try resolution()
    XCTAssertEqual(
      try settings.outcomesLocation("exports/outcomes.csv", option: "--outcomes"),
      .file("exports/outcomes.csv"))
    XCTAssertEqual(
      try settings.outcomesLocation("s3://analytics/daily/outcomes.csv", option: "--outcomes"),
      .s3(location: "s3://analytics/daily/outcomes.csv", bucket: "analytics", key: "daily/outcomes.csv"))
    let url = try XCTUnwrap(URL(string: "https://exports.example.com/outcomes.csv?token=t"))
    XCTAssertEqual(try settings.outcomesLocation(url.absoluteString, option: "--outcomes"), .web(url))
  }

  func testAnOutcomesURLThatCouldLeakOrBeChangedOnTheWayIsRefused() throws {
    let settings = try resolution()
    let credential = refusal(hiding: "hunter2") {
      try settings.outcomesLocation("https://ops:hunter2@exports.example.com/o.csv", option: "--outcomes")
    }
    XCTAssertTrue(credential.hasPrefix("--outcomes "), credential)
    XCTAssertTrue(credential.contains("a credential in a URL"), credential)
    let plain = refusal(hiding: "sig=1") {
      try settings.outcomesLocation("http://exports.example.com/o.csv?sig=1", option: "--outcomes")
    }
    XCTAssertTrue(plain.contains("plain http only to 127.0.0.1"), plain)
    let bucketOnly = refusal { try settings.outcomesLocation("s3://analytics", option: "--outcomes") }
    XCTAssertTrue(
      bucketOnly.contains("expected a file, https://<host>/<path> or s3://<bucket>/<key>"), bucketOnly)
  }
}
