import Foundation
import ReleaseCLITestSupport
import ReleaseSettings
import ReleaseSigning
import ReleaseSystem
import ReleaseTestSupport
import XCTest

@testable import ReleaseCLI
@testable import ReleaseCore
@testable import ReleasePipeline

/// Where `release ota publish` and `ota evaluate --apply --publish` publish the over-the-air
/// channel, what they refuse, and how `--dry-run` shows a missing private key: in process,
/// from the command line as parsed.
final class OverTheAirPublishOptionsTests: XCTestCase {
  let ota = try! XCTUnwrap(Command.named("ota"))
  var publishCommand: Command { ota.subcommands.first { $0.name == "publish" }! }
  var evaluateCommand: Command { ota.subcommands.first { $0.name == "evaluate" }! }

  /// A project root holding `configuration` as release.config.json.
  func root(_ configuration: String) throws -> TemporaryDirectory {
    let root = try TemporaryDirectory()
    try configuration.write(
      to: root.url.appendingPathComponent("release.config.json"), atomically: true, encoding: .utf8)
    return root
  }

  func invocation(_ root: URL, environment: [String: String] = [:]) -> CommandInvocation {
    CommandInvocation(
      arguments: [],
      services: Services(
        processRunner: ScriptedProcessRunner(), clock: ManualClock(), root: root,
        environment: ["CI": "true"].merging(environment) { $1 }, output: CapturedOutput()),
      reporter: DiscardingReporter())
  }

  func publishOptions(_ arguments: [String], root: URL) throws -> RunSettings {
    try OTAPublishOptions(Arguments(arguments, command: publishCommand), invocation(root)).release
  }

  /// The one line a refused command line gives.
  func refusal(_ body: () throws -> Any) -> [String] {
    do {
      _ = try body()
      XCTFail("not refused")
      return []
    } catch let error as ReleaseError {
      XCTAssertEqual(error.exitCode, 2)
      return error.lines
    } catch {
      XCTFail("\(error)")
      return []
    }
  }

