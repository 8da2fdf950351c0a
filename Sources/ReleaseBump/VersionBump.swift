import Foundation
import ReleaseCore
import ReleaseGeneration
import ReleasePipeline
import ReleasePublishing
import ReleaseSettings
import ReleaseSystem

/// `release bump major|minor|patch`: moves the SDK version everywhere it appears, as one
/// commit-ready change: the state file, the template's version constant (which generated
/// packages' customer.json and README take their SDK version from, through the state), a new
/// CHANGELOG section (date and the commits since the previous SDK version, see `historyBase`)
/// and the versions in
/// the code blocks of README.md and of the Markdown files under docs/. Customer versions are
/// not touched: each customer's next release takes the new SDK version (see `VersionRule`).
package struct VersionBump {
  package typealias FileChange = UnifiedDiff.FileChange

  enum BumpError: Error, CustomStringConvertible, Equatable {
    case versionsDisagree(templateFile: String, template: String, statePath: String, state: String)
    case constantNotFound(path: String, expected: String)
    case history(String)
    case changedMeanwhile(statePath: String, found: String, expected: String)

    var description: String {
      switch self {
      case .versionsDisagree(let templateFile, let template, let statePath, let state):
        return
          "\(templateFile): contextSDKVersion is \(template) but \(statePath) has sdkVersion \(state); make them agree before bumping"
      case .constantNotFound(let path, let expected):
        return "\(path): no line \(expected); expected exactly one (the SDK version constant)"
      case .history(let reason):
        return "CHANGELOG.md: cannot list the commits of this release: \(reason)"
      case .changedMeanwhile(let statePath, let found, let expected):
        return
          "\(statePath): sdkVersion became \(found) while this bump from \(expected) ran; nothing was written, run the bump again"
      }
    }
  }

  let services: Services
  let statePath: String
  let templatesPath: String
  let changelogPath = InputSettings.sdkChangelogPath
  /// `--since <ref>`: the commit after which the CHANGELOG's commits start, chosen by hand.
  let since: String?

  package init(services: Services, statePath: String, templatesPath: String, since: String? = nil) {
    self.services = services
    self.statePath = statePath
    self.templatesPath = templatesPath
    self.since = since
  }
  /// The documentation whose code blocks show the SDK version: README.md, then every
  /// Markdown file under docs/ (sorted, so the diff has one order).
  var documentationPaths: [String] {
    let docs = services.resolve("docs")
    let files = FileManager.default.enumerator(atPath: docs.path)?.compactMap { $0 as? String } ?? []
    return ["README.md"] + files.filter { $0.hasSuffix(".md") }.sorted().map { "docs/" + $0 }
  }

  /// The template file holding `public let contextSDKVersion = "x.y.z"`.
  static let versionFile = PackageGenerator.sdkVersionFile

  package func changes(part: SemanticVersion.Part) throws -> (
    from: SemanticVersion, to: SemanticVersion, files: [FileChange]
  ) {
    // Loaded first: a missing or broken state file is bad input (exit 2), named as such.
    var state = try ReleaseState.load(from: services.resolve(statePath), displayPath: statePath)
    let stateText = try read(statePath)
    let old = state.sdkVersion
    guard old.canBump(part) else {
      throw ReleaseError.invalidInput(
        "\(statePath): sdkVersion \(old) cannot take another \(part.rawValue) release (each part has at most 9 digits)"
      )
    }
    let new = old.bumped(part)
    var files: [FileChange] = []

    state.sdkVersion = new
    files.append(
      FileChange(path: statePath, old: stateText, new: String(decoding: try state.encoded(), as: UTF8.self)))

    files.append(try templateConstantChange(from: old, to: new))

    let changelog = try? read(changelogPath)
    files.append(
      FileChange(
        path: changelogPath, old: changelog,
        new: try changelogWith(new, since: old, changelog ?? "# Changelog\n")))

    for path in documentationPaths {
      guard let text = try? read(path) else { continue }
      let updated = Self.replacingInCodeBlocks(text, old.description, with: new.description)
      if updated != text { files.append(FileChange(path: path, old: text, new: updated)) }
    }
    return (old, new, files)
  }

  /// Writes every file to a temporary sibling first, then renames them all: a failure while
  /// writing leaves every file as it was. The state file is written under its own lock, the
  /// one runs record versions under, and read again under it: the SDK version moves from `old`
  /// to `new` in what the file holds now, so a customer recorded meanwhile stays recorded.
  /// The template's version constant moved from `old` to `new`. It must be the state's version
  /// (generation refuses anything else): otherwise bad input (exit 2), like a broken state
  /// file, and nothing is written.
  private func templateConstantChange(from old: SemanticVersion, to new: SemanticVersion) throws -> FileChange
  {
    let versionPath = templatesPath + "/" + Self.versionFile
    let templateVersion: String
    do { templateVersion = try PackageGenerator.templateSDKVersion(services.resolve(templatesPath)) } catch {
      throw ReleaseError.invalidInput(
        BumpError.constantNotFound(path: versionPath, expected: "public let contextSDKVersion = \"\(old)\"")
          .description)
    }
    guard templateVersion == old.description else {
      throw ReleaseError.invalidInput(
        BumpError.versionsDisagree(
          templateFile: versionPath, template: templateVersion, statePath: statePath, state: old.description
        ).description)
    }
    let versionText = try read(versionPath)
    let oldLine = "public let contextSDKVersion = \"\(old)\""
    return FileChange(
      path: versionPath, old: versionText,
      new: versionText.replacingOccurrences(of: oldLine, with: "public let contextSDKVersion = \"\(new)\""))
  }

  package func apply(_ files: [FileChange], from old: SemanticVersion, to new: SemanticVersion) throws {
    let stateURL = services.resolve(statePath)
    let lock = try ReleaseState.lock(stateURL)
    try withExtendedLifetime(lock) {
      var current = try ReleaseState.load(from: stateURL, displayPath: statePath)
      guard current.sdkVersion == old else {
        throw BumpError.changedMeanwhile(
          statePath: statePath, found: current.sdkVersion.description, expected: old.description)
      }
      current.sdkVersion = new
      let stateText = String(decoding: try current.encoded(), as: UTF8.self)
      var written: [(temporary: URL, final: URL)] = []
      defer { for file in written { try? FileManager.default.removeItem(at: file.temporary) } }
      for file in files {
        let final = services.resolve(file.path)
        let temporary = AtomicFile.temporarySibling(of: final)
        try AtomicFile.write(file.path == statePath ? stateText : file.new, to: temporary)
        written.append((temporary, final))
      }
      for file in written { try AtomicFile.rename(file.temporary, to: file.final) }
    }
  }

  /// The change as `git diff` shows it once applied (see `UnifiedDiff`).
  package func diff(_ files: [FileChange]) throws -> String {
    try UnifiedDiff(services: services).diff(files)
  }

  private func read(_ path: String) throws -> String {
    do { return try String(contentsOf: services.resolve(path), encoding: .utf8) } catch {
      throw SystemError.cannotRead(path: path, reason: "missing or not UTF-8")
    }
  }

  /// Where the previous SDK version's history ends: the commits after it are this release's.
  /// `ref` goes into the range (a tag name or a full commit id, never an option); `label` is
  /// how "No changes since …" names it.
  struct HistoryBase: Equatable {
    var ref: String
    var label: String
  }

  /// The first of: `--since <ref>`; the tag `v<old>`; the newest `v*` tag before HEAD; the
  /// commit that added CHANGELOG.md's `## <old> - ` section (the previous bump's commit); the
  /// commit that set the template's constant to `old` (each only while the file still holds
  /// it). Nil (every commit) when none exists.
  /// A repository without tags thus starts after the previous version's own commit, not at
  /// the first commit ever made.
  func historyBase(of old: SemanticVersion, in repository: GitRepository) throws -> HistoryBase? {
    if let since {
      guard let commit = repository.commit(of: since) else {
        throw ReleaseError.usage(
          "bump: --since \"\(since)\" is not a commit of this repository; expected a commit, tag or branch (the last commit of the previous SDK version)"
        )
      }
      return HistoryBase(ref: commit, label: since)
    }
    if repository.commit(of: "refs/tags/v\(old)") != nil {
      return HistoryBase(ref: "v\(old)", label: "v\(old)")
    }
    if let tag = repository.latestTag(matching: "v[0-9]*") { return HistoryBase(ref: tag, label: tag) }
    let versionPath = templatesPath + "/" + Self.versionFile
    for (text, path) in [
      ("## \(old) - ", changelogPath), ("public let contextSDKVersion = \"\(old)\"", versionPath),
    ] {
      // Only text the file still holds: then the newest commit that changed how often it
      // occurs in `path` is the one that added it.
      guard (try? read(path))?.contains(text) == true else { continue }
      let found = try? repository.run(["log", "-1", "--format=%H", "-S" + text, "HEAD", "--", path])
      if let commit = found, !commit.isEmpty {
        return HistoryBase(ref: commit, label: "commit \(commit.prefix(12))")
      }
    }
    return nil
  }

  /// Inserts `## <new> - <date>` above the newest section, listing the subjects of the commits
  /// after `historyBase` (all commits when there is none), merges left out.
  private func changelogWith(_ new: SemanticVersion, since old: SemanticVersion, _ changelog: String) throws
    -> String
  {
    let repository = GitRepository(
      services.root, runner: services.processRunner, environment: services.environment)
    let base = try historyBase(of: old, in: repository)
    let range = base.map { ["\($0.ref)..HEAD"] } ?? ["HEAD"]
    let subjects: [String]
    do {
      // The range comes from a tag name or a commit id: after the end of options it is never
      // an option.
      subjects = try repository.run(["log", "--no-merges", "--format=%s", "--end-of-options"] + range)
        .split(separator: "\n").map { "- \($0)" }
    } catch {
      throw BumpError.history("\(error)")
    }
    let formatter = DateFormatter()
    formatter.locale = Locale(identifier: "en_US_POSIX")
    formatter.timeZone = TimeZone(identifier: "UTC")
    formatter.dateFormat = "yyyy-MM-dd"
    let body = subjects.isEmpty ? ["- No changes since \(base?.label ?? old.description)."] : subjects
    let section = ["## \(new) - \(formatter.string(from: services.clock.now()))", ""] + body + [""]

    var lines = changelog.components(separatedBy: "\n")
    if let first = lines.firstIndex(where: { $0.hasPrefix("## ") }) {
      lines.insert(contentsOf: section, at: first)
    } else {
      // No section yet: after the existing text, one blank line apart.
      while lines.last == "" { lines.removeLast() }
      lines += [""] + section
    }
    return lines.joined(separator: "\n")
  }

  /// Replaces the version `old` with `new` only inside fenced code blocks, where the docs
  /// show versions a reader copies (`from: "2.4.0"`); prose about history stays as written.
  /// Only whole versions are replaced: `12.4.0` or `2.4.0.1` stay.
  static func replacingInCodeBlocks(_ text: String, _ old: String, with new: String) -> String {
    let pattern = "(?<![0-9.])" + NSRegularExpression.escapedPattern(for: old) + "(?![0-9]|\\.[0-9])"
    let expression = try! NSRegularExpression(pattern: pattern)
    var inBlock = false
    return text.components(separatedBy: "\n").map { line -> String in
      if line.trimmingCharacters(in: .whitespaces).hasPrefix("```") {
        inBlock.toggle()
        return line
      }
      guard inBlock else { return line }
      return expression.stringByReplacingMatches(
        in: line, range: NSRange(line.startIndex..., in: line),
        withTemplate: NSRegularExpression.escapedTemplate(for: new))
    }.joined(separator: "\n")
  }
}
