import Foundation
import ReleaseCore
import ReleaseSettings

/// From a parsed command line to the settings phase: every command that reads
/// release.config.json hands its parsed values to one `SettingsResolution` (which reads the
/// file once) and takes the typed settings of its kind from it. Nothing here reads a file,
/// a key or a URL policy.
extension CommandLineSettings {
  /// The values of the options `parsed` holds (a command's own options; the others are nil),
  /// each value the parser checks alone (numbers, durations, sizes, `--shard`) checked here.
  init(_ parsed: Arguments) throws {
    self.init()
    if let text = parsed.value(Options.shard) { shard = try ShardSelection.parse(text) }
    configPath = parsed.value(Options.config)
    manifest = parsed.value(Options.manifest)
    models = parsed.value(Options.models)
    templates = parsed.value(Options.templates)
    state = parsed.value(Options.state)
    rollouts = parsed.value(Options.rollouts)
    dist = parsed.value(Options.dist)
    cache = parsed.value(Options.cache)
    s3Endpoint = parsed.value(Options.s3Endpoint)
    s3Region = parsed.value(Options.s3Region)
    maximumModelSize = try parsed.size(Options.maxModelSize)
    jobs = try parsed.integer(Options.jobs, in: 1...64)
    timeout = try parsed.duration(Options.timeout)
    dryRun = parsed.flag(Options.dryRun)
    force = parsed.flag(Options.force)
    failFast = parsed.flag(Options.failFast)
    json = parsed.flag(Options.json)
    skipTests = parsed.flag(Options.skipTests)
    fullBuild = parsed.flag(Options.fullBuild)
    publish = parsed.values(Options.publish)
    noPublish = parsed.flag(Options.noPublish)
    publishPassed = parsed.flag(Options.publishPassed)
    adoptUnsignedIndex = parsed.flag(Options.adoptUnsignedIndex)
    publicURL = parsed.value(Options.publicURL)
    manifestExpiry = parsed.value(Options.manifestExpires)
    tag = parsed.flag(Options.tag)
    push = parsed.flag(Options.push)
    remote = parsed.value(Options.remote)
    allowDirty = parsed.flag(Options.allowDirty)
    refresh = parsed.flag(Options.refresh)
    signingKeys = parsed.values(Options.signingKey)
  }
}

extension SettingsResolution {
  /// The settings phase of a parsed command line: release.config.json read once.
  init(_ parsed: Arguments, _ invocation: CommandInvocation) throws {
    try self.init(try CommandLineSettings(parsed), services: invocation.services)
  }
}

/// `release all`, `customer` and `merge`: the command line's mode, then the run's settings.
extension RunSettings {
  static func all(_ parsed: Arguments, _ invocation: CommandInvocation) throws -> RunSettings {
    try refusingPositionals(parsed, command: "all")
    let resolution = try SettingsResolution(parsed, invocation)
    return try resolution.release(resolution.given.shard.map(RunMode.shard) ?? .all)
  }

  static func customer(_ parsed: Arguments, _ invocation: CommandInvocation) throws -> RunSettings {
    guard !parsed.positionals.isEmpty else {
      throw ReleaseError.usage("customer: expected at least one customer id or app_id, found none")
    }
    return try SettingsResolution(parsed, invocation).release(.customers(parsed.positionals))
  }

  static func merge(_ parsed: Arguments, _ invocation: CommandInvocation) throws -> RunSettings {
    guard !parsed.positionals.isEmpty else {
      throw ReleaseError.usage("merge: expected the dist/ directories of the shards, found none")
    }
    return try SettingsResolution(parsed, invocation).release(.merge(sources: parsed.positionals))
  }

  static func refusingPositionals(_ parsed: Arguments, command: String) throws {
    if let extra = parsed.positionals.first {
      throw ReleaseError.usage(
        "'\(extra)': 'release \(command)' takes no customer names; use 'release customer \(extra)'")
    }
  }
}
