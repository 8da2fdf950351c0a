import Foundation
import ReleaseCore
import ReleaseManifest
import ReleasePipeline
import ReleasePublishing
import ReleaseSigning
import ReleaseSystem

/// `ReleaseOptions` from a parsed command line: `release all`, `customer`, `merge`, `plan`
/// and `ota publish` read the inputs, S3, behaviour and publishing groups through here, and
/// the over-the-air commands the inputs (`inputs(_:services:)`). release.config.json gives
/// the defaults of the options that name a `ConfigurationKey`.
extension ReleaseOptions {
  static func all(_ parsed: Arguments, _ invocation: CommandInvocation) throws -> ReleaseOptions {
    try refusingPositionals(parsed, command: "all")
    return try ReleaseOptions(parsed, services: invocation.services)
  }

  static func customer(_ parsed: Arguments, _ invocation: CommandInvocation) throws -> ReleaseOptions {
    guard !parsed.positionals.isEmpty else {
      throw ReleaseError.usage("customer: expected at least one customer id or app_id, found none")
    }
    var options = try ReleaseOptions(parsed, services: invocation.services)
    options.selection = .customers(parsed.positionals)
    return options
  }

  static func merge(_ parsed: Arguments, _ invocation: CommandInvocation) throws -> ReleaseOptions {
    guard !parsed.positionals.isEmpty else {
      throw ReleaseError.usage("merge: expected the dist/ directories of the shards, found none")
    }
    var options = try ReleaseOptions(parsed, services: invocation.services)
    options.mergeSources = parsed.positionals
    return options
  }

  static func refusingPositionals(_ parsed: Arguments, command: String) throws {
    if let extra = parsed.positionals.first {
      throw ReleaseError.usage(
        "'\(extra)': 'release \(command)' takes no customer names; use 'release customer \(extra)'")
    }
  }

  /// The options of the over-the-air commands: the input paths and the model store, each
  /// flag else its release.config.json key, as a release takes them.
  static func inputs(_ parsed: Arguments, services: Services) throws -> ReleaseOptions {
    var options = ReleaseOptions()
    try options.read(
      inputs: parsed,
      try ReleaseConfiguration.load(explicitPath: parsed.value(Options.config), services: services))
    return options
  }

  /// The input paths and the model store (`--models`, `--s3-endpoint`, `--s3-region`, each
  /// else its release.config.json key, named in messages by where it came from).
  private mutating func read(inputs parsed: Arguments, _ configuration: ReleaseConfiguration) throws {
    manifestPath = parsed.value(Options.manifest) ?? manifestPath
    let models = parsed.setting(Options.models, configuration)
    modelsPath = models.value ?? modelsPath
    origins.models = models.origin
    if ModelStoreLocation.isRemote(modelsPath), URLCredentials.carriesCredential(modelsPath) {
      throw ReleaseError.usage(
        "\(origins.models) \(URLCredentials.redacted(modelsPath)): a credential in a URL shows in the process list and in messages; a model store URL must not carry one (use s3:// with the AWS_* variables for a private store)"
      )
    }
    (s3Endpoint, origins.s3Endpoint) = parsed.setting(Options.s3Endpoint, configuration)
    (s3Region, origins.s3Region) = parsed.setting(Options.s3Region, configuration)
    templatesPath = parsed.value(Options.templates) ?? templatesPath
    statePath = parsed.value(Options.state) ?? statePath
    rolloutsPath = parsed.value(Options.rollouts) ?? rolloutsPath
    distPath = parsed.value(Options.dist) ?? distPath
    cachePath = parsed.value(Options.cache) ?? cachePath
    maximumModelSize = try parsed.size(Options.maxModelSize) ?? maximumModelSize
  }

  /// Every group a release reads. `services` locates release.config.json (at its root, or
  /// `--config`); without it only the command line counts.
  init(_ parsed: Arguments, services: Services?) throws {
    self.init()
    if let text = parsed.value(Options.shard) { shard = try ShardSelection.parse(text) }
    let configuration =
      try services.map {
        try ReleaseConfiguration.load(explicitPath: parsed.value(Options.config), services: $0)
      }
      ?? ReleaseConfiguration()
    try read(inputs: parsed, configuration)
    jobs = try parsed.integer(Options.jobs, in: 1...64) ?? jobs
    timeout = try parsed.duration(Options.timeout) ?? timeout
    archiveModificationTime = try SourceDateEpoch.value(services?.environment ?? [:])
    dryRun = parsed.flag(Options.dryRun)
    force = parsed.flag(Options.force)
    failFast = parsed.flag(Options.failFast)
    json = parsed.flag(Options.json)
    skipTests = parsed.flag(Options.skipTests)
    fullBuild = parsed.flag(Options.fullBuild)
    try read(publishing: parsed, configuration)
    if let services { try read(signing: parsed, configuration, services: services) }
  }