  func testWithoutPublishItGoesToTheOtaDestinationNeverToTheReleases() throws {
    let s3 = try root(
      #"{"publish": {"destinations": ["s3://sdk-releases/contextsdk", "dir:releases"], "otaDestination": "s3://sdk-ota/contextsdk", "s3Endpoint": "http://127.0.0.1:5000"}}"#
    )
    let configured = try publishOptions([], root: s3.url)
    XCTAssertEqual(configured.publishing.destinations.map(\.description), ["s3://sdk-ota/contextsdk"])
    XCTAssertEqual(configured.publishing.destinations, configured.publishing.otaDestination.map { [$0] })
    // --publish still replaces it.
    XCTAssertEqual(
      try publishOptions(["--publish", "dir:elsewhere"], root: s3.url).publishing.destinations.map(
        \.description),
      ["elsewhere"])

    // Without otaDestination, a directory release destination gets the files beside the
    // releases, as a release run puts them.
    let directory = try root(#"{"publish": {"destinations": ["dir:releases"]}}"#)
    XCTAssertEqual(
      try publishOptions([], root: directory.url).publishing.destinations.map(\.description), ["releases"])
  }

  func testAnS3ReleaseDestinationIsRefusedAsTheOverTheAirTarget() throws {
    let releases = try root(
      #"{"publish": {"destinations": ["dir:local", "s3://sdk-releases/contextsdk"], "s3Endpoint": "http://127.0.0.1:5000"}}"#
    )
    XCTAssertEqual(
      refusal { try self.publishOptions([], root: releases.url) },
      [
        "release.config.json: publish.destinations[1]: s3://sdk-releases/contextsdk holds releases, which are private, and devices read the over-the-air files anonymously; name the over-the-air channel's own destination in release.config.json as publish.otaDestination (or give --publish)"
      ])
    for target in ["s3://sdk-releases/contextsdk", "s3://sdk-releases/contextsdk/ota", "s3://sdk-releases"] {
      let lines = refusal { try self.publishOptions(["--publish", target], root: releases.url) }
      XCTAssertEqual(lines.count, 1, target)
      XCTAssertTrue(
        lines.first?.hasPrefix("--publish \(target) ") == true
          && lines.first?.hasSuffix(
            "; name the over-the-air channel's own destination in release.config.json as publish.otaDestination"
          )
            == true,
        "\(lines)")
    }
    // Another bucket, or a prefix beside the releases', is the channel's own.
    for target in ["s3://sdk-ota/contextsdk", "s3://sdk-releases/ota"] {
      XCTAssertEqual(
        try publishOptions(["--publish", target], root: releases.url).publishing.destinations.map(
          \.description), [target])
    }
    // The evaluation publishes through the same rules.
    let evaluate = try Arguments(
      ["--outcomes", "outcomes.csv", "--apply", "--publish", "s3://sdk-releases/contextsdk"],
      command: evaluateCommand)
    XCTAssertEqual(
      refusal { try EvaluateOptions(evaluate, self.invocation(releases.url)) }.first?.hasPrefix(
        "--publish s3://sdk-releases/contextsdk "), true)
    // An otaDestination inside the releases' prefix: refused as a release run refuses it.
    let nested = try root(
      #"{"publish": {"destinations": ["s3://sdk-releases/contextsdk"], "otaDestination": "s3://sdk-releases/contextsdk/ota", "s3Endpoint": "http://127.0.0.1:5000"}}"#
    )
    XCTAssertEqual(
      refusal { try self.publishOptions([], root: nested.url) }.first?.hasPrefix(
        "publish.otaDestination s3://sdk-releases/contextsdk/ota lies inside the release destination s3://sdk-releases/contextsdk"
      ), true)
  }

  func testEvaluateSignsWithTheKeyAndExpiryItIsGiven() throws {
    let key = try SigningKey.generate()
    let root = try root(
      #"{"signing": {"trustedKeys": ["ota.pub"]}, "publish": {"publicURL": "https://ota.example.com"}}"#)
    try key.publicKey.pemEncoded.write(
      to: root.url.appendingPathComponent("ota.pub"), atomically: true, encoding: .utf8)
    try key.pemEncoded.write(
      to: root.url.appendingPathComponent("ota.pem"), atomically: true, encoding: .utf8)
    let arguments = ["--outcomes", "outcomes.csv", "--apply", "--publish", "dir:published"]
    let flagged = try EvaluateOptions(
      Arguments(
        arguments + ["--signing-key", "ota.pem", "--expires", "36h"], command: evaluateCommand),
      invocation(root.url))
    let release = try XCTUnwrap(flagged.settings.publish)
    XCTAssertEqual(release.signing.signers.map(\.keyID), [key.publicKey.keyID])
    XCTAssertEqual(release.channel.manifestExpiry, 36 * 3600)
    XCTAssertTrue(release.hasSignedChannel)
    // Without them: RELEASE_SIGNING_KEY and the default expiry, as 'ota publish' takes them.
    let fromEnvironment = try EvaluateOptions(
      Arguments(arguments, command: evaluateCommand),
      invocation(root.url, environment: ["RELEASE_SIGNING_KEY": key.pemEncoded]))
    XCTAssertEqual(fromEnvironment.settings.publish?.signing.signers.map(\.keyID), [key.publicKey.keyID])
    XCTAssertEqual(fromEnvironment.settings.publish?.channel.manifestExpiry, ChannelSettings().manifestExpiry)
    XCTAssertEqual(
      refusal {
        try EvaluateOptions(
          Arguments(arguments + ["--expires", "30m"], command: self.evaluateCommand),
          self.invocation(root.url))
      },
      [#"--expires "30m": expected a duration in days or hours such as 7d or 36h (at most 30d)"#])
    let help = evaluateCommand.help
    XCTAssertTrue(
      help.contains("--signing-key <file>") && help.contains("--expires <duration>"), help)
  }

  /// A dry run with trusted keys and no private key shows the refusal as a line of the plan
  /// and goes on (exit 0, nothing written); the real run is refused (exit 2).
  func testADryRunWithoutAPrivateKeySaysItWouldRefuse() throws {
    let workspace = try Workspace()
    try workspace.trustSigningKey(configuration: #"{"publish": {"publicURL": "http://127.0.0.1:8000"}}"#)
    try workspace.recordChannels(["acme": "0123456789abcdef0123456789abcdef"])
    let noKey = ["RELEASE_SIGNING_KEY": ""]
    for (arguments, refused) in [
      (["ota", "publish", "--publish", "dir:published"], CheckOTAStep.missingSigner),
      (["all", "--publish", "dir:published", "--allow-dirty"], ReleaseSignature.missingSigner),
    ] {
      let before = Workspace.snapshot(workspace.root)
      let dryRun = workspace.run(arguments + ["--dry-run"], environment: noKey)
      XCTAssertEqual(dryRun.exitCode, 0, dryRun.allOutput)
      XCTAssertEqual(
        dryRun.standardOutput.filter { $0.hasSuffix("  would refuse: \(refused)") }.count, 1, dryRun.allOutput
      )
      if arguments[0] == "ota" {
        XCTAssertTrue(
          dryRun.standardOutput.contains {
            $0.hasSuffix("  would publish acme's signed manifest to published")
          },
          dryRun.allOutput)
      }
      XCTAssertEqual(Workspace.snapshot(workspace.root), before, "a dry run writes nothing")
      let real = workspace.run(arguments, environment: noKey)
      XCTAssertEqual(real.exitCode, 2, real.allOutput)
      XCTAssertEqual(real.standardError, ["error: \(refused)"])
      XCTAssertEqual(Workspace.snapshot(workspace.root), before, "nothing published")
    }
  }

  /// `ota evaluate --apply --publish --dry-run` says the same of its publish.
  func testEvaluatesDryRunSaysItWouldRefuseTheMissingKey() throws {
    let workspace = try Workspace()
    try workspace.trustSigningKey(configuration: #"{"publish": {"publicURL": "http://127.0.0.1:8000"}}"#)
    try FileManager.default.copyItem(
      at: RepositoryRoot.url.appendingPathComponent("docs/examples/rollouts.json"),
      to: workspace.file("rollouts.json"))
    let before = Workspace.snapshot(workspace.root)
    let outcomes = RepositoryRoot.url.appendingPathComponent("docs/examples/outcomes-worse.csv").path
    let result = workspace.run(
      [
        "ota", "evaluate", "acme", "--outcomes", outcomes, "--apply", "--dry-run", "--publish",
        "dir:published",
      ],
      environment: ["RELEASE_SIGNING_KEY": ""])
    XCTAssertEqual(result.exitCode, 0, result.allOutput)
    XCTAssertTrue(
      result.standardError.contains("dry run: would refuse: \(CheckOTAStep.missingSigner)"), result.allOutput)
    XCTAssertEqual(Workspace.snapshot(workspace.root), before, "a dry run writes nothing")
  }

  /// Run end to end in process: with a directory release destination and an otaDestination,
  /// the manifests and models reach only the otaDestination.
  func testOtaPublishWritesOnlyToTheOtaDestination() throws {
    let workspace = try Workspace()
    try #"{"publish": {"destinations": ["dir:releases"], "otaDestination": "dir:ota-published"}}"#
      .write(to: workspace.file("release.config.json"), atomically: true, encoding: .utf8)
    XCTAssertEqual(
      workspace.run(["rollout", "acme", "onboarding_upsell", "74", "--percent", "10"]).exitCode, 0)
    let result = workspace.run(["ota", "publish"])
    XCTAssertEqual(result.exitCode, 0, result.allOutput)
    let sha256 = try SHA256Digest.hex(ofFileAt: workspace.file("models/onboarding_upsell/74.mlmodel"))
    XCTAssertTrue(
      FileManager.default.fileExists(
        atPath: workspace.file("ota-published/ota/models/\(sha256).mlmodel").path))
    XCTAssertTrue(
      FileManager.default.fileExists(atPath: workspace.file("ota-published/ota/acme/models.json").path))
    XCTAssertFalse(FileManager.default.fileExists(atPath: workspace.file("releases").path), result.allOutput)
  }
}
