import Foundation
import ReleaseCLITestSupport
import ReleaseEvaluation
import ReleaseTestSupport
import XCTest

/// `release ota evaluate --outcomes` reading the export where a warehouse leaves it: a URL
/// (python's http.server on 127.0.0.1; a query, such as a presigned signature, is never
/// printed) and a bucket (moto_server, signatures checked). What the judge decides from an
/// export is `EvaluateCommandTests`'.
final class OutcomesSourceEndToEndTests: XCTestCase {
  func testOutcomesFromAURLAndFromABucket() throws {
    let workspace = try Workspace()
    let clock = SettableClock("2026-11-01")
    // A rollout asks git whether the work tree changed since it was published.
    func release(_ arguments: [String], environment: [String: String] = [:]) -> InProcessCLI.Run {
      InProcessCLI.run(
        arguments, root: workspace.root, environment: environment, processRunner: .realGit(), clock: clock)
    }
    func evaluate(_ arguments: [String], environment: [String: String] = [:]) -> InProcessCLI.Run {
      release(["ota", "evaluate"] + arguments, environment: environment)
    }
    let rollout = release(["rollout", "acme", "onboarding_upsell", "74", "--percent", "10"])
    XCTAssertEqual(rollout.code, 0, rollout.allOutput)
    clock.set("2026-11-15")

    let served = workspace.file("served")
    try FileManager.default.createDirectory(at: served, withIntermediateDirectories: true)
    // A challenger converting at 4 % against the baseline's 5 %: rolled back.
    try OutcomesSimulation(challengerRate: 0.04, start: OutcomeDate("2026-11-01")!, seed: 7).csv()
      .write(to: served.appendingPathComponent("outcomes.csv"), atomically: true, encoding: .utf8)
    let server = try StaticHTTPServer(directory: served)
    defer { server.shutDown() }
    let overHTTP = evaluate(["--outcomes", "\(server.baseURL)/outcomes.csv?X-Amz-Signature=sekrit", "--json"])
    XCTAssertEqual(overHTTP.code, 0, overHTTP.allOutput)
    XCTAssertTrue(
      overHTTP.standardOutput.first?.contains("\"decision\":\"rollback\"") == true, overHTTP.allOutput)
    let missing = evaluate(["--outcomes", "\(server.baseURL)/missing.csv?X-Amz-Signature=sekrit"])
    XCTAssertEqual(missing.code, 2, missing.allOutput)
    XCTAssertTrue(missing.allOutput.contains("missing.csv?…"), missing.allOutput)
    XCTAssertFalse((overHTTP.allOutput + missing.allOutput).contains("sekrit"), "a query is never printed")

    let moto = try SharedMoto.shared.moto()
    let bucket = try moto.makeBucket()
    try moto.aws([
      "s3", "cp", served.appendingPathComponent("outcomes.csv").path, "s3://\(bucket)/exports/outcomes.csv",
    ])
    let fromBucket = evaluate(
      ["--outcomes", "s3://\(bucket)/exports/outcomes.csv", "--s3-endpoint", moto.endpoint, "--json"],
      environment: moto.credentials)
    XCTAssertEqual(fromBucket.code, 0, fromBucket.allOutput)
    XCTAssertEqual(fromBucket.standardOutput, overHTTP.standardOutput)
  }
}
