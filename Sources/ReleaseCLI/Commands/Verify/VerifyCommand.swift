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
  /// What packages embed from the settings as `release all` takes them, and the keys a zip's
  /// signature is checked against.
  var settings: VerifySettings

  init(_ parsed: Arguments, _ invocation: CommandInvocation) throws {
    // The command's arity lets one or more through.
    let defaults = InputSettings()
    paths = parsed.positionals
    build = !parsed[Options.noBuild]
    manifestPath = parsed[Options.manifest] ?? defaults.manifestPath
    modelsPath = parsed[Options.storeDirectory] ?? defaults.modelsPath
    maximumModelSize = parsed[Options.maxModelSize] ?? defaults.maximumModelSize
    templatesPath = parsed[Options.templates] ?? defaults.templatesPath
    statePath = parsed[Options.state] ?? defaults.statePath
    timeout = parsed[Options.timeout] ?? BuildSettings().timeout
    settings = try SettingsResolution(parsed, invocation).verify()
  }
}

/// `release verify`: its steps (`Verification.run`, in `ReleaseVerification`) on the request
/// its options make.
enum VerifyCommand {
  static func run(_ options: VerifyOptions, _ invocation: CommandInvocation) throws {
    let context = ReleaseContext(
      services: invocation.services, settings: RunSettings(), reporter: DiscardingReporter())
    try Verification.run(request(options), Pipeline(context))
  }

  /// What verify checks, from its options: the releases, their inputs, and what `release all`
  /// puts in every package (the settings' URLs, keys and releases repository).
  static func request(_ options: VerifyOptions) -> VerifyRequest {
    let inputs = VerifyInputLocations(
      manifestPath: options.manifestPath, modelsPath: options.modelsPath,
      maximumModelSize: options.maximumModelSize, templatesPath: options.templatesPath,
      statePath: options.statePath)
    return VerifyRequest(
      paths: options.paths, inputs: inputs, settings: options.settings, build: options.build,
      timeout: options.timeout)
  }
}
