import Foundation
import ReleaseCore

/// The notes of one release: how it differs from the customer's previous release. Made from
/// the contents of both, never from commit subjects, which speak of the SDK's code, not of
/// what this customer receives.
public struct ReleaseNote: Codable, Equatable, Sendable {
  public struct Change: Codable, Equatable, Sendable {
    public enum Kind: String, Codable, Sendable {
      case firstRelease, modelAdded, modelRemoved, modelChanged, bundleIdentifiersChanged, sdkVersionChanged
      /// Features (parts of the SDK the customer licenses) added or removed.
      case featuresChanged
      /// The SDK's code changed within the same SDK version.
      case sdkCodeChanged
      /// Where the SDK fetches models over the air, or where the package is added from, changed.
      case modelManifestURLChanged, repositoryURLChanged
      /// The previous release's contents were never recorded (a state file from before
      /// release notes): what changed since it cannot be said.
      case previousContentsUnknown
      /// Rebuilt with nothing listed here changed (the previous release recorded no more).
      case noListedChange
    }

    public var kind: Kind
    /// One line for people, plain text: `onboarding_upsell v73 → v74: Decides whether …`.
    public var summary: String
    public var flowName: String? = nil
    public var previousModelVersion: Int? = nil
    public var modelVersion: Int? = nil
    public var added: [String]? = nil
    public var removed: [String]? = nil
    public var previousSDKVersion: String? = nil
    public var sdkVersion: String? = nil
    /// For `sdkVersionChanged`: the items of the SDK's CHANGELOG section of the new version.
    public var sdkChanges: [String]? = nil
    /// For the URL changes: the URL now (nil: none).
    public var url: String? = nil
    /// The model's short description, for the model changes.
    public var shortDescription: String? = nil
  }

  public var version: String
  public var previousVersion: String?
  public var sdkVersion: String
  public var changes: [Change]
}

/// Release notes from recorded contents, and the package's `CHANGELOG.md` made from them.
public enum ReleaseNotes {
  /// What the release before the one being described was.
  public enum Previous: Equatable, Sendable {
    case none
    case recorded(ReleaseContents)
    case unrecorded(version: String)

    var version: String? {
      switch self {
      case .none: nil
      case .recorded(let last): last.version
      case .unrecorded(let version): version
      }
    }
  }

  /// The note of `current` against `previous`. `sdkChangelog` holds the SDK's CHANGELOG
  /// sections by version (`sections(ofSDKChangelog:)`); a missing section gives no items.
  public static func note(
    for current: ReleaseContents, previous: Previous, sdkChangelog: [String: [String]]
  ) -> ReleaseNote {
    let changes: [ReleaseNote.Change]
    switch previous {
    case .none: changes = firstRelease(current)
    case .unrecorded(let version): changes = [contentsUnknown(since: version, current)]
    case .recorded(let last): changes = self.changes(from: last, to: current, sdkChangelog: sdkChangelog)
    }
    return ReleaseNote(
      version: current.version, previousVersion: previous.version, sdkVersion: current.sdkVersion,
      changes: changes)
  }

  private static func firstRelease(_ current: ReleaseContents) -> [ReleaseNote.Change] {
    let first = ReleaseNote.Change(
      kind: .firstRelease,
      summary:
        "First release, with ContextSDK \(current.sdkVersion) for \(current.bundleIdentifiers.joined(separator: ", "))",
      added: current.bundleIdentifiers, sdkVersion: current.sdkVersion)
    return [first] + modelChanges(from: [:], to: current.models)
  }

  private static func contentsUnknown(since version: String, _ current: ReleaseContents) -> ReleaseNote.Change
  {
    ReleaseNote.Change(
      kind: .previousContentsUnknown,
      summary:
        "What changed since \(version) is not known (its contents were not recorded); this release holds "
        + current.models.sorted(by: { $0.key < $1.key }).map { "\($0.key) v\($0.value.modelVersion)" }
        .joined(separator: ", ") + " with ContextSDK \(current.sdkVersion)")
  }

  /// What differs from the recorded `last` release: models, bundle identifiers, features, the
  /// SDK and the URLs; a rebuild with nothing of these changed says so.
  private static func changes(
    from last: ReleaseContents, to current: ReleaseContents, sdkChangelog: [String: [String]]
  ) -> [ReleaseNote.Change] {
    var changes = modelChanges(from: last.models, to: current.models)
    changes += listChange(
      .bundleIdentifiersChanged, "Bundle identifiers", from: last.bundleIdentifiers,
      to: current.bundleIdentifiers)
    if let before = last.features, let now = current.features, before != now {
      changes += listChange(.featuresChanged, "Features", from: before, to: now)
    }
    changes += sdkChange(from: last, to: current, sdkChangelog: sdkChangelog)
    changes += urlChanges(from: last, to: current)
    if changes.isEmpty {
      changes.append(
        ReleaseNote.Change(
          kind: .noListedChange, summary: "Rebuilt with the same models, bundle identifiers and SDK version"))
    }
    return changes
  }

