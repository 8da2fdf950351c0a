import Foundation
import ReleaseCore
import ReleasePipeline
import ReleaseSettings
import ReleaseSigning
import ReleaseSystem
import ReleaseVerification

/// `release verify`'s options.
struct VerifyOptions {
  /// Zips, release directories, dist directories or release.json files, as given.
  var paths: [String]
  var build: Bool
  var manifestPath: String
  /// Always a directory: the foreign-model scan reads every model of the store.
  var modelsPath: String
  var maximumModelSize: Int64
  var templatesPath: String
  /// The package's CHANGELOG.md is made from the releases the state file records.
  var statePath: String
  /// Seconds each build or test of a package may take.
  var timeout: Double
  /// As `release all` takes it (the flag, else release.config.json's): it is in every package.
  var publicURL: String?
  /// Its destinations name the releases repository that goes into generated READMEs.
  var configuration: ReleaseConfiguration
  /// The keys a zip's signature (`<zip>.sig` beside it) is checked against
  /// (`signing.trustedKeys`); none: a signature is reported, not checked.
  var trustedKeys: [PublicKey]

  init(_ parsed: Arguments, _ invocation: CommandInvocation) throws {
    guard !parsed.positionals.isEmpty else {
      throw ReleaseError.usage(
        "verify: expected a zip, a release directory, a dist directory or a release.json; found none")
    }
    let defaults = ReleaseOptions()
    paths = parsed.positionals
    build = !parsed.flag(Options.noBuild)
    manifestPath = parsed.value(Options.manifest) ?? defaults.manifestPath
    modelsPath = parsed.value(Options.storeDirectory) ?? defaults.modelsPath
    maximumModelSize = try parsed.size(Options.maxModelSize) ?? defaults.maximumModelSize
    templatesPath = parsed.value(Options.templates) ?? defaults.templatesPath
    statePath = parsed.value(Options.state) ?? defaults.statePath
    timeout = try parsed.duration(Options.timeout) ?? defaults.timeout
    configuration = try ReleaseConfiguration.load(
      explicitPath: parsed.value(Options.config), services: invocation.services)
    publicURL = try ReleaseOptions.checkedPublicURL(parsed, configuration).value
    trustedKeys = try TrustedKeys.loadForCommand(configuration, services: invocation.services).keys
  }
}

/// `release verify`: its steps (`Verification.run`, in `ReleaseVerification`) on the request
/// its options make.
enum VerifyCommand {
  static func run(_ options: VerifyOptions, _ invocation: CommandInvocation) throws {
    let context = ReleaseContext(
      services: invocation.services, options: ReleaseOptions(), reporter: DiscardingReporter())
    try Verification.run(request(options), Pipeline(context))
  }

  /// What verify checks, from its options: the releases, their inputs, and what `release all`
  /// puts in every package (the configuration's URLs, keys and releases repository).
  static func request(_ options: VerifyOptions) -> VerifyRequest {
    let configuration = options.configuration
    let packages = PackageSettings(
      publicURL: options.publicURL, trustedKeys: options.trustedKeys,
      legacyManifests: configuration.legacyManifests ?? true,
      allowedSignersURL: configuration.allowedSignersURL,
      repositoryTemplate: configuration.packageURL
        ?? configuration.destinations?.compactMap { destination -> String? in
          guard destination.hasPrefix("git:") else { return nil }
          return String(destination.dropFirst(4))
        }.first,
      configurationPath: configuration.path)
    let inputs = VerifyInputLocations(
      manifestPath: options.manifestPath, modelsPath: options.modelsPath,
      maximumModelSize: options.maximumModelSize, templatesPath: options.templatesPath,
      statePath: options.statePath)
    return VerifyRequest(
      paths: options.paths, inputs: inputs, packages: packages, build: options.build, timeout: options.timeout
    )
  }
}
