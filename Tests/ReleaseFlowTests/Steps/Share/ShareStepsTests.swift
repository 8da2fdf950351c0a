import Foundation
import ReleaseCore
import ReleasePipeline
import ReleasePublishing
import ReleaseSettings
import ReleaseSystem
import ReleaseTestSupport
import XCTest

@testable import ReleaseFlow

/// `release share`'s steps, built directly: a releases repository's URL and tag, what is
/// written for links, and a directory refused.
final class ShareStepsTests: XCTestCase {
  let output = CapturedOutput()

  var pipeline: Pipeline {
    Pipeline(
      ReleaseContext(
        services: Services(
          processRunner: ScriptedProcessRunner(), clock: ManualClock(), root: URL(fileURLWithPath: "/srv"),
          environment: [:], output: output, http: TestHTTP.Unreachable()),
        settings: RunSettings(), reporter: RecordingReporter()))
  }

  func request(_ destination: PublishDestination, json: Bool = false) -> ShareRun.Request {
    ShareRun.Request(
      customer: "example", version: SemanticVersion(1, 2, 3), expiresSeconds: 3600, destination: destination,
      json: json)
  }

  func testARepositoryReleaseIsItsURLAndTag() throws {
    let located = try pipeline.run(
      LocateRepositoryReleaseStep(),
      request(.releasesRepositories(template: "https://git.example.com/sdk/{id}.git")))
    XCTAssertEqual(located.url, "https://git.example.com/sdk/example.git")
    XCTAssertEqual(located.tag, "1.2.3")

    try pipeline.run(ReportShareStep(json: true), .repository(located))
    XCTAssertEqual(
      output.standardOutput,
      [
        #"{"customer":"example","repository":"https://git.example.com/sdk/example.git","tag":"1.2.3","version":"1.2.3"}"#
      ])
    XCTAssertEqual(output.standardError.count, 1)
  }

  func testLinksAreWrittenWithAWarningForAnUnsignedRelease() throws {
    let links = ShareLinks(
      customer: "example", version: SemanticVersion(1, 2, 3), location: "s3://bucket",
      zipKey: "artifacts/x.zip",
      zip: URL(string: "https://s3.example.com/x.zip?sig")!, signature: nil,
      index: URL(string: "https://s3.example.com/index.json?sig")!, expires: Date(timeIntervalSince1970: 0),
      usesSessionToken: false)

    try pipeline.run(ReportShareStep(json: false), .links(links))

    XCTAssertEqual(
      output.standardOutput,
      [
        "example 1.2.3 from s3://bucket, links valid until 1970-01-01T00:00:00Z:",
        "zip        https://s3.example.com/x.zip?sig", "signature  (none published)",
        "index      https://s3.example.com/index.json?sig",
      ])
    XCTAssertEqual(output.standardError.map { $0.prefix(41) }, ["warning: s3://bucket/artifacts/x.zip.sig "])
  }

  func testADirectoryCannotBeShared() throws {
    XCTAssertThrowsError(
      try pipeline.run(PresignShareLinksStep(), request(.directory(path: "published", baseURL: nil)))
    ) { error in
      XCTAssertEqual((error as? ReleaseError)?.lines, [ShareRun.directoryRefusal("published")])
    }
  }
}
