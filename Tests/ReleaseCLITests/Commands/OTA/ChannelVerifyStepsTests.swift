import Foundation
import ReleaseCore
import ReleasePipeline
import ReleaseSettings
import ReleaseSystem
import ReleaseTestSupport
import XCTest

@testable import ReleaseCLI
@testable import ReleaseOTA

/// `ota verify`'s report step built directly: each channel's lines in the order checked, a
/// summary or a JSON object per channel, and exit 1 naming the channels with a problem.
final class ChannelVerifyStepsTests: XCTestCase {
  private let now = Date(timeIntervalSince1970: 1_790_000_000)

  private func pipeline() -> (Pipeline, CapturedOutput) {
    let output = CapturedOutput()
    let services = Services(
      processRunner: ScriptedProcessRunner(), clock: ManualClock(),
      root: URL(fileURLWithPath: "/nonexistent"),
      environment: [:], output: output, http: TestHTTP.Unreachable())
    let context = ReleaseContext(services: services, settings: RunSettings(), reporter: RecordingReporter())
    return (Pipeline(context), output)
  }

  private func finding(_ message: String) -> ChannelCheck.Finding {
    ChannelCheck.Finding(location: "published/ota/x/manifest.json", message: message)
  }

  func testEveryChannelIsReportedAndTheRunFailsNamingThoseWithAProblem() throws {
    var good = ChannelCheck.Report(customer: "acme", channel: String(repeating: "a", count: 32))
    good.warnings = [finding("expires within 2 days")]
    var bad = ChannelCheck.Report(customer: "bluebird", channel: String(repeating: "b", count: 32))
    bad.problems = [finding("not signed by a trusted key"), finding("revision 3 is missing")]
    let (pipeline, output) = pipeline()

    XCTAssertThrowsError(
      try pipeline.run(ReportChannelsStep(json: false), ChannelReports(reports: [good, bad], now: now))
    ) { error in
      XCTAssertEqual(
        "\(error)", "ota verify: 2 problems in 1 of 2 channels (bluebird)")
    }
    XCTAssertEqual(
      output.standardError,
      [
        "warning: published/ota/x/manifest.json: expires within 2 days",
        "published/ota/x/manifest.json: not signed by a trusted key",
        "published/ota/x/manifest.json: revision 3 is missing",
      ])
    XCTAssertEqual(output.standardOutput, [good.summary(now: now), bad.summary(now: now)])
  }

  func testJSONGivesOneObjectPerChannelAndAllGoodExitsZero() throws {
    let good = ChannelCheck.Report(customer: "acme", channel: String(repeating: "a", count: 32))
    let (pipeline, output) = pipeline()

    try pipeline.run(ReportChannelsStep(json: true), ChannelReports(reports: [good], now: now))

    XCTAssertEqual(output.standardError, [])
    XCTAssertEqual(output.standardOutput.count, 1)
    let object = try XCTUnwrap(
      try JSONSerialization.jsonObject(with: Data(output.standardOutput[0].utf8)) as? [String: Any])
    XCTAssertEqual(object["customer"] as? String, "acme")
    XCTAssertEqual(object["ok"] as? Bool, true)
    XCTAssertEqual(object["problems"] as? [String], [])
  }
}
