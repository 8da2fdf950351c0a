import Foundation
import ReleaseCore
import ReleasePublishing
import ReleaseSettings
import ReleaseSigning
import ReleaseSystem
import ReleaseTestSupport
import XCTest

/// The settings phase in process: a project root with release.config.json, the command line's
/// values as parsed, and fakes that fail on any process or network call.
final class SettingsResolutionTests: XCTestCase {
  private var directory: TemporaryDirectory!
  private var root: URL { directory.url }

  override func setUpWithError() throws {
    directory = try TemporaryDirectory()
  }

  private func configure(_ json: String) throws {
    try json.write(to: root.appendingPathComponent("release.config.json"), atomically: true, encoding: .utf8)
  }

  /// A trusted key listed in release.config.json beside `json`'s other keys.
  private func trustKey(_ publish: String) throws -> SigningKey {
    let key = try SigningKey.generate()
    try key.publicKey.pemEncoded.write(
      to: root.appendingPathComponent("ota.pub"), atomically: true, encoding: .utf8)
    try configure(#"{"signing": {"trustedKeys": ["ota.pub"]}, "publish": \#(publish)}"#)
    return key
  }

  private func resolution(
    _ given: CommandLineSettings = CommandLineSettings(), environment: [String: String] = [:]
  ) throws -> SettingsResolution {
    let services = Services(
      processRunner: ScriptedProcessRunner(), clock: ManualClock(), root: root, environment: environment,
      output: CapturedOutput(), http: TestHTTP.Unreachable())
    return try SettingsResolution(given, services: services)
  }

  /// The one line a refused resolution gives, with exit 2.
  private func refusal(_ body: () throws -> Any) -> String? {
    do {
      _ = try body()
      XCTFail("not refused")
    } catch let error as ReleaseError {
      XCTAssertEqual(error.exitCode, 2)
      XCTAssertEqual(error.lines.count, 1, "\(error.lines)")
      return error.lines.first
    } catch {
      XCTFail("\(error)")
    }
    return nil
  }

  func testTheFileIsReadOnceForEverySettingOfTheCommand() throws {
    let key = try trustKey(
      #"{"publicURL": "https://ota.example.com", "otaDestination": "dir:ota", "manifestExpiry": "36h"}"#)
    var given = CommandLineSettings()
    given.signingKeys = ["ota.pem"]
    try key.pemEncoded.write(to: root.appendingPathComponent("ota.pem"), atomically: true, encoding: .utf8)
    let resolution = try resolution(given)
    // Gone after the resolution read it: every setting below comes from that one reading.
    try FileManager.default.removeItem(at: root.appendingPathComponent("release.config.json"))
    let evaluate = try resolution.evaluate(publishing: true)
    let publish = try XCTUnwrap(evaluate.publish)
    XCTAssertEqual(publish.publishing.destinations.map(\.description), ["ota"])
    XCTAssertEqual(publish.publishing.publicURL, "https://ota.example.com")
    XCTAssertEqual(publish.channel.manifestExpiry, 36 * 3600)
    XCTAssertEqual(publish.signing.signers.map(\.keyID), [key.publicKey.keyID])
    XCTAssertEqual(evaluate.configurationPath, "release.config.json")
  }

  func testTheModeIsTheCommandsAndAShardPublishesNothing() throws {
    try configure(#"{"publish": {"destinations": ["dir:releases"]}}"#)
    let whole = try resolution().release(.all)
    XCTAssertEqual(whole.mode, .all)
    XCTAssertEqual(whole.publishing.destinations.map(\.description), ["releases"])
    XCTAssertTrue(whole.publishing.tag, "publishing tags")

    let selection = ShardSelection(index: 2, count: 3)
    let shard = try resolution().release(.shard(selection))
    XCTAssertEqual(shard.mode, .shard(selection))
    XCTAssertEqual(shard.publishing.destinations, [], "a shard's dist/ is half a release")
    XCTAssertEqual(RunMode.customers(["acme"]).namedCustomers, ["acme"])
    XCTAssertNil(RunMode.merge(sources: ["a", "b"]).namedCustomers)
    XCTAssertTrue(RunMode.merge(sources: ["a"]).isMerge)

    var tagging = CommandLineSettings()
    tagging.tag = true
    var publishing = CommandLineSettings()
    publishing.publish = ["dir:out"]
    for (flag, given) in [("--tag", tagging), ("--publish", publishing)] {
      XCTAssertEqual(
        refusal { try self.resolution(given).release(.shard(selection)) },
        "\(flag): a shard does not publish; run it on 'release merge' of all shards")
    }
  }

  func testAFlagReplacesTheConfigurationAndMessagesNameWhereEachCameFrom() throws {
    try configure(#"{"models": "store", "publish": {"s3Region": "auto"}}"#)
    let configured = try resolution().inputs()
    XCTAssertEqual(configured.modelsPath, "store")
    XCTAssertEqual(configured.origins.models, "release.config.json: models:")
    XCTAssertEqual(configured.s3Region, "auto")
    XCTAssertEqual(configured.origins.s3Region, "release.config.json: publish.s3Region:")

    var given = CommandLineSettings()
    given.models = "other"
    given.s3Region = "eu-west-1"
    given.state = "state.json"
    let flagged = try resolution(given).inputs()
    XCTAssertEqual(
      [
        flagged.modelsPath, flagged.origins.models, flagged.s3Region, flagged.origins.s3Region,
        flagged.statePath,
      ],
      ["other", "--models", "eu-west-1", "--s3-region", "state.json"])
  }

  func testURLPolicyIsRefusedWithOneLine() throws {
    try configure(#"{"models": "https://user:secret@models.example/store"}"#)
    XCTAssertEqual(
      refusal { try self.resolution().inputs() },
      "release.config.json: models: https://user:***@models.example/store: a credential in a URL shows in the process list and in messages; a model store URL must not carry one (use s3:// with the AWS_* variables for a private store)"
    )

    try configure(#"{"publish": {"publicURL": "https://sdk.example.com"}}"#)
    XCTAssertEqual(
      refusal { try self.resolution().run(.all) },
      "release.config.json: publish.publicURL: https://sdk.example.com: packages get over-the-air models only through a signed channel, and release.config.json trusts no key; add a key: release keys generate keys, then list keys/signing.pub in release.config.json signing.trustedKeys"
    )

    _ = try trustKey(#"{"publicURL": "http://sdk.example.com"}"#)
    XCTAssertEqual(
      refusal { try self.resolution().run(.all) },
      "release.config.json: publish.publicURL: http://sdk.example.com: plain http:// is built into every package and lets anyone on the way change what devices fetch; expected https:// (http:// only to 127.0.0.1, ::1 or localhost, for tests)"
    )

    var given = CommandLineSettings()
    given.remote = "https://user:token@git.example.com/sdk.git"
    XCTAssertEqual(
      refusal { try self.resolution(given).run(.all) }?.hasPrefix(
        "--remote https://user:***@git.example.com"),
      true)
    given = CommandLineSettings()
    given.push = true
    XCTAssertEqual(
      refusal { try self.resolution(given).run(.all) }, "--push: pushes tags, so it needs --tag or --publish")
    given = CommandLineSettings()
    given.noPublish = true
    given.publish = ["dir:out"]
    XCTAssertEqual(
      refusal { try self.resolution(given).run(.all) }, "--no-publish: cannot be combined with --publish")
  }

  /// Models decide what ships: a store is https, plain http only on this machine, refused
  /// before any lookup of a host that only looks like loopback.
  func testAPlainHTTPModelStoreElsewhereIsRefused() throws {
    for host in [
      "models.example.com", "127.attacker.example", "127.0.0.1.attacker.example",
      "localhost.attacker.example",
      "127.0.0.1.nip.io", "2130706433", "0x7f.0.0.1", "[::1.attacker.example]", "[::2]",
    ] {
      var given = CommandLineSettings()
      given.models = "http://\(host)/store"
      XCTAssertEqual(
        refusal { try self.resolution(given).inputs() },
        "--models http://\(host)/store: plain http only to 127.0.0.1, ::1 or localhost; a model store elsewhere must be https"
      )
    }
    for location in [
      "http://127.8.9.10:1/store", "http://[::1]/store/", "http://LocalHost/store",
      "https://models.example.com",
    ] {
      var given = CommandLineSettings()
      given.models = location
      XCTAssertEqual(try resolution(given).inputs().modelsPath, location)
    }
  }

  func testAReleaseRunRefusesAChannelInsideItsReleasesAndPlanDoesNotAsk() throws {
    try configure(
      #"{"publish": {"destinations": ["s3://sdk-releases/contextsdk"], "otaDestination": "s3://sdk-releases/contextsdk/ota", "s3Endpoint": "http://127.0.0.1:5000"}}"#
    )
    XCTAssertEqual(
      refusal { try self.resolution().release(.all) }?.hasPrefix(
        "publish.otaDestination s3://sdk-releases/contextsdk/ota lies inside the release destination s3://sdk-releases/contextsdk"
      ), true)
    // `plan` builds nothing and publishes nothing: its settings are the run's without the check.
    XCTAssertEqual(
      try resolution().run(.all).publishing.otaDestination?.description, "s3://sdk-releases/contextsdk/ota")
  }

  func testTheEnvironmentGivesTheArchiveTimeAndSigningKeys() throws {
    let key = try trustKey(#"{}"#)
    let settings = try resolution(
      environment: ["SOURCE_DATE_EPOCH": "1700000000", "RELEASE_SIGNING_KEY": key.pemEncoded]
    ).run(.all)
    XCTAssertEqual(settings.build.archiveModificationTime, 1_700_000_000)
    XCTAssertEqual(settings.signing.signers.map(\.keyID), [key.publicKey.keyID])
    XCTAssertEqual(
      refusal { try self.resolution(environment: ["SOURCE_DATE_EPOCH": "soon"]).run(.all) },
      #"SOURCE_DATE_EPOCH: "soon" is not a whole number of seconds since 1970; expected e.g. 1577836800"#)
  }

  func testCommandsThatNeedTrustedKeysSaySoOnce() throws {
    try configure(#"{}"#)
    XCTAssertThrowsError(
      try resolution().requiredTrustedKeys(command: "ota verify", expected: "(found no signing.trustedKeys)")
    ) {
      XCTAssertEqual(
        ($0 as? ReleaseError)?.lines,
        ["ota verify: release.config.json trusts no key (found no signing.trustedKeys)"])
    }
    let key = try trustKey(#"{"destinations": ["git:https://git.example.com/{id}.git"]}"#)
    let verify = try resolution().verify()
    XCTAssertEqual(verify.trustedKeys, [key.publicKey])
    XCTAssertEqual(verify.packages.trustedKeys, [key.publicKey])
    XCTAssertEqual(verify.packages.releasesRepository, "https://git.example.com/{id}.git")
    // Verify regenerates packages as the release run made them.
    XCTAssertEqual(
      verify.packages.releasesRepository, try resolution().release(.all).packages.releasesRepository)
  }

  func testShareTakesTheFirstBucketOfTheDestinations() throws {
    try configure(
      #"{"publish": {"destinations": ["dir:local", "git:https://git.example.com/{id}.git", "s3://sdk-releases/contextsdk"]}}"#
    )
    XCTAssertEqual(try resolution().shareDestination(nil).description, "s3://sdk-releases/contextsdk")
    XCTAssertEqual(try resolution().shareDestination("s3://other").description, "s3://other")
    try configure(#"{}"#)
    XCTAssertEqual(
      refusal { try self.resolution().shareDestination(nil) },
      "share: no destination; give --destination s3://<bucket>[/<prefix>], or publish.destinations in release.config.json"
    )
  }
}
