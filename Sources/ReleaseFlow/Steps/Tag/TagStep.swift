import Foundation
import ReleaseCore
import ReleasePipeline
import ReleasePublishing
import ReleaseSystem

/// One tag a tagging run wants.
struct PlannedTag: Equatable {
  var name: String
  var message: String
  /// The message line that identifies what was released.
  var marker: String
}

struct TagPlan {
  /// The commit new tags go on.
  var head: String
  var create: [PlannedTag] = []
  /// Tags already where they belong: name → commit.
  var inPlace: [(name: String, commit: String)] = []
  /// Every tag of the run, in order (pushed with --push).
  var names: [String] = []
}

/// The tags of a release in the project repository: an annotated `<id>/v<version>` per
/// customer of the run and `v<sdk version>` for the SDK, all on one commit that records the
/// release in `release-state.json` (release-please's flow: versions are committed first, then
/// that commit is tagged).
///
/// A tag that already exists is fine when it points at HEAD (a rerun), or when it was made
/// for the same release at an earlier commit: its message carries the release's source digest
/// (the template digest for the SDK tag), so a customer that did not change since keeps its
/// tag where it is. Anything else is an error: a released version never moves.
enum ReleaseTags {
  static func repository(_ context: ReleaseContext) -> GitRepository {
    GitRepository(
      context.services.root, runner: context.services.processRunner, environment: context.services.environment
    )
  }

  static func sourceMarker(_ digest: String) -> String { "release-source-digest: \(digest)" }
  static func templateMarker(_ digest: String) -> String { "release-template-digest: \(digest)" }

  /// What the run tags: each of `jobs`, then the SDK.
  static func planned(_ jobs: [CustomerJob], _ inputs: ReleaseInputs) -> [PlannedTag] {
    var tags = jobs.map { job -> PlannedTag in
      let marker = sourceMarker(job.digest.source)
      return PlannedTag(
        name: "\(job.id)/v\(job.version)",
        message: "\(job.customer.packageName) \(job.version) (SDK \(inputs.sdkVersion))\n\n\(marker)\n",
        marker: marker)
    }
    let marker = templateMarker(inputs.templateDigest)
    tags.append(
      PlannedTag(
        name: "v\(inputs.sdkVersion)", message: "ContextSDK \(inputs.sdkVersion)\n\n\(marker)\n",
        marker: marker))
    return tags
  }

  /// Sorts the run's tags into those to create on `head` and those already in place; throws
  /// for a tag that exists elsewhere for another release.
  static func plan(
    _ jobs: [CustomerJob], _ inputs: ReleaseInputs, _ repository: GitRepository, head: String
  ) throws -> TagPlan {
    let existing = try repository.tags()
    var plan = TagPlan(head: head)
    for tag in planned(jobs, inputs) {
      plan.names.append(tag.name)
      guard let found = existing[tag.name] else {
        plan.create.append(tag)
        continue
      }
      if found.commit == head {
        plan.inPlace.append((tag.name, head))
        continue
      }
      let lines = try repository.message(ofTag: found).split(separator: "\n").map {
        $0.trimmingCharacters(in: .whitespaces)
      }
      guard lines.contains(tag.marker) else {
        throw GitRepository.GitError.tagOnOtherCommit(tag: tag.name, tagged: found.commit, expected: head)
      }
      plan.inPlace.append((tag.name, found.commit))
    }
    return plan
  }

}

/// Before anything is built, a tagging run (`--tag`, implied by `--publish`) checks what it
/// can: a git work tree with a commit; unless `--allow-dirty`, no uncommitted changes and a
/// `release-state.json` that already records every version the run releases (so the tagged
/// commit holds the state); no tag of the run on another commit for another release; with
/// `--push`, a reachable remote without conflicting tags. A refusal writes nothing (exit 2).
/// Returns the plan, with under `--publish-passed` the customers the commit does not record
/// failed, and the tags to make.
struct TagCheckStep: Step {
  let name = "check tags"

  struct Checked: Sendable {
    var plan: ReleasePlan
    var tags: TagPlan
  }

  func skipReason(_ plan: ReleasePlan, _ context: ReleaseContext) -> String? {
    context.settings.publishing.tag ? nil : "no tags in this run (--tag or --publish)"
  }

  let isPreflightCheck = true

  func run(_ plan: ReleasePlan, _ context: ReleaseContext) throws -> Checked {
    var plan = plan
    let settings = context.settings
    let repository = ReleaseTags.repository(context)
    let root = context.services.root.path
    guard repository.isWorkTree() else {
      throw ReleaseError.invalidInput(
        "--tag: \(root) is not in a git work tree; tags go into the project repository (git init and commit it, or release without --tag/--publish)"
      )
    }
    let head: String
    do { head = try repository.head() } catch is GitRepository.GitError {
      throw ReleaseError.invalidInput("--tag: \(root) has no commit to tag yet; commit the project first")
    }
    if !settings.publishing.allowDirty {
      try ReleaseError.badInput(when: Self.gitRefusal()) { try repository.requireClean() }
      var unrecorded = plan.inputs.unrecorded(plan.jobs)
      if settings.publishing.publishPassed {
        // Each customer ships when it is ready: one the commit does not record cannot be
        // tagged from it, so it does not ship in this run; the others do.
        let refused = Set(unrecorded.map(\.id))
        for index in plan.customers.indices where refused.contains(plan.customers[index].id) {
          let job = plan.customers[index].job
          plan.customers[index].status = .failed(
            step: name,
            reason:
              "\(settings.inputs.statePath) at this commit does not record \(job.id) \(job.version); release it without --publish, commit the state, then publish"
          )
        }
        unrecorded = []
      }
      if !unrecorded.isEmpty {
        let releases = unrecorded.map { "\($0.id) \($0.version)" }.joined(separator: ", ")
        throw ReleaseError.invalidInput(
          "\(settings.inputs.statePath) does not record \(releases) yet, and a tag must point at a commit that does: release without --tag/--publish (--no-publish), commit \(settings.inputs.statePath), then tag from that commit; or pass --allow-dirty"
        )
      }
    }
    // Every customer of the run while some are to build; else those that ship.
    let jobs =
      plan.customers.contains { $0.status == .pending }
      ? plan.jobs : RunResults.shipping(plan.customers, settings).shipping.map(\.job)
    let tags = try ReleaseError.badInput(when: Self.gitRefusal()) {
      try ReleaseTags.plan(jobs, plan.inputs, repository, head: head)
    }
    if settings.publishing.push, let remote = settings.publishing.remote {
      try checkRemote(remote, plan: tags, repository)
    }
    return Checked(plan: plan, tags: tags)
  }

