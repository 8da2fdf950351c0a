import Foundation
import ReleaseCore
import ReleaseNetwork
import ReleaseOTA
import ReleasePublishing
import ReleaseSigning

/// The settings phase: after the command line is parsed and before a command runs, reads
/// release.config.json once (`--config`, else the root's when present), merges it with the
/// command line and the environment, reads the keys and checks every URL and destination
/// policy, and returns the typed settings of the command (`run`, `overTheAir`, `inputs`, …).
/// Every refusal of a setting comes from here, as one line with exit 2.
package struct SettingsResolution {
  package let given: CommandLineSettings
  /// release.config.json, read once for the whole command.
  package let configuration: ReleaseConfiguration
  let services: Services

  package init(_ given: CommandLineSettings, services: Services) throws {
    self.given = given
    self.services = services
    configuration = try ReleaseConfiguration.load(explicitPath: given.configPath, services: services)
  }

  /// The over-the-air commands' inputs: the input paths and the model store, each flag else
  /// its release.config.json key, as a release takes them.
  package func inputs() throws -> InputSettings {
    var inputs = InputSettings()
    inputs.manifestPath = given.manifest ?? inputs.manifestPath
    let models = setting(given.models, .models, key: .models)
    inputs.modelsPath = models.value ?? inputs.modelsPath
    inputs.origins.models = models.origin
    try URLPolicy.checkModelStore(inputs.modelsPath, origin: inputs.origins.models)
    (inputs.s3Endpoint, inputs.origins.s3Endpoint) = setting(given.s3Endpoint, .s3Endpoint, key: .s3Endpoint)
    (inputs.s3Region, inputs.origins.s3Region) = setting(given.s3Region, .s3Region, key: .s3Region)
    inputs.templatesPath = given.templates ?? inputs.templatesPath
    inputs.statePath = given.state ?? inputs.statePath
    inputs.rolloutsPath = given.rollouts ?? inputs.rolloutsPath
    inputs.distPath = given.dist ?? inputs.distPath
    inputs.cachePath = given.cache ?? inputs.cachePath
    inputs.maximumModelSize = given.maximumModelSize ?? inputs.maximumModelSize
    return inputs
  }

  /// A release run's settings (`all`, `customer`, `merge`, `all --shard`): `run(_:)`'s, with
  /// the refusal of release destinations the over-the-air channel or the public URL would make
  /// public (`ChannelPolicy.checkSeparation`).
  package func release(_ mode: RunMode) throws -> RunSettings {
    let settings = try run(mode)
    try ChannelPolicy.checkSeparation(settings)
    return settings
  }

  /// Every group a release reads, for `mode`; `plan`, which publishes nothing, takes these.
  package func run(_ mode: RunMode) throws -> RunSettings {
    var settings = RunSettings()
    settings.mode = mode
    settings.inputs = try inputs()
    settings.build.jobs = given.jobs ?? settings.build.jobs
    settings.build.timeout = given.timeout ?? settings.build.timeout
    settings.build.archiveModificationTime = try SourceDateEpoch.value(services.environment)
    settings.dryRun = given.dryRun
    settings.build.force = given.force
    settings.build.failFast = given.failFast
    settings.json = given.json
    settings.build.skipTests = given.skipTests
    settings.build.fullBuild = given.fullBuild
    settings.publishing = try publishing(mode, &settings.inputs)
    let trusted = try trustedKeys()
    settings.signing = try signing(trusted)
    settings.channel.rootChain = trusted.chain
    settings.publishing.allowedSignersURL = configuration.allowedSignersURL
    settings.channel = try channel(settings.channel)
    try URLPolicy.checkChannelURL(
      settings.publishing.publicURL, origin: settings.inputs.origins.publicURL,
      trustsKeys: settings.signing.hasTrustedKeys, configuration: configuration.path)
    return settings
  }

  /// The public keys of `signing.trustedKeys` (or of the newest root of `signing.root`).
  package func trustedKeys() throws -> TrustedKeys {
    try TrustedKeys.loadForCommand(configuration, services: services)
  }

  /// The private keys of `--signing-key` or `RELEASE_SIGNING_KEY`, each checked against
  /// `trusted`; with `required`, none is refused.
  package func signingKeys(trusted: TrustedKeys, required: Bool) throws -> SigningKeys {
    try SigningKeys.resolveForCommand(
      files: given.signingKeys, trusted: trusted, configuration: configuration.path, required: required,
      services: services)
  }

  /// The trusted keys and the private keys of `--signing-key` or `RELEASE_SIGNING_KEY`; a run
  /// that must sign says so itself when none was given.
  private func signing(_ trusted: TrustedKeys) throws -> SigningSetup {
    let signers = try signingKeys(trusted: trusted, required: false)
    var signing = SigningSetup(trusted: trusted.keys, signers: signers.keys)
    signing.adoptUnsignedIndexes = given.adoptUnsignedIndex
    return signing
  }

  /// The signed channel's settings: legacy manifests, `--refresh` and the manifests' lifetime.
  private func channel(_ channel: ChannelSettings) throws -> ChannelSettings {
    var channel = channel
    channel.legacyManifests = configuration.legacyManifests ?? true
    channel.refresh = given.refresh
    let (expiry, origin) = setting(given.manifestExpiry, .manifestExpiry, key: .manifestExpiry)
    if let expiry { channel.manifestExpiry = try Self.manifestExpiry(expiry, origin: origin) }
    return channel
  }

  /// The flag's value, else the release.config.json key's; with how messages name where it
  /// came from (the flag, or `release.config.json: <key>:`).
  func setting(_ value: String?, _ flag: SettingFlag, key: ConfigurationKey) -> (
    value: String?, origin: String
  ) {
    if let value { return (value, flag.rawValue) }
    if let configured = configuration.text(of: key) {
      return (configured, SettingOrigins.configuration(configuration.path, key: key.rawValue))
    }
    return (nil, flag.rawValue)
  }

  /// A manifest's lifetime: a whole number of days or hours (`7d`, `36h`), at most 30 days
  /// (`SignedOTAChannel.maximumLifetime`; devices refuse one expiring more than 31 days ahead).
  package static func manifestExpiry(_ text: String, origin: String) throws -> Double {
    // At most six digits before the unit, leading zeros included.
    if text.count <= 7,
      let seconds = DurationText.seconds(
        of: text, units: [("d", 86_400), ("h", 3600)], maximum: SignedOTAChannel.maximumLifetime)
    {
      return seconds
    }
    throw ReleaseError.usage(
      "\(origin) \"\(text.prefix(40))\": expected a duration in days or hours such as 7d or 36h (at most 30d)"
    )
  }
}

/// Durations as the command line and release.config.json write them.
package enum DurationText {
  /// `text` as a positive whole number followed by the suffix of the first of `units` it ends
  /// with, in seconds (the number times that unit's seconds); nil when it is not one or is over
  /// `maximum` seconds.
  package static func seconds(
    of text: String, units: [(suffix: String, seconds: Double)], maximum: Double
  ) -> Double? {
    guard let unit = units.first(where: { text.hasSuffix($0.suffix) }) else { return nil }
    let digits = text.dropLast(unit.suffix.count)
    guard !digits.isEmpty, digits.allSatisfy({ $0.isASCII && $0.isNumber }), let number = Double(digits),
      number > 0, number * unit.seconds <= maximum
    else { return nil }
    return number * unit.seconds
  }
}