  /// What was added to and removed from a list (`Features: added att; removed conversion`);
  /// nothing when both are empty.
  private static func listChange(
    _ kind: ReleaseNote.Change.Kind, _ label: String, from before: [String], to now: [String]
  ) -> [ReleaseNote.Change] {
    let added = now.filter { !before.contains($0) }
    let removed = before.filter { !now.contains($0) }
    if added.isEmpty && removed.isEmpty { return [] }
    let parts =
      (added.isEmpty ? [] : ["added " + added.joined(separator: ", ")])
      + (removed.isEmpty ? [] : ["removed " + removed.joined(separator: ", ")])
    return [
      ReleaseNote.Change(
        kind: kind, summary: label + ": " + parts.joined(separator: "; "), added: added, removed: removed)
    ]
  }

  /// A new SDK version with its CHANGELOG items, or the same version built from changed code.
  private static func sdkChange(
    from last: ReleaseContents, to current: ReleaseContents, sdkChangelog: [String: [String]]
  ) -> [ReleaseNote.Change] {
    if last.sdkVersion != current.sdkVersion {
      return [
        ReleaseNote.Change(
          kind: .sdkVersionChanged, summary: "ContextSDK \(last.sdkVersion) → \(current.sdkVersion)",
          previousSDKVersion: last.sdkVersion, sdkVersion: current.sdkVersion,
          sdkChanges: sdkChangelog[current.sdkVersion] ?? [])
      ]
    }
    guard let before = last.templateDigest, let now = current.templateDigest, before != now else { return [] }
    return [
      ReleaseNote.Change(
        kind: .sdkCodeChanged,
        summary: "ContextSDK \(current.sdkVersion) rebuilt from changed code (the same SDK version)",
        sdkVersion: current.sdkVersion)
    ]
  }

  /// The over-the-air manifest URL and the releases repository, only against a release that
  /// recorded them (the template digest came with the URLs).
  private static func urlChanges(from last: ReleaseContents, to current: ReleaseContents) -> [ReleaseNote
    .Change]
  {
    guard last.templateDigest != nil else { return [] }
    var changes: [ReleaseNote.Change] = []
    if last.modelManifestURL != current.modelManifestURL {
      changes.append(
        ReleaseNote.Change(
          kind: .modelManifestURLChanged,
          summary: current.modelManifestURL.map { "Models over the air from \($0)" }
            ?? "No models over the air (no manifest URL)", url: current.modelManifestURL))
    }
    if last.repositoryURL != current.repositoryURL {
      changes.append(
        ReleaseNote.Change(
          kind: .repositoryURLChanged,
          summary: current.repositoryURL.map { "Added from \(InstallSection.withoutCredentials($0))" }
            ?? "No releases repository",
          url: current.repositoryURL.map(InstallSection.withoutCredentials)))
    }
    return changes
  }

  /// Models added, removed or changed, by flow name; against no models, every model is added.
  private static func modelChanges(
    from last: [String: ReleaseContents.Model], to current: [String: ReleaseContents.Model]
  ) -> [ReleaseNote.Change] {
    func describe(_ model: ReleaseContents.Model) -> String {
      model.shortDescription.isEmpty ? "" : ": \(model.shortDescription)"
    }
    var changes: [ReleaseNote.Change] = []
    for flow in Set(last.keys).union(current.keys).sorted() {
      switch (last[flow], current[flow]) {
      case (nil, let now?):
        changes.append(
          .init(
            kind: .modelAdded, summary: "\(flow) v\(now.modelVersion) added\(describe(now))",
            flowName: flow, modelVersion: now.modelVersion, shortDescription: now.shortDescription))
      case (let before?, nil):
        changes.append(
          .init(
            kind: .modelRemoved, summary: "\(flow) v\(before.modelVersion) removed", flowName: flow,
            previousModelVersion: before.modelVersion))
      case (let before?, let now?) where before != now:
        let what =
          before.modelVersion == now.modelVersion
          ? "\(flow) v\(now.modelVersion): the model file changed"
          : "\(flow) v\(before.modelVersion) → v\(now.modelVersion)"
        changes.append(
          .init(
            kind: .modelChanged, summary: what + describe(now), flowName: flow,
            previousModelVersion: before.modelVersion, modelVersion: now.modelVersion,
            shortDescription: now.shortDescription))
      default:
        continue
      }
    }
    return changes
  }

