import Foundation
import ReleaseBump
import ReleaseCore
import ReleaseManifest
import ReleasePipeline

/// The SDK version's move, planned: from and to, and every file's new text.
struct PlannedBump {
  var bump: VersionBump
  var old: SemanticVersion
  var new: SemanticVersion
  var files: [VersionBump.FileChange]
}

/// Reads the state, the template's version constant, the CHANGELOG and the docs, and plans the
/// new text of each (`VersionBump.changes`): a state and a constant that disagree are bad input
/// (exit 2), before anything is written.
struct PlanBumpStep: RequiredStep {
  let name = "plan bump"

  func run(_ options: BumpOptions, _ context: ReleaseContext) throws -> PlannedBump {
    let bump = VersionBump(
      services: context.services, statePath: options.statePath, templatesPath: options.templatesPath,
      since: options.since)
    let (old, new, files) = try bump.changes(part: options.part)
    return PlannedBump(bump: bump, old: old, new: new, files: files)
  }
}

/// Prints the change as `git diff` shows it once written, on stdout: what a reviewer reads
/// (and, under `--dry-run`, all the command does).
struct ShowBumpDiffStep: RequiredStep {
  let name = "show bump"

  func run(_ planned: PlannedBump, _ context: ReleaseContext) throws {
    context.services.output.write(linesOf: try planned.bump.diff(planned.files), to: .standardOutput)
  }
}

/// Writes every file, or none (`VersionBump.apply`: the state under its lock), and says so on
/// stderr; under `--dry-run` says only what it would have moved.
struct WriteBumpStep: RequiredStep {
  let name = "write bump"
  let dryRun: Bool

  func run(_ planned: PlannedBump, _ context: ReleaseContext) throws {
    let output = context.services.output
    if dryRun {
      output.write(line: "dry run: SDK \(planned.old) -> \(planned.new) not written", to: .standardError)
      return
    }
    try planned.bump.apply(planned.files, from: planned.old, to: planned.new)
    let paths = planned.files.map(\.path).joined(separator: ", ")
    output.write(
      line: "bumped SDK \(planned.old) -> \(planned.new) in \(paths); review and commit", to: .standardError)
  }
}
