import Foundation
import ReleaseCore
import ReleaseManifest
import ReleaseOTA
import ReleaseSystem

/// Decides, per selected customer, the version and whether to build: a customer whose
/// `dist/<id>/<version>/release.json` records the same build digest, and whose archive still
/// has the recorded SHA-256, is up to date (unless `--force`).
package struct PlanStep: RequiredStep {
  package let name = "plan"

  package init() {}

  package struct Input: Sendable {
    var inputs: ReleaseInputs
    /// `release merge`: the shard whose dist/ holds each customer's release (`LoadShardsStep`).
    var origins: [String: MergeOrigin] = [:]

    package init(inputs: ReleaseInputs, origins: [String: MergeOrigin] = [:]) {
      self.inputs = inputs
      self.origins = origins
    }
  }

  package func run(_ input: Input, _ context: ReleaseContext) throws -> ReleasePlan {
    let inputs = input.inputs
    let state = inputs.state
    // The first process the run starts: every input check before it runs none.
    let toolchain = try Self.toolchainVersion(context.services)
    var limitReached: [String] = []
    let channels = try Self.channels(of: inputs.manifest.customers, state: state, context)
    let customers = inputs.manifest.customers.map { customer in
      let features = inputs.template.features.features(of: customer)
      var digest = Self.inputDigest(
        of: customer, features: features, inputs, toolchain: toolchain, channel: channels[customer.id],
        context)
      digest.trustedRoot = channels[customer.id] == nil ? nil : context.settings.packages.embeddedRoot
      let last = state.customers[customer.id].map { ($0.version, $0.sourceDigest) }
      if let last, last.1 != digest.source,
        VersionRule.patchLimitReached(last: last.0, sdkVersion: inputs.sdkVersion)
      {
        limitReached.append(
          "\(context.settings.inputs.statePath): customers.\(customer.id): \(last.0) cannot take another patch release (each part has at most 9 digits); release a new SDK version (release bump minor)"
        )
      }
      let version = VersionRule.nextVersion(
        last: last, sdkVersion: inputs.sdkVersion, sourceDigest: digest.source)
      let notes = CustomerReleaseNotes(
        customer: customer, version: version, sdkVersion: inputs.sdkVersion, models: inputs.models,
        recorded: state.customers[customer.id], sdkChangelog: inputs.sdkChangelog,
        templateDigest: digest.template, modelManifestURL: digest.modelManifestURL,
        repositoryURL: digest.repositoryURL, features: features.map(\.name))
      digest.releaseNotes = notes.digest
      let job = CustomerJob(
        customer: customer, version: version, digest: digest, reason: "", releaseNotes: notes,
        features: features)
      return result(of: job, lastReleased: last, inputs, origin: input.origins[customer.id], context)
    }
    if !limitReached.isEmpty { throw ReleaseError.invalidInputs(limitReached) }
    Self.report(customers, context)
    return ReleasePlan(inputs: inputs, toolchain: toolchain, customers: customers)
  }

  /// What a customer's release is made from, its digests.
  private static func inputDigest(
    of customer: Customer, features: [Feature], _ inputs: ReleaseInputs, toolchain: String, channel: String?,
    _ context: ReleaseContext
  ) -> InputDigest {
    let settings = context.settings
    let packages = settings.packages
    return InputDigest(
      customer: customer, features: features.map(\.name), models: inputs.models,
      templateDigest: inputs.template.digest(for: features),
      sdkVersion: inputs.sdkVersion, toolchain: toolchain,
      repositoryURL: packages.releasesRepository.map {
        ReleasesRepository.url(template: $0, id: customer.id, root: context.services.root)
      }, modelManifestURL: packages.modelManifestURL(for: customer.id),
      trustedKeys: packages.pinnedKeys,
      manifestURL: channel.flatMap { packages.manifestURL(channel: $0) },
      signatureCheck: packages.signatureCheck,
      archiveModificationTime: settings.build.archiveModificationTime)
  }

  /// Where `job` starts: up to date when its release is in dist/ (a merge's: the dist/ of the
  /// shard that built it, and builds nothing), failed when its models could not be fetched,
  /// else pending; the job's reason says why.
  private func result(
    of planned: CustomerJob, lastReleased last: (SemanticVersion, String)?, _ inputs: ReleaseInputs,
    origin: MergeOrigin?, _ context: ReleaseContext
  ) -> CustomerResult {
    let customer = planned.customer
    let dist = origin?.dist ?? context.distDirectory
    let (record, reason) = decide(
      customer: customer, version: planned.version, lastReleased: last, digest: planned.digest, in: dist,
      named: origin?.displayPath ?? context.settings.inputs.distPath, context: context)
    let missing = customer.customModels.compactMap { inputs.unavailableModels[$0.reference] }
    let status: CustomerResult.Status =
      !missing.isEmpty
      ? .failed(step: "fetch models", reason: missing.joined(separator: "; "))
      : record == nil ? .pending : .upToDate
    var job = planned
    job.reason = missing.isEmpty ? reason : missing.joined(separator: "; ")
    return CustomerResult(
      job: job, status: status,
      archive: record.map {
        .init(
          path: job.releaseDirectory(in: dist).appendingPathComponent($0.artifact.file),
          sha256: $0.artifact.sha256, size: $0.artifact.size)
      }, testCount: record?.testCount)
  }

  /// The plan as reported: every customer with its action. Up-to-date customers are done
  /// already, and customers whose models could not be fetched have failed: each is reported as
  /// such (`customer_skipped` or `customer_failed` under --json) instead of going through the
  /// customer steps.
  private static func report(_ customers: [CustomerResult], _ context: ReleaseContext) {
    context.reporter.report(
      .plan(
        customers.map {
          .init(
            id: $0.id, version: $0.job.version.description,
            action: $0.status == .upToDate ? .upToDate : $0.status == .pending ? .build : .fail,
            reason: $0.job.reason)
        }))
    for result in customers where result.status != .pending && !context.settings.mode.isMerge {
      context.reporter.report(.customerFinished(result.outcome(relativeTo: context.services.root)))
    }
  }

  /// Each customer's signed channel id, when packages get the signed channel (trusted keys and
  /// a public URL): the one release-state.json records, else a new one, recorded there (under
  /// the state file's lock, read again under it, written atomically) before any package is
  /// generated, so a package never names a channel the committed state does not hold. A dry run
  /// says which it would make and writes nothing.
  static func channels(of customers: [Customer], state: ReleaseState, _ context: ReleaseContext) throws
    -> [String: String]
  {
    let settings = context.settings
    guard settings.hasSignedChannel else { return [:] }
    for (id, channel) in state.channels.sorted(by: { $0.key < $1.key })
    where !SignedOTAChannel.isChannelID(channel) {
      throw ReleaseError.invalidInput(
        "\(settings.inputs.statePath): channels.\(id): found \"\(channel.prefix(40))\", expected 32 lower-case hex digits (a channel id the tool made)"
      )
    }
    let missing = customers.map(\.id).filter { state.channels[$0] == nil }
    if missing.isEmpty { return state.channels }
    if settings.dryRun {
      var channels = state.channels
      for id in missing {
        context.reporter.report(.info("would make a channel for \(id)"))
        channels[id] = SignedOTAChannel.makeChannelID()
      }
      return channels
    }
    let url = context.services.resolve(settings.inputs.statePath)
    let lock = try ReleaseState.lock(url)
    return try withExtendedLifetime(lock) {
      var current = try ReleaseState.load(from: url, displayPath: settings.inputs.statePath)
      var made: [String] = []
      for id in missing where current.channels[id] == nil {
        current.channels[id] = SignedOTAChannel.makeChannelID()
        made.append(id)
      }
      if !made.isEmpty {
        try AtomicFile.write(try current.encoded(), to: url)
        context.reporter.report(
          .info(
            "made a signed channel for \(made.joined(separator: ", ")) in \(settings.inputs.statePath); commit it"
          ))
      }
      return current.channels
    }
  }

  private func decide(
    customer: Customer, version: SemanticVersion, lastReleased: (SemanticVersion, String)?,
    digest: InputDigest, in dist: URL, named distName: String, context: ReleaseContext
  ) -> (upToDate: ReleaseRecord?, reason: String) {
    let directory = dist.appendingPathComponent(customer.id).appendingPathComponent(version.description)
    let why = versionReason(
      version: version, lastReleased: lastReleased, digest: digest, customer: customer, context: context)
    guard let record = try? ReleaseRecord.load(from: directory.appendingPathComponent(ReleaseRecord.fileName))
    else { return (nil, "\(why); not in \(distName)/ yet") }
    if context.settings.build.force { return (nil, "\(why); --force") }
    if record.inputs != digest {
      let changed = digest.changes(since: record.inputs).joined(separator: ", ")
      return (nil, "\(why); changed since the build in \(distName)/: \(changed)")
    }
    let archive = directory.appendingPathComponent(record.artifact.file)
    guard let actual = try? SHA256Digest.hex(ofFileAt: archive), actual == record.artifact.sha256 else {
      return (
        nil,
        "\(why); the archive in \(distName)/ is missing or does not match its release.json"
      )
    }
    return (record, "\(why); \(distName)/ holds a verified build of the same inputs")
  }

  /// Why the version is what it is; for a new version, which inputs changed since the last
  /// release, when that release's record is still in `dist/` to compare with.
  private func versionReason(
    version: SemanticVersion, lastReleased: (SemanticVersion, String)?, digest: InputDigest,
    customer: Customer,
    context: ReleaseContext
  ) -> String {
    guard let (last, _) = lastReleased else { return "first release" }
    if last == version { return "unchanged since \(last)" }
    let previous = context.distDirectory.appendingPathComponent(customer.id).appendingPathComponent(
      last.description
    )
    .appendingPathComponent(ReleaseRecord.fileName)
    guard let record = try? ReleaseRecord.load(from: previous) else { return "changed since \(last)" }
    // Only what the source digest covers moves versions.
    let changes = digest.changes(since: record.inputs).filter {
      $0 != "toolchain" && $0 != "tool version" && !$0.hasPrefix("archive time")
    }
    return "changed since \(last): " + (changes.isEmpty ? "inputs" : changes.joined(separator: ", "))
  }

  static func toolchainVersion(_ services: Services) throws -> String {
    // Like every child process, without credentials (the process environment would pass them).
    let result = try services.processRunner.runWithOwnTemporaryDirectory(
      ProcessInvocation(
        "swift", ["--version"], environment: ChildEnvironment.withoutSecrets(services.environment)))
    let text = result.standardOutput.isEmpty ? result.standardError : result.standardOutput
    // All of it: the compiler's version and build, and the target it builds for.
    let lines = text.split(separator: "\n").map { $0.trimmingCharacters(in: .whitespaces) }.filter {
      !$0.isEmpty
    }
    guard result.exitCode == 0, !lines.isEmpty else {
      throw ReleaseError.invalidInput(
        "swift --version: exited with status \(result.exitCode); expected a toolchain")
    }
    return lines.joined(separator: "; ")
  }
}
