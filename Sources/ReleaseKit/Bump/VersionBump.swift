import Foundation
import ReleaseSystem

/// `release bump major|minor|patch`: moves the SDK version everywhere it appears, as one
/// commit-ready change: the state file, the template's version constant, a new CHANGELOG
/// section (date and the commits since the last SDK tag) and the README's code snippets.
struct VersionBump {
  struct FileChange: Equatable {
    var path: String
    var old: String
    var new: String
  }

  enum BumpError: Error, CustomStringConvertible, Equatable {
    case constantNotFound(path: String, expected: String)

    var description: String {
      switch self {
      case .constantNotFound(let path, let expected):
        return "\(path): no line \(expected); expected exactly one (the SDK version constant)"
      }
    }
  }

  let services: Services
  let statePath: String
  let templatesPath: String
  let changelogPath = "CHANGELOG.md"
  let readmePath = "README.md"

  /// The template file holding `public let contextSDKVersion = "x.y.z"`.
  static let versionFile = "Sources/ContextSDKCore/SDKVersion.swift"

  func changes(part: SemanticVersion.Part) throws -> (from: SemanticVersion, to: SemanticVersion, files: [FileChange]) {
    var state = try ReleaseState.load(from: services.resolve(statePath), displayPath: statePath)
    let old = state.sdkVersion
    let new = old.bumped(part)
    var files: [FileChange] = []

    let oldState = String(decoding: try state.encoded(), as: UTF8.self)
    state.sdkVersion = new
    files.append(FileChange(path: statePath, old: oldState, new: String(decoding: try state.encoded(), as: UTF8.self)))

    let versionPath = templatesPath + "/" + Self.versionFile
    let versionText = try read(versionPath)
    let oldLine = "public let contextSDKVersion = \"\(old)\""
    guard versionText.components(separatedBy: oldLine).count == 2 else {
      throw BumpError.constantNotFound(path: versionPath, expected: oldLine)
    }
    files.append(
      FileChange(
        path: versionPath, old: versionText,
        new: versionText.replacingOccurrences(of: oldLine, with: "public let contextSDKVersion = \"\(new)\"")))

    let changelog = (try? read(changelogPath)) ?? "# Changelog\n"
    files.append(FileChange(path: changelogPath, old: changelog, new: try changelogWith(new, since: old, changelog)))

    if let readme = try? read(readmePath) {
      let updated = Self.replacingInCodeBlocks(readme, old.description, with: new.description)
      if updated != readme { files.append(FileChange(path: readmePath, old: readme, new: updated)) }
    }
    return (old, new, files)
  }

  func apply(_ files: [FileChange]) throws {
    for file in files { try AtomicFile.write(file.new, to: services.resolve(file.path)) }
  }

  /// A unified diff of the change, made by `git diff --no-index` on temporary copies.
  func diff(_ files: [FileChange]) throws -> String {
    let scratch = FileManager.default.temporaryDirectory.appendingPathComponent("release-bump-\(UUID().uuidString)")
    defer { try? FileManager.default.removeItem(at: scratch) }
    var output = ""
    for file in files {
      let a = scratch.appendingPathComponent("a/" + file.path)
      let b = scratch.appendingPathComponent("b/" + file.path)
      try AtomicFile.write(file.old, to: a)
      try AtomicFile.write(file.new, to: b)
      let result = try services.processRunner.run(
        ProcessInvocation(
          "git", ["diff", "--no-index", "--no-color", "--src-prefix=", "--dst-prefix=", "a/" + file.path, "b/" + file.path],
          in: scratch))
      output += result.standardOutput
    }
    return output
  }

  private func read(_ path: String) throws -> String {
    do { return try String(contentsOf: services.resolve(path), encoding: .utf8) } catch {
      throw SystemError.cannotRead(path: path, reason: "missing or not UTF-8")
    }
  }

  /// Inserts `## <new> - <date>` above the newest section, listing commit subjects since
  /// the tag of the previous SDK version (all commits when there is none yet).
  private func changelogWith(_ new: SemanticVersion, since old: SemanticVersion, _ changelog: String) throws -> String {
    let repository = GitRepository(services.root, runner: services.processRunner, environment: services.environment)
    let range = repository.commit(of: "refs/tags/v\(old)") != nil ? ["v\(old)..HEAD"] : ["HEAD"]
    let subjects = ((try? repository.run(["log", "--no-merges", "--format=%s"] + range)) ?? "")
      .split(separator: "\n").map { "- \($0)" }
    let formatter = DateFormatter()
    formatter.locale = Locale(identifier: "en_US_POSIX")
    formatter.timeZone = TimeZone(identifier: "UTC")
    formatter.dateFormat = "yyyy-MM-dd"
    let section =
      "## \(new) - \(formatter.string(from: services.clock.now()))\n\n"
      + (subjects.isEmpty ? "- No changes since \(old).\n" : subjects.joined(separator: "\n") + "\n")
    var lines = changelog.components(separatedBy: "\n")
    let insertAt = lines.firstIndex { $0.hasPrefix("## ") } ?? lines.count
    let block = section.components(separatedBy: "\n")
    if insertAt == lines.count && lines.last == "" { lines.removeLast() }
    lines.insert(contentsOf: (insertAt == lines.count ? [""] : []) + block, at: insertAt)
    return lines.joined(separator: "\n")
  }

  /// Replaces `old` with `new` only inside fenced code blocks, where the README shows
  /// versions a reader copies (`from: "2.4.0"`); prose about history stays as written.
  static func replacingInCodeBlocks(_ text: String, _ old: String, with new: String) -> String {
    var inBlock = false
    return text.components(separatedBy: "\n").map { line -> String in
      if line.trimmingCharacters(in: .whitespaces).hasPrefix("```") {
        inBlock.toggle()
        return line
      }
      return inBlock ? line.replacingOccurrences(of: old, with: new) : line
    }.joined(separator: "\n")
  }
}