  /// The package's `CHANGELOG.md`: every release's note, newest first.
  public static func changelog(customerName: String, notes: [ReleaseNote]) -> Data {
    var lines: [MarkdownText] = [
      .literal("# Changelog"), .literal(""),
      .concatenating([
        .literal("What changed in each release of ContextSDK for "), .escaping(customerName),
        .literal(
          ", newest first: models, bundle identifiers and SDK version, compared with the release before."),
      ]),
    ]
    for note in notes {
      lines += [.literal(""), .concatenating([.literal("## "), .escaping(note.version)]), .literal("")]
      for change in note.changes {
        lines.append(.concatenating([.literal("- "), markdown(change)]))
        for item in change.sdkChanges ?? [] {
          lines.append(.concatenating([.literal("  - "), .escaping(item)]))
        }
      }
    }
    return Data((MarkdownText.lines(lines).markdown + "\n").utf8)
  }

  /// A change as Markdown: names and versions as code spans, descriptions escaped.
  private static func markdown(_ change: ReleaseNote.Change) -> MarkdownText {
    func description() -> [MarkdownText] {
      guard let text = change.shortDescription, !text.isEmpty else { return [] }
      return [.literal(": "), .escaping(text)]
    }
    func list(_ values: [String]) -> [MarkdownText] {
      values.enumerated().flatMap { index, value in
        index == 0 ? [MarkdownText.codeSpan(value)] : [.literal(", "), .codeSpan(value)]
      }
    }
    let flow = MarkdownText.codeSpan(change.flowName ?? "")
    switch change.kind {
    case .modelAdded:
      return .concatenating(
        [flow, .literal(" "), .escaping("v\(change.modelVersion ?? 0)"), .literal(" added")] + description())
    case .modelRemoved:
      return .concatenating([
        flow, .literal(" "), .escaping("v\(change.previousModelVersion ?? 0)"), .literal(" removed"),
      ])
    case .modelChanged:
      let versions: MarkdownText =
        change.previousModelVersion == change.modelVersion
        ? .concatenating([.escaping("v\(change.modelVersion ?? 0)"), .literal(": the model file changed")])
        : .escaping("v\(change.previousModelVersion ?? 0) → v\(change.modelVersion ?? 0)")
      return .concatenating([flow, .literal(" "), versions] + description())
    case .bundleIdentifiersChanged, .featuresChanged:
      var parts: [MarkdownText] = [
        .literal(change.kind == .featuresChanged ? "Features: " : "Bundle identifiers: ")
      ]
      if let added = change.added, !added.isEmpty { parts += [.literal("added ")] + list(added) }
      if let removed = change.removed, !removed.isEmpty {
        if change.added?.isEmpty == false { parts.append(.literal("; ")) }
        parts += [.literal("removed ")] + list(removed)
      }
      return .concatenating(parts)
    case .firstRelease:
      return .concatenating(
        [.literal("First release, with ContextSDK "), .escaping(change.sdkVersion ?? ""), .literal(" for ")]
          + list(change.added ?? []))
    case .sdkVersionChanged:
      return .concatenating([
        .literal("ContextSDK "), .escaping(change.previousSDKVersion ?? ""), .literal(" → "),
        .escaping(change.sdkVersion ?? ""),
      ])
    case .modelManifestURLChanged, .repositoryURLChanged:
      guard let url = change.url else { return .escaping(change.summary) }
      let what: MarkdownText =
        change.kind == .modelManifestURLChanged
        ? .literal("Models over the air from ") : .literal("Added from ")
      return .concatenating([what, .codeSpan(url)])
    case .previousContentsUnknown, .noListedChange, .sdkCodeChanged:
      return .escaping(change.summary)
    }
  }

  /// The SDK's `CHANGELOG.md` (as `release bump` writes it: `## <version> - <date>` sections of
  /// `- ` items) as items by version. Lines that are not items are kept as items too, so
  /// nothing written under a version is lost.
  public static func sections(ofSDKChangelog text: String) -> [String: [String]] {
    var sections: [String: [String]] = [:]
    var current: String?
    for line in text.components(separatedBy: "\n") {
      if line.hasPrefix("## ") {
        let heading = line.dropFirst(3).trimmingCharacters(in: .whitespaces)
        let version = String(heading.prefix { $0 != " " })
        current = version
        if sections[version] == nil { sections[version] = [] }
        continue
      }
      if line.hasPrefix("# ") {
        current = nil
        continue
      }
      guard let version = current else { continue }
      let trimmed = line.trimmingCharacters(in: .whitespaces)
      guard !trimmed.isEmpty else { continue }
      sections[version, default: []].append(
        trimmed.hasPrefix("- ") || trimmed.hasPrefix("* ") ? String(trimmed.dropFirst(2)) : trimmed)
    }
    return sections
  }
}
