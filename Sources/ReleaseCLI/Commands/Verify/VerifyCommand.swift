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
  /// The manifest, the model store (always a directory: the foreign-model scan reads every
  /// model of the store), the template and the state file (the package's CHANGELOG.md is made
  /// from the releases it records).
  var inputs: InputSettings
  /// Seconds each build or test of a package may take.
  var timeout: Double
  /// What packages embed from the settings as `release all` takes them, and the keys a zip's
  /// signature is checked against.
  var settings: VerifySettings

  init(_ parsed: Arguments, _ invocation: CommandInvocation) throws {
    // The command's arity lets one or more through.
    paths = parsed.positionals
    build = !parsed[Options.noBuild]
    inputs = InputSettings()
    inputs.manifestPath = parsed[Options.manifest] ?? inputs.manifestPath
    inputs.modelsPath = parsed[Options.storeDirectory] ?? inputs.modelsPath
    inputs.maximumModelSize = parsed[Options.maxModelSize] ?? inputs.maximumModelSize
    inputs.templatesPath = parsed[Options.templates] ?? inputs.templatesPath
    inputs.statePath = parsed[Options.state] ?? inputs.statePath
    timeout = parsed[Options.timeout] ?? BuildSettings().timeout
    settings = try SettingsResolution(parsed, invocation).verify()
  }
}

/// `release verify`: its steps (`Verification.run`, in `ReleaseVerification`) on the request
/// its options make.
enum VerifyCommand {
  static func run(_ options: VerifyOptions, _ invocation: CommandInvocation) throws {
    try Verification.run(request(options), invocation.quietPipeline())
  }

  /// What verify checks, from its options: the releases, their inputs, and what `release all`
  /// puts in every package (the settings' URLs, keys and releases repository).
  static func request(_ options: VerifyOptions) -> VerifyRequest {
    VerifyRequest(
      paths: options.paths, inputs: options.inputs, settings: options.settings, build: options.build,
      timeout: options.timeout)
  }
}
