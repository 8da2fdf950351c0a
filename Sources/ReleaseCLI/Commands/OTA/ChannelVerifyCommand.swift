import Foundation
import ReleaseCore
import ReleaseNetwork
import ReleaseOTA
import ReleasePipeline
import ReleasePublishing
import ReleaseSettings
import ReleaseSigning
import ReleaseSystem

/// `release ota verify <dir|s3://…|https://…> [<id>…]`: checks published signed channels from
/// the outside, as a monitor runs it (`ChannelCheck`): one line per problem, a summary line per
/// customer, exit 1 on any problem.
enum ChannelVerifyCommand {
  static let command = Command(
    name: "verify", synopsis: "ota verify <dest> [<id>...]",
    summary: "check published signed channels from the outside; exit 1 on any problem",
    title: "check published signed over-the-air channels, as a monitor",
    usage: ["ota verify <dir|s3://…|https://…> [<customer>...] [options]"],
    discussion: """
      Reads each customer's channel (its id from --state's "channels") where it is published: \
      a directory, a bucket, or the https:// URL devices read (plain http only to 127.0.0.1, \
      ::1 or localhost). Checks that ota/<channel>/manifest.json is an envelope signed by a key \
      of release.config.json's signing.trustedKeys holding the customer's manifest; that it has \
      not expired (a warning when it expires within 2 days); that every revision file \
      manifest-<n>.json there verifies and holds revision n, and none is above the pointer's; \
      and that every model the pointer names is at ota/models/<sha256>.mlmodel with its size and \
      SHA-256 (the newest 64 revision files are read, newest first). With --min-revision n, a \
      pointer below revision n is a problem too: a pointer moved back to an older, still signed \
      revision. Prints one line per problem (<location>: <what>) and a summary line per \
      customer. Writes nothing.
      """,
    positionals: [
      Positional(
        label: "<dest>",
        help:
          "where the channels are published: dir:<path> (or a path), s3://<bucket>[/<prefix>], https://<host>[/<path>]"
      ),
      Positional(
        label: "[<customer>...]", help: "these customers only (default: every customer with a channel)"),
    ],
    arity: .oneOrMore(
      missing:
        "found no destination; expected dir:<path>, s3://<bucket>[/<prefix>] or https://<host>[/<path>]"),
    groups: [
      OptionGroup("OPTIONS", [Options.verifyJSON, Options.minRevision, Options.state, Options.config]), .s3,
    ],
    footer:
      "Exit status: 0 every channel good (warnings allowed), 1 a problem in any, 2 bad arguments or input.",
    parent: "ota",
    run: { try run(try ChannelVerifyOptions($0, $1), $1) })

  /// Its steps (`ChannelVerifySteps.swift`): find the channels, check each, report them.
  static func run(_ options: ChannelVerifyOptions, _ invocation: CommandInvocation) throws {
    try pipeline(options, invocation.quietPipeline())
  }

  static func pipeline(_ options: ChannelVerifyOptions, _ pipeline: Pipeline) throws {
    let channels = try pipeline.run(FindChannelsStep(), options)
    let reports = try pipeline.run(CheckChannelsStep(), channels)
    try pipeline.run(ReportChannelsStep(json: options.json), reports)
  }
}

/// `release ota verify`'s arguments.
struct ChannelVerifyOptions {
  /// Where the channels are read from.
  var source: ChannelSource
  /// As typed.
  var sourceText: String
  var customers: [String]
  var json: Bool
  /// `--min-revision`: the lowest revision a pointer may hold.
  var minimumRevision: Int?
  var statePath: String
  /// The keys channels are signed with (release.config.json's, or `--config`'s).
  var trusted: TrustedKeys
  var s3Endpoint: String?
  var s3Region: String?
  var origins = SettingOrigins()

  init(_ parsed: Arguments, _ invocation: CommandInvocation) throws {
    // The destination, then the customers: the command's arity lets one or more through.
    let first = parsed.positionals[0]
    sourceText = first
    let resolution = try SettingsResolution(parsed, invocation)
    source = try resolution.channelSource(first)
    customers = Array(parsed.positionals.dropFirst())
    json = parsed[Options.verifyJSON]
    minimumRevision = parsed[Options.minRevision]
    statePath = parsed[Options.state] ?? "release-state.json"
    (s3Endpoint, s3Region, origins) = resolution.s3()
    trusted = try resolution.requiredTrustedKeys(
      command: "ota verify",
      expected: "(found no signing.trustedKeys); expected the public keys channels are signed with")
  }

  /// The reader of `source`. A bucket needs credentials (exit 2 without them).
  func reader(_ services: Services) throws -> ChannelReader {
    switch source {
    case .directory(let path):
      switch try PublishDestination.directory(path: path, baseURL: nil).resolve(services) {
      case .objectStore(let store): return StoreChannelReader(store: store)
      case .releasesRepositories:
        throw ReleaseError.usage("ota verify \(sourceText): not a directory; expected dir:<path>")
      }
    case .s3(let bucket, let prefix):
      let client = try S3Settings.client(
        bucket: bucket, endpoint: s3Endpoint, region: s3Region, environment: services.environment,
        purpose: "ota verify \(sourceText)", origins: origins, http: services.http)
      return StoreChannelReader(
        store: S3ObjectStore(client: client, prefix: prefix, publicBase: sourceText))
    case .web(let base):
      return WebChannelReader(base: base, http: services.http)
    }
  }
}
