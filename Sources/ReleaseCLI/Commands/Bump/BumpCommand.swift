import Foundation
import ReleaseBump
import ReleaseCore
import ReleaseManifest
import ReleasePipeline
import ReleaseSettings
import ReleaseSystem

/// `release bump major|minor|patch`'s options.
struct BumpOptions: Equatable {
  var part: SemanticVersion.Part
  var dryRun: Bool
  var statePath: String
  var templatesPath: String
  var since: String?

  init(_ parsed: Arguments) throws {
    // The command's arity (`.oneOf`) lets exactly one of major, minor and patch through, and
    // refuses anything else with its own message.
    guard let part = parsed.positionals.first.flatMap(SemanticVersion.Part.init(rawValue:)) else {
      throw ReleaseError.usage("bump: expected one of major, minor, patch")
    }
    let defaults = InputSettings()
    self.part = part
    dryRun = parsed[Options.dryRun]
    statePath = parsed[Options.state] ?? defaults.statePath
    templatesPath = parsed[Options.templates] ?? defaults.templatesPath
    since = parsed[Options.bumpSince]
  }
}

/// `release bump major|minor|patch`.
enum BumpCommand {
  static func run(_ options: BumpOptions, _ services: Services) throws {
    let bump = VersionBump(
      services: services, statePath: options.statePath, templatesPath: options.templatesPath,
      since: options.since)
    let (old, new, files) = try bump.changes(part: options.part)
    let diff = try bump.diff(files)
    services.output.write(linesOf: diff, to: .standardOutput)
    if options.dryRun {
      services.output.write(line: "dry run: SDK \(old) -> \(new) not written", to: .standardError)
      return
    }
    try bump.apply(files, from: old, to: new)
    services.output.write(
      line: "bumped SDK \(old) -> \(new) in \(files.map(\.path).joined(separator: ", ")); review and commit",
      to: .standardError)
  }
}
