import Foundation
import ReleaseAlignment
import ReleaseCore
import ReleaseEvaluation
import ReleaseFlow
import ReleaseGeneration
import ReleaseManifest
import ReleaseModels
import ReleaseOTA
import ReleasePipeline
import ReleasePublishing
import ReleaseSettings
import ReleaseSystem

/// `release ota status [<customer>]` and `release ota publish`.
enum OTACommand {
  static let subcommands = [
    Command(
      name: "status", synopsis: "ota status [<id>]",
      summary: "what each flow offers over the air, to how many, from which SDK",
      title: "what each flow offers over the air",
      usage: ["ota status [<customer>] [options]"],
      discussion: """
        A table of every customer's flows (or the named customer's): the bundled version, each \
        version offered over the air with its percentage and status, and the oldest SDK version \
        that can run it. Reads rollouts.json; writes nothing.
        """,
      positionals: [Positional(label: "[<customer>]", help: "only this customer (slug or app_id)")],
      arity: .atMost(1, expected: "one customer"), groups: [.otaInputs], parent: "ota",
      run: { try status(try OTAStatusOptions($0, $1), $1) }),
    Command(
      name: "publish", synopsis: "ota publish",
      summary: "publish the over-the-air manifests and their models only",
      title: "publish the over-the-air manifests and their models",
      usage: ["ota publish [--publish <dest>]... [options]"],
      discussion: """
        From the work tree as it is (no build, no tags, no push): uploads every offered model as \
        ota/models/<sha256>.mlmodel (create-only), then, for each customer whose offer changed, \
        the next revision as ota/<id>/models-<revision>.json and the pointer \
        ota/<id>/models.json, replaced only if it still holds the revision that was read. \
        Destinations: --publish, else release.config.json's publish.otaDestination (the \
        channel's own, public destination), else the dir: destinations of its \
        publish.destinations (beside the releases, as a release run puts them there); with only \
        git: releases repositories given, publish.otaDestination. Refused before anything is \
        published (exit 2): no destination; a destination that is, holds or lies inside an s3: \
        release destination of publish.destinations (releases are private, devices read this \
        channel anonymously: name its own in publish.otaDestination); an offered model that is \
        missing from the store, that the SDK being released cannot run or whose metadata \
        disagrees with where it is offered; a published models.json this tool did not write. \
        With trusted keys and a public URL, each customer with a channel id also gets its \
        signed channel the same way (ota/<channel>/manifest-<revision>.json, then \
        ota/<channel>/manifest.json), each a DSSE envelope expiring after --expires (at most \
        30d), at a revision above the pointer's, the one rollouts.json records as published \
        and every revision file there; a pointer moved back below the published revision, or \
        wiped, is published over with the work tree's state, and said so. No private key to \
        sign with is refused (exit 2; under --dry-run shown as 'would refuse: …' and the \
        preview goes on). A channel whose pointer no trusted key signed, is at a revision \
        devices refuse (above 2^53 - 1) or holds a newer revision than rollouts.json records \
        is refused alone, one line each: the other channels are published, then exit 1. \
        --refresh re-signs, with a new expiry, the content of the revision rollouts.json \
        records as published, read from its own file and checked against the recorded \
        SHA-256 (never the pointer's); a channel whose file is missing or differs is refused \
        (run a plain ota publish). The legacy ota/<id>/models.json is published beside it only \
        for customers with a released package that pins no keys (release.json's pinnedKeys), \
        and none with publish.legacyManifests false; its last revision retracts every offer. \
        The revisions published are recorded in rollouts.json with their payloads' SHA-256: \
        commit it.
        """,
      arity: .none(.argumentsBecause("it publishes every customer's manifest")),
      groups: OTAPublishOptions.groups, refusals: OTAPublishOptions.refusals, parent: "ota",
      run: { try publish(try OTAPublishOptions($0, $1), $1) }),
    EvaluateCommand.command,
    ChannelVerifyCommand.command,
    RootCommand.command,
  ]

  /// Only the manifests and their models, from the work tree as it is: no build, no tags.
  static func publish(_ options: OTAPublishOptions, _ invocation: CommandInvocation) throws {
    try publish(options.release, invocation)
  }

  /// What `ota publish` does with `release` (its inputs and destinations); `ota evaluate
  /// --apply --publish` publishes through here.
  static func publish(_ release: RunSettings, _ invocation: CommandInvocation) throws {
    invocation.reporter = ReporterFactory.make(settings: release, services: invocation.services)
    let context = ReleaseContext(
      services: invocation.services, settings: release, reporter: invocation.reporter)
    try OTAPublishRun.pipeline(Pipeline(context))
  }

  /// Its steps: the inputs read (`LoadOTAInputsStep`, as `rollout` reads them), then the table
  /// (`ReportOTAStatusStep`).
  static func status(_ options: OTAStatusOptions, _ invocation: CommandInvocation) throws {
    let pipeline = invocation.quietPipeline()
    let inputs = try pipeline.run(LoadOTAInputsStep(), options.inputs)
    try pipeline.run(ReportOTAStatusStep(customer: options.customer), inputs)
  }
}

/// `release ota status`'s options.
struct OTAStatusOptions: Equatable {
  /// Only this customer (slug or app id); nil: every customer.
  var customer: String?
  var inputs: InputSettings

  init(_ parsed: Arguments, _ invocation: CommandInvocation) throws {
    customer = parsed.positionals.first
    inputs = try SettingsResolution(parsed, invocation).inputs()
  }
}

/// `release ota publish`'s options: a release's, of which it takes the inputs and the
/// destinations.
struct OTAPublishOptions: Equatable {
  var release: RunSettings

  static let groups = [
    OptionGroup(
      "OPTIONS",
      [
        Options.otaPublish, Options.publicURL, Options.manifestExpires, Options.refresh, Options.dryRun,
        Options.json,
      ]),
    OptionGroup.inputs.without(Options.dist), OptionGroup.s3, OptionGroup.signing,
  ]

  /// A release's other options (builds, tags, pushes, dist/) mean nothing to it: refused
  /// rather than silently ignored.
  static let refusals: [String: String] = {
    let taken = Set(groups.flatMap(\.options).map(\.name))
    let release =
      ([OptionGroup.inputs, .s3, .behaviour, .publishing].flatMap(\.options) + [Options.shards.option])
      .map(
        \.name)
    return Dictionary(
      release.filter { !taken.contains($0) }.map {
        (
          $0,
          "not an option of 'release ota publish', which publishes the over-the-air manifests and their models only (no build, no tags, no push); see 'release ota publish --help'"
        )
      }, uniquingKeysWith: { first, _ in first })
  }()

  init(_ parsed: Arguments, _ invocation: CommandInvocation) throws {
    release = try SettingsResolution(parsed, invocation).otaPublish()
  }
}
