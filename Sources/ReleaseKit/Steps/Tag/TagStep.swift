import Foundation
import ReleaseSystem

/// After every customer of the run built, tested and published: annotated tags
/// `<id>/v<version>` for each released customer and `v<sdk version>` for the SDK, on HEAD of
/// the project repository; pushed only with `--push`. Never runs when anything failed.
struct TagStep: Step {
  let name = "tag"
  let changesState = true

  func skipReason(_ context: ReleaseContext) -> String? {
    if !context.options.tag { return "tags are made by publishing runs (--publish) or --tag" }
    if context.jobs.contains(where: { $0.status != .succeeded && $0.status != .upToDate }) {
      return "a customer did not succeed; nothing is tagged"
    }
    return nil
  }

  func dryRunDescription(_ context: ReleaseContext) -> [String] {
    tags(context).map { "would tag \($0.name)" + (context.options.push ? " and push it" : "") }
  }

  func tags(_ context: ReleaseContext) -> [(name: String, message: String)] {
    var tags = context.jobs.map { job in
      ("\(job.id)/v\(job.version)", "\(job.customer.packageName) \(job.version) (SDK \(context.inputs?.sdkVersion.description ?? "?"))")
    }
    if let sdk = context.inputs?.sdkVersion { tags.append(("v\(sdk)", "SDK \(sdk)")) }
    return tags
  }

  func run(_ context: ReleaseContext) throws {
    let repository = GitRepository(
      context.services.root, runner: context.services.processRunner, environment: context.services.environment)
    if !context.options.allowDirty { try repository.requireClean() }
    let head = try repository.head()
    var created: [String] = []
    for tag in tags(context) where try repository.tag(tag.name, at: head, message: tag.message) {
      created.append(tag.name)
    }
    context.reporter.report(.info(created.isEmpty ? "tags already in place" : "tagged \(created.joined(separator: ", "))"))
    if context.options.push, let remote = context.options.remote {
      let names = tags(context).map { "refs/tags/\($0.name)" }
      try repository.run(["push", remote] + names)
      context.reporter.report(.info("pushed \(names.count) tags to \(remote)"))
    }
  }
}