  /// The trusted keys of release.config.json and the private keys of `--signing-key` or
  /// `RELEASE_SIGNING_KEY`, each checked against them; a run that must sign says so itself
  /// when none was given.
  private mutating func read(
    signing parsed: Arguments, _ configuration: ReleaseConfiguration, services: Services
  )
    throws
  {
    let trusted = try TrustedKeys.loadForCommand(configuration, services: services)
    let signers = try SigningKeys.resolveForCommand(
      files: parsed.values(Options.signingKey), trusted: trusted, configuration: configuration.path,
      required: false,
      services: services)
    signing = SigningSetup(trusted: trusted.keys, signers: signers.keys)
  }

  /// The publishing group: destinations, the public URL, tags and pushes.
  private mutating func read(publishing parsed: Arguments, _ configuration: ReleaseConfiguration) throws {
    let (publicURL, publicURLOrigin) = try ReleaseOptions.checkedPublicURL(parsed, configuration)
    self.publicURL = publicURL
    origins.publicURL = publicURLOrigin
    let given = parsed.values(Options.publish)
    let noPublish = parsed.flag(Options.noPublish)
    if noPublish && !given.isEmpty {
      throw ReleaseError.usage("\(Options.noPublish.name): cannot be combined with \(Options.publish.name)")
    }
    let settings = self
    func destination(_ text: String) throws -> PublishDestination {
      try PublishDestination.parse(
        text, s3Endpoint: settings.s3Endpoint, region: settings.s3Region, baseURL: publicURL,
        origins: settings.origins)
    }
    let configured = configuration.destinations ?? []
    let key = ConfigurationKey.destinations.rawValue
    if noPublish {
      publish = []
    } else if !given.isEmpty {
      publish = try given.map(destination)
    } else {
      publish = try configured.enumerated().map { index, text in
        do { return try destination(text) } catch ReleaseError.usage(let message) {
          throw ReleaseError.usage("\(configuration.path): \(key)[\(index)]: \(message)")
        }
      }
    }
    // The releases repository's URL goes into generated READMEs (and so into source digests)
    // also under --no-publish, so that run makes the same packages as the publishing one.
    let releasesRepository = { (destinations: [PublishDestination]) -> String? in
      destinations.lazy.compactMap { destination -> String? in
        if case .releasesRepositories(let template) = destination { return template }
        return nil
      }.first
    }
    self.releasesRepository = releasesRepository(
      noPublish ? configured.compactMap { try? destination($0) } : publish)
    otaDestination = try configuration.otaDestination.map { text in
      do { return try destination(text) } catch ReleaseError.usage(let message) {
        throw ReleaseError.usage("\(configuration.path): publish.otaDestination: \(message)")
      }
    }
    if shard != nil {
      // A shard's dist/ is half a release: the merge job publishes, tags and records versions.
      for option in [Options.publish, Options.tag, Options.push, Options.publishPassed]
      where parsed.given(option) {
        throw ReleaseError.usage(
          "\(option.name): a shard does not publish; run it on 'release merge' of all shards")
      }
      publish = []
    }
    publishPassed = parsed.flag(Options.publishPassed) || (configuration.publishPassed ?? false)
    tag = parsed.flag(Options.tag) || !publish.isEmpty
    push = parsed.flag(Options.push)
    allowDirty = parsed.flag(Options.allowDirty)
    remote = parsed.value(Options.remote) ?? remote
    if let remote, URLCredentials.carriesCredential(remote) {
      throw ReleaseError.usage(
        "--remote \(URLCredentials.redacted(remote)): a credential in a URL shows in the process list and in git's messages; remove it and let git find it (a credential helper, or an SSH key in ssh-agent)"
      )
    }
    if let remote,
      remote.isEmpty || remote.hasPrefix("-")
        || remote.contains(where: { $0.isWhitespace || $0.asciiValue.map { $0 < 0x20 } == true })
    {
      throw ReleaseError.usage(
        "--remote \(remote.prefix(60)): not a git remote name or URL; expected e.g. origin")
    }
    if push && !tag {
      throw ReleaseError.usage("--push: pushes tags, so it needs --tag or --publish")
    }
  }

  /// The public URL as every command takes it (`--public-url`, else release.config.json's),
  /// refused if it carries a credential; and how messages name where it came from.
  static func checkedPublicURL(_ parsed: Arguments, _ configuration: ReleaseConfiguration) throws -> (
    value: String?, origin: String
  ) {
    let (publicURL, origin) = parsed.setting(Options.publicURL, configuration)
    if let publicURL, URLCredentials.carriesCredential(publicURL) || publicURL.contains("@") {
      throw ReleaseError.usage(
        "\(origin) \(URLCredentials.redacted(publicURL)): a credential in a URL ends up in every package and index; serve the destination without one"
      )
    }
    return (publicURL, origin)
  }
}
