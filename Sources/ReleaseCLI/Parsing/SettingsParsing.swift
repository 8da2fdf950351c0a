import Foundation
import ReleaseCore
import ReleaseSettings

/// From a parsed command line to the settings phase: every command that reads
/// release.config.json hands its parsed values to one `SettingsResolution` (which reads the
/// file once) and takes the typed settings of its kind from it. Nothing here reads a file,
/// a key or a URL policy.
extension CommandLineSettings {
  /// The values of the options `parsed` holds (a command's own options; the others are nil),
  /// typed as the parser checked them (numbers, durations, sizes); `--shard` checked here.
  init(_ parsed: Arguments) throws {
    self.init()
    if let text = parsed[Options.shard] { shard = try ShardSelection.parse(text) }
    configPath = parsed[Options.config]
    manifest = parsed[Options.manifest]
    models = parsed[Options.models]
    templates = parsed[Options.templates]
    state = parsed[Options.state]
    rollouts = parsed[Options.rollouts]
    dist = parsed[Options.dist]
    cache = parsed[Options.cache]
    s3Endpoint = parsed[Options.s3Endpoint]
    s3Region = parsed[Options.s3Region]
    maximumModelSize = parsed[Options.maxModelSize]
    jobs = parsed[Options.jobs]
    timeout = parsed[Options.timeout]
    dryRun = parsed[Options.dryRun]
    force = parsed[Options.force]
    failFast = parsed[Options.failFast]
    json = parsed[Options.json]
    skipTests = parsed[Options.skipTests]
    fullBuild = parsed[Options.fullBuild]
    publish = parsed[Options.publish]
    noPublish = parsed[Options.noPublish]
    publishPassed = parsed[Options.publishPassed]
    adoptUnsignedIndex = parsed[Options.adoptUnsignedIndex]
    publicURL = parsed[Options.publicURL]
    manifestExpiry = parsed[Options.manifestExpires]
    tag = parsed[Options.tag]
    push = parsed[Options.push]
    remote = parsed[Options.remote]
    allowDirty = parsed[Options.allowDirty]
    refresh = parsed[Options.refresh]
    signingKeys = parsed[Options.signingKey]
  }
}

extension SettingsResolution {
  /// The settings phase of a parsed command line: release.config.json read once.
  init(_ parsed: Arguments, _ invocation: CommandInvocation) throws {
    try self.init(try CommandLineSettings(parsed), services: invocation.services)
  }
}

/// `release all`, `customer` and `merge`: the command line's mode, then the run's settings
/// (each command's arity, checked by the parser, says which positionals it takes).
extension RunSettings {
  static func all(_ parsed: Arguments, _ invocation: CommandInvocation) throws -> RunSettings {
    let resolution = try SettingsResolution(parsed, invocation)
    return try resolution.release(resolution.given.shard.map(RunMode.shard) ?? .all)
  }

  static func customer(_ parsed: Arguments, _ invocation: CommandInvocation) throws -> RunSettings {
    try SettingsResolution(parsed, invocation).release(.customers(parsed.positionals))
  }

  static func merge(_ parsed: Arguments, _ invocation: CommandInvocation) throws -> RunSettings {
    try SettingsResolution(parsed, invocation).release(.merge(sources: parsed.positionals))
  }
}
