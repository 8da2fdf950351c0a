import Foundation
import ReleaseCore
import ReleaseManifest
import ReleaseNetwork
import ReleaseOTA
import ReleasePipeline
import ReleasePublishing
import ReleaseSettings
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
    try read(signedChannel: parsed, configuration)
  }

  /// The signed channel's settings, and the refusals of a public URL devices could not trust:
  /// one with no trusted key (packages would get no channel anyone can sign), and plain
  /// `http://` to anything but this machine (it is built into every package).
  private mutating func read(signedChannel parsed: Arguments, _ configuration: ReleaseConfiguration) throws {
    legacyManifests = configuration.legacyManifests ?? true
    refresh = parsed.flag(Options.refresh)
    let (expiry, expiryOrigin) = parsed.setting(Options.manifestExpires, configuration)
    if let expiry { manifestExpiry = try Self.manifestExpiry(expiry, origin: expiryOrigin) }
    guard let publicURL else { return }
    let origin = origins.publicURL
    guard let url = URL(string: publicURL), let scheme = url.scheme?.lowercased(),
      ["http", "https"].contains(scheme),
      url.host?.isEmpty == false
    else {
      throw ReleaseError.usage(
        "\(origin) \(publicURL): expected an http or https URL, e.g. https://sdk.example.com/releases")
    }
    if scheme == "http", !LoopbackHost.contains(url.host ?? "") {
      throw ReleaseError.usage(
        "\(origin) \(publicURL): plain http:// is built into every package and lets anyone on the way change what devices fetch; expected https:// (http:// only to 127.0.0.1, ::1 or localhost, for tests)"
      )
    }
    if !signing.hasTrustedKeys {
      throw ReleaseError.usage(
        "\(origin) \(publicURL): packages get over-the-air models only through a signed channel, and \(configuration.path) trusts no key; add a key: release keys generate keys, then list keys/signing.pub in \(configuration.path) signing.trustedKeys"
      )
    }
  }

  /// A manifest's lifetime: a whole number of days or hours (`7d`, `36h`), at most 30 days
  /// (`SignedOTAChannel.maximumLifetime`; devices refuse one expiring more than 31 days ahead).
  static func manifestExpiry(_ text: String, origin: String) throws -> Double {
    // At most six digits before the unit, leading zeros included.
    if text.count <= 7,
      let seconds = Arguments.seconds(
        of: text, units: [("d", 86_400), ("h", 3600)], maximum: SignedOTAChannel.maximumLifetime)
    {
      return seconds
    }
    throw ReleaseError.usage(
      "\(origin) \"\(text.prefix(40))\": expected a duration in days or hours such as 7d or 36h (at most 30d)"
    )
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
    rootChain = trusted.chain
    signing.adoptUnsignedIndexes = parsed.flag(Options.adoptUnsignedIndex)
    allowedSignersURL = configuration.allowedSignersURL
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
    let destination = { (text: String) throws -> PublishDestination in try settings.destination(text) }
    let configured = configuration.destinations ?? []
    if noPublish {
      publish = []
    } else if !given.isEmpty {
      publish = try given.map(destination)
    } else {
      publish = try configuredDestinations(configuration)
    }
    // The releases repository's URL goes into generated READMEs (and so into source digests)
    // also under --no-publish, so that run makes the same packages as the publishing one.
    let releasesRepository = { (destinations: [PublishDestination]) -> String? in
      destinations.lazy.compactMap { destination -> String? in
        if case .releasesRepositories(let template) = destination { return template }
        return nil
      }.first
    }
    self.releasesRepository =
      configuration.packageURL
      ?? releasesRepository(noPublish ? configured.compactMap { try? destination($0) } : publish)
    otaDestination = try configuration.otaDestination.map { text in
      do { return try destination(text) } catch ReleaseError.usage(let message) {
        throw ReleaseError.usage("\(configuration.path): publish.otaDestination: \(message)")
      }
    }
    if shard != nil {
      // A shard's dist/ is half a release: the merge job publishes, tags and records versions.
      for option: any DeclaredOption in [Options.publish, Options.tag, Options.push, Options.publishPassed]
      where parsed.given(option) {
        throw ReleaseError.usage(
          "\(option.name): a shard does not publish; run it on 'release merge' of all shards")
      }
      publish = []
    }
    try read(tagging: parsed, configuration)
  }

  /// Which customers ship, tags and their push, once the destinations are known.
  private mutating func read(tagging parsed: Arguments, _ configuration: ReleaseConfiguration) throws {
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

  /// A destination as typed, with this run's S3 settings and public URL.
  private func destination(_ text: String) throws -> PublishDestination {
    try PublishDestination.parse(
      text, s3Endpoint: s3Endpoint, region: s3Region, baseURL: publicURL, origins: origins)
  }

  /// release.config.json's `publish.destinations`, each refused value named by its index.
  private func configuredDestinations(_ configuration: ReleaseConfiguration) throws -> [PublishDestination] {
    let key = ConfigurationKey.destinations.rawValue
    return try (configuration.destinations ?? []).enumerated().map { index, text in
      do { return try destination(text) } catch ReleaseError.usage(let message) {
        throw ReleaseError.usage("\(configuration.path): \(key)[\(index)]: \(message)")
      }
    }
  }

  /// `release ota publish`'s and `ota evaluate --publish`'s options: a release's, whose
  /// `publish` is where the over-the-air channel goes: `--publish` when given, else
  /// release.config.json's `publish.otaDestination`, else its `publish.destinations` (beside
  /// the releases in a directory, as a release run puts them there). Devices read the channel
  /// anonymously and releases are private, so a target that is, holds or lies inside an S3
  /// release destination is refused (exit 2, naming publish.otaDestination), as is every
  /// overlap a release run refuses (`OTADestination.checkSeparation`).
  static func overTheAir(_ parsed: Arguments, services: Services) throws -> ReleaseOptions {
    var options = try ReleaseOptions(parsed, services: services)
    let configuration = try ReleaseConfiguration.load(
      explicitPath: parsed.value(Options.config), services: services)
    let given = parsed.given(Options.publish)
    let releases = given ? try options.configuredDestinations(configuration) : options.publish
    try OTADestination.checkSeparation(options, releases: releases)
    if !given, let ota = options.otaDestination { options.publish = [ota] }
    for (index, target) in options.publish.enumerated() {
      for release in releases {
        guard let reason = ChannelSeparation.overlap(ota: target, release: release) else { continue }
        if given {
          throw ReleaseError.usage(
            "\(Options.publish.name) \(reason); name the over-the-air channel's own destination in \(configuration.path) as publish.otaDestination"
          )
        }
        throw ReleaseError.usage(
          "\(configuration.path): \(ConfigurationKey.destinations.rawValue)[\(index)]: \(target) holds releases, which are private, and devices read the over-the-air files anonymously; name the over-the-air channel's own destination in \(configuration.path) as publish.otaDestination (or give --publish)"
        )
      }
    }
    return options
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