  /// A dirty work tree, a tag on another commit or an unreachable remote: bad input (exit 2),
  /// found before any work. Other failures (no git at all) stay what they are.
  private static func gitRefusal(prefix: String = "") -> (any Error) -> String? {
    { error in
      guard let error = error as? GitRepository.GitError else { return nil }
      switch error {
      case .dirty, .tagOnOtherCommit: return prefix + error.description
      case .failed: return prefix.isEmpty ? nil : prefix + error.description
      }
    }
  }

  /// The remote answers, and has none of the run's tags with other contents than here.
  private func checkRemote(_ remote: String, plan: TagPlan, _ repository: GitRepository) throws {
    let listing = try ReleaseError.badInput(
      when: Self.gitRefusal(prefix: "--push: cannot reach remote \(remote): ")
    ) {
      // After `--`: a remote from the command line is never read as an option.
      try repository.run(["ls-remote", "--tags", "--", remote])
    }
    var remoteTags: [String: String] = [:]
    for line in listing.split(separator: "\n") {
      let fields = line.split(separator: "\t", maxSplits: 1).map(String.init)
      guard fields.count == 2, fields[1].hasPrefix("refs/tags/"), !fields[1].hasSuffix("^{}") else {
        continue
      }
      remoteTags[String(fields[1].dropFirst("refs/tags/".count))] = fields[0]
    }
    let local = try repository.tags()
    for name in plan.names {
      guard let object = remoteTags[name] else { continue }
      if let mine = local[name], mine.object == object { continue }
      throw ReleaseError.invalidInput(
        "--push: remote \(remote) already has tag \(name) with other contents than this repository; fetch its tags (git fetch --tags \(remote)) and check them"
      )
    }
  }
}

/// After every customer of the run built, tested and published: creates the planned tags on
/// the commit the check found (HEAD), and pushes the run's tags with `--push`. Never runs
/// when anything failed; without `--push` nothing leaves the machine.
struct TagStep: Step {
  let name = "tag"
  let changesState = true

  enum TagError: Error, CustomStringConvertible {
    case headMoved(from: String, to: String)

    var description: String {
      switch self {
      case .headMoved(let from, let to):
        return
          "HEAD moved from \(from.prefix(12)) to \(to.prefix(12)) during the run; nothing was tagged, rerun"
      }
    }
  }

  struct Input: Sendable {
    /// What shipped: tags come after publishing.
    var release: ShippedRelease
    /// What the check before building found; nil when it did not run (no tags in this run)
    /// or, in a dry run, refused (its refusal already shown).
    var checked: TagPlan?
  }

  func skipReason(_ input: Input, _ context: ReleaseContext) -> String? {
    if !context.settings.publishing.tag { return "tags are made by publishing runs (--publish) or --tag" }
    return input.release.results.nothingShipsReason("tagged")
  }

  func dryRunDescription(_ input: Input, _ context: ReleaseContext) -> [String] {
    guard let plan = input.checked else { return [] }
    let push =
      context.settings.publishing.push ? " and push it to \(context.settings.publishing.remote ?? "?")" : ""
    return plan.create.map { "would tag \($0.name) on \(plan.head.prefix(12))\(push)" }
      + plan.inPlace.map { "\($0.name) already tags \($0.commit.prefix(12))" }
  }

  func run(_ input: Input, _ context: ReleaseContext) throws {
    // Outside a dry run, a run that tags has its check's plan or stopped at the check.
    guard let checked = input.checked else { return }
    let repository = ReleaseTags.repository(context).withFallbackIdentity()
    let head = try repository.head()
    // Cleanliness was checked before building; what the run wrote since (dist/, a publish
    // directory inside the project) is its own output, not a change to the tagged commit.
    guard head == checked.head else { throw TagError.headMoved(from: checked.head, to: head) }
    // Again: another run may have tagged since the check.
    // After building, the customers that shipped.
    let plan = try ReleaseTags.plan(
      input.release.releases.map(\.job), input.release.results.inputs, repository, head: head)
    for tag in plan.create { try repository.tag(tag.name, at: head, message: tag.message) }
    let created = plan.create.map(\.name)
    context.reporter.report(
      .info(
        created.isEmpty
          ? "tags already in place: \(plan.names.joined(separator: ", "))"
          : "tagged \(created.joined(separator: ", ")) on \(head.prefix(12))"))
    if context.settings.publishing.push, let remote = context.settings.publishing.remote {
      try repository.run(["push", "--quiet", "--", remote] + plan.names.map { "refs/tags/\($0)" })
      context.reporter.report(.info("pushed \(plan.names.count) tags to \(remote)"))
    }
  }
}
