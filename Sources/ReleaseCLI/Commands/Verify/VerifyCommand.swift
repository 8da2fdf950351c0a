import Foundation
import ReleaseAlignment
import ReleaseArchive
import ReleaseBuild
import ReleaseCore
import ReleaseGeneration
import ReleaseJSON
import ReleaseManifest
import ReleaseModels
import ReleasePipeline
import ReleaseReporting
import ReleaseSettings
import ReleaseSigning
import ReleaseSystem

/// `release verify <zip | release dir | dist dir | release.json>`: checks generated packages
/// the way a customer's engineer would, before they go out. Content checks first (safe
/// archive, checksums, every file accounted for, exactly the customer's models, no other
/// model of the store); then, unless `--no-build`, the extracted package is built and tested
/// in a temporary directory and a consumer package that depends on it by path is built and
/// run, calling the SDK for each of the customer's flows.
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
    guard !parsed.positionals.isEmpty else {
      throw ReleaseError.usage(
        "verify: expected a zip, a release directory, a dist directory or a release.json; found none")
    }
    let defaults = InputSettings()
    paths = parsed.positionals
    build = !parsed.flag(Options.noBuild)
    manifestPath = parsed.value(Options.manifest) ?? defaults.manifestPath
    modelsPath = parsed.value(Options.storeDirectory) ?? defaults.modelsPath
    maximumModelSize = try parsed.size(Options.maxModelSize) ?? defaults.maximumModelSize
    templatesPath = parsed.value(Options.templates) ?? defaults.templatesPath
    statePath = parsed.value(Options.state) ?? defaults.statePath
    timeout = try parsed.duration(Options.timeout) ?? BuildSettings().timeout
    settings = try SettingsResolution(parsed, invocation).verify()
  }
}

enum VerifyCommand {
  struct Failed: Error, CustomStringConvertible {
    let count: Int
    var description: String { "\(count) release\(count == 1 ? "" : "s") failed verification" }
  }

  static func run(_ options: VerifyOptions, _ invocation: CommandInvocation) throws {
    let services = invocation.services
    let releases = try options.paths.flatMap { try findReleases($0, services: services) }
    let inputs = try VerifyInputs.load(options, services: services)
    let reproduction = try Reproduction(options, inputs: inputs, services: services)
    var failed = 0
    for release in releases {
      if !verify(release, inputs: inputs, reproduction: reproduction, options: options, services: services) {
        failed += 1
      }
    }
    services.output.write(
      line:
        "\(releases.count - failed) of \(releases.count) release\(releases.count == 1 ? "" : "s") verified",
      to: .standardOutput)
    if failed > 0 { throw ReleaseError.stepFailed(step: "verify", reason: Failed(count: failed).description) }
  }

  /// Verifies one release, writing what it finds: its contents compared with release.json and
  /// the manifest, then its package reproduced from the inputs, then built and run. Whether
  /// it passed.
  private static func verify(
    _ release: ReleaseLocation, inputs: VerifyInputs, reproduction: Reproduction, options: VerifyOptions,
    services: Services
  ) -> Bool {
    let output = services.output
    let directory = release.directory
    let record: ReleaseRecord
    do {
      record = try ReleaseRecord.load(from: directory.appendingPathComponent(ReleaseRecord.fileName))
    } catch {
      // One unreadable release.json fails that release; the others are still verified.
      output.write(line: "verify \(directory.path)", to: .standardOutput)
      output.write(line: "  FAIL \(error)", to: .standardError)
      return false
    }
    output.write(
      line: "verify \(record.customer.id) \(record.version) (\(directory.path))", to: .standardOutput)
    let customer = inputs.manifest.customer(matching: record.customer.id)
    var problems = compare(
      release, record: record, customer: customer, inputs: inputs, options: options, output: output)
    // Before any of its code runs: the package must be exactly what the template makes.
    if problems.isEmpty, let customer {
      problems += reproduction.problems(record: record, customer: customer, releaseDirectory: directory)
    }
    // What the code under check printed when it failed.
    var printed: [String] = []
    if problems.isEmpty {
      (problems, printed) = build(
        directory, record: record, inputs: inputs, options: options, services: services)
    }
    report(problems, printed: printed, services: services)
    return problems.isEmpty
  }

  /// The release against its manifest entry, release.json and its signature.
  private static func compare(
    _ release: ReleaseLocation, record: ReleaseRecord, customer: Customer?, inputs: VerifyInputs,
    options: VerifyOptions, output: OutputStreaming
  ) -> [String] {
    let directory = release.directory
    var problems: [String] = []
    if let named = release.namedArchive, named != record.artifact.file {
      problems.append("\(named): release.json beside it describes \(record.artifact.file), not this file")
    }
    let manifestPath = options.manifestPath
    if customer == nil {
      problems.append("\(record.customer.id): not a customer in \(manifestPath)")
    } else if customer?.appID.lowercased() != record.customer.appID.lowercased() {
      problems.append("\(record.customer.id): app_id \(record.customer.appID) differs from \(manifestPath)")
    }
    let scans = PackageContentScans(
      customerID: record.customer.id, manifest: inputs.manifest, templateWords: inputs.templateWords)
    let checks = ArtifactChecks(
      store: inputs.storeModels, features: inputs.template.features, customer: customer, scans: scans)
    problems += checks.problems(releaseDirectory: directory, record: record)
    problems += signatureProblems(directory, record: record, options: options, output: output)
    return problems
  }

  /// The zip's signature: a problem when it fails or is missing though the release was
  /// published signed; a line of its own when it is checked or cannot be.
  private static func signatureProblems(
    _ directory: URL, record: ReleaseRecord, options: VerifyOptions, output: OutputStreaming
  ) -> [String] {
    switch ArtifactChecks.signature(
      releaseDirectory: directory, archive: record.artifact.file, trusted: options.settings.trustedKeys)
    {
    case .unsigned:
      return missingSignature(directory, record: record, trusted: options.settings.trustedKeys).map { [$0] }
        ?? []
    case .unchecked(let file):
      output.write(
        line:
          "  note \(file) not checked: \(options.settings.configurationPath) trusts no key (signing.trustedKeys)",
        to: .standardOutput)
    case .signed(let file, let key):
      output.write(
        line: "  ok  \(file): signed by key \(key.keyID) (\(key.sshFingerprint))", to: .standardOutput)
    case .failed(let problem): return [problem]
    }
    return []
  }

  /// The contents passed: says so, then, unless `--no-build`, builds and runs the package.
  /// The problem and what the code under check printed, when it failed.
  private static func build(
    _ directory: URL, record: ReleaseRecord, inputs: VerifyInputs, options: VerifyOptions, services: Services
  ) -> (problems: [String], printed: [String]) {
    services.output.write(
      line:
        "  ok  archive safe; sha256 and size match; \(record.files.count) files accounted for; models exactly "
        + record.models.map { "\($0.flowName) v\($0.modelVersion)" }.joined(separator: ", ")
        + "; no other of the store's \(inputs.storeModels.count) models inside"
        + (record.features.map { "; features \($0.joined(separator: ", ")) and no other feature's code" }
          ?? ""),
      to: .standardOutput)
    guard options.build else { return ([], []) }
    do {
      try buildAndConsume(
        directory: directory, record: record, services: services,
        timeLimit: options.timeout)
    } catch let failure as BuildFailure {
      return ([failure.message], failure.output)
    } catch {
      return (["\(error)"], [])
    }
    return ([], [])
  }

  /// The release's problems, then what the code under check printed.
  private static func report(_ problems: [String], printed: [String], services: Services) {
    let output = services.output
    for problem in problems { output.write(line: "  FAIL \(problem)", to: .standardError) }
    if !printed.isEmpty {
      // The package's own output: under GitHub Actions fenced like a build log, so it runs
      // no workflow command.
      let indented = printed.map { "    \($0)" }
      if services.environment["GITHUB_ACTIONS"] == "true" {
        GitHubActionsReporter.writeFenced(indented, output: output, stream: .standardError)
      } else {
        output.write(lines: indented, to: .standardError)
      }
    }
  }

  /// With trusted keys, a release whose receipt says it was published signed and whose `.sig`
  /// is not beside the zip (or a receipt that cannot be read): the problem, else nil.
  static func missingSignature(_ directory: URL, record: ReleaseRecord, trusted: [PublicKey]) -> String? {
    guard !trusted.isEmpty else { return nil }
    let signature = record.artifact.file + ReleaseSignature.suffix
    let receipt: PublishReceipt?
    do { receipt = try PublishReceipt.load(from: directory) } catch { return error.description }
    guard let receipt else { return nil }
    guard receipt.signature == signature else {
      return "\(PublishReceipt.fileName): names the signature \(receipt.signature), expected \(signature)"
    }
    return
      "\(signature): missing, and \(PublishReceipt.fileName) says this release was published signed; restore the signature from the destination (\(signature) beside the zip)"
  }

  /// Regenerates a release's package from the manifest, the model store and the template (as
  /// `release all` does) and compares the archive with it.
  struct Reproduction {
    let store: ModelStore
    let template: PackageTemplate
    let templatesPath: String
    /// The `git:` destination of release.config.json: its URL is in the package's README.
    let repositoryTemplate: String?
    /// What packages embed from the settings: the public URL, the pinned keys, the legacy
    /// manifests, the allowed signers URL.
    let settings: PackageSettings
    let signals: [String: String]
    let state: ReleaseState
    let sdkChangelog: [String: [String]]
    let root: URL

    /// As `release all` would make the packages: with the settings' URLs and keys, the
    /// configuration's repository, the template's signals and the state's recorded releases.
    init(_ options: VerifyOptions, inputs: VerifyInputs, services: Services) throws {
      let templates = options.templatesPath
      self.store = inputs.store
      self.template = inputs.template
      self.templatesPath = templates
      self.repositoryTemplate = options.settings.packages.releasesRepository
      self.settings = options.settings.packages
      self.signals = try SignalCatalog.load(from: inputs.template, templatesPath: templates).introduced
        .mapValues(
          \.description)
      self.state = try ReleaseState.load(
        from: services.resolve(options.statePath), displayPath: options.statePath)
      self.sdkChangelog = try CustomerReleaseNotes.sdkChangelog(
        at: services.resolve(InputSettings.sdkChangelogPath), displayPath: InputSettings.sdkChangelogPath)
      self.root = services.root
    }

    func problems(record: ReleaseRecord, customer: Customer, releaseDirectory: URL) -> [String] {
      var problems = ReproductionCheck.recordProblems(record, customer: customer, version: record.version)
      do {
        let facts = try LoadInputsStep.readModels(of: [customer], store: store, storePath: store.displayName)
          .facts
        // A directory store has every model it lists or throws: none is left out as unavailable.
        let models = customer.customModels.map { facts[$0.reference]!.embedded(as: $0) }
        guard let version = SemanticVersion(record.version), let sdk = SemanticVersion(template.sdkVersion)
        else {
          return problems + ["release.json: version \(record.version) is not a version this tool releases"]
        }
        let repositoryURL = repositoryTemplate.map {
          ReleasesRepository.url(template: $0, id: customer.id, root: root)
        }
        let modelManifestURL = settings.modelManifestURL(for: customer.id)
        let manifestURL = state.channels[customer.id].flatMap { settings.manifestURL(channel: $0) }
        let features = template.features.features(of: customer)
        let notes = CustomerReleaseNotes(
          customer: customer, version: version, sdkVersion: sdk, models: facts,
          recorded: state.customers[customer.id], sdkChangelog: sdkChangelog,
          templateDigest: template.digest(for: features), modelManifestURL: modelManifestURL,
          repositoryURL: repositoryURL, features: features.map(\.name))
        let input = GenerationInput(
          customer: customer, version: record.version, sdkVersion: template.sdkVersion, models: models,
          repositoryURL: repositoryURL, modelManifestURL: modelManifestURL,
          trustedKeys: manifestURL == nil ? nil : settings.pinnedKeys, manifestURL: manifestURL,
          signatureCheck: settings.signatureCheck,
          trustedRoot: manifestURL == nil ? nil : settings.embeddedRoot, signals: signals,
          releaseNotes: notes.notes)
        problems += ReproductionCheck.archiveProblems(
          releaseDirectory.appendingPathComponent(record.artifact.file),
          topLevelDirectory: customer.packageName,
          expected: try PackageGenerator.files(input, template: template))
      } catch {
        problems.append("cannot generate the package from \(templatesPath) to compare with: \(error)")
      }
      return problems
    }
  }

  /// A release to verify: its directory, and the archive's file name when the argument
  /// named the zip itself.
  struct ReleaseLocation: Equatable {
    var directory: URL
    var namedArchive: String? = nil
  }

  /// Releases named by an argument: a zip or release.json (its directory), a release
  /// directory, or a dist directory (every `<id>/<version>/` below it).
  static func findReleases(_ argument: String, services: Services) throws -> [ReleaseLocation] {
    let url = services.resolve(argument)
    var isDirectory: ObjCBool = false
    guard FileManager.default.fileExists(atPath: url.path, isDirectory: &isDirectory) else {
      throw ReleaseError.usage("verify \(argument): no such file or directory")
    }
    if !isDirectory.boolValue {
      guard url.pathExtension == "zip" || url.lastPathComponent == ReleaseRecord.fileName else {
        throw ReleaseError.usage("verify \(argument): expected a .zip, a release.json or a directory")
      }
      return [
        ReleaseLocation(
          directory: url.deletingLastPathComponent(),
          namedArchive: url.pathExtension == "zip" ? url.lastPathComponent : nil)
      ]
    }
    if FileManager.default.fileExists(atPath: url.appendingPathComponent(ReleaseRecord.fileName).path) {
      return [ReleaseLocation(directory: url)]
    }
    var found: [ReleaseLocation] = []
    for id in (try? FileManager.default.contentsOfDirectory(atPath: url.path))?.sorted() ?? []
    where !id.hasPrefix(".") {
      let customer = url.appendingPathComponent(id)
      for version in (try? FileManager.default.contentsOfDirectory(atPath: customer.path))?.sorted() ?? []
      where !version.hasPrefix(".") {
        let release = customer.appendingPathComponent(version)
        if FileManager.default.fileExists(atPath: release.appendingPathComponent(ReleaseRecord.fileName).path)
        {
          found.append(ReleaseLocation(directory: release))
        }
      }
    }
    guard !found.isEmpty else {
      throw ReleaseError.usage("verify \(argument): no release.json in it or in <id>/<version>/ below it")
    }
    return found
  }

  /// Extracts the archive with libarchive's secure flags into a temporary directory, runs
  /// `swift test` there (which builds every target with its tests), then builds and runs a
  /// consumer of it (which builds the SDK as an app does, without testability). A separate
  /// `swift build` first would compile the package twice and show nothing more. The two builds
  /// share one module cache, so the consumer does not compile the system modules again; it is
  /// the package's own, never another package's (each package checked is untrusted code).
  static func buildAndConsume(
    directory: URL, record: ReleaseRecord, services: Services, timeLimit: Double
  ) throws {
    let scratch = try TemporaryFiles.shared.makeDirectory(prefix: "release-verify")
    defer { try? FileManager.default.removeItem(at: scratch) }
    let package = try ZipReader.extract(
      directory.appendingPathComponent(record.artifact.file), into: scratch.appendingPathComponent("package"))
    let log = scratch.appendingPathComponent("verify.log")
    let home = scratch.appendingPathComponent("home")
    let temporary = scratch.appendingPathComponent("tmp")
    try AtomicFile.createDirectory(home)
    try AtomicFile.createDirectory(temporary)
    let environment = UntrustedBuildEnvironment.make(
      from: services.environment, home: home, temporary: temporary)
    func invocation(_ program: String, _ arguments: [String], in directory: URL, log: URL?)
      -> ProcessInvocation
    {
      ProcessInvocation(
        program, arguments, in: directory, environment: environment, logFile: log, timeLimit: timeLimit,
        timeLimitOption: "--timeout")
    }
    // Indexing the system modules (Foundation, XCTest) finds no tests of the package's and costs
    // a good part of a cold build; `release all` leaves them out too.
    let flags = [
      "-Xswiftc", "-module-cache-path", "-Xswiftc", scratch.appendingPathComponent("module-cache").path,
      "-Xswiftc", "-index-ignore-system-modules",
    ]
    func swift(_ arguments: [String], in directory: URL) throws {
      let result = try services.processRunner.run(
        invocation("swift", arguments + flags, in: directory, log: log))
      guard result.exitCode == 0 else {
        throw BuildFailure(
          message: SystemError.processFailed(
            command: "swift " + arguments.joined(separator: " "), exitCode: result.exitCode, logPath: nil
          ).description, output: LogExcerpt.failure(of: log, tail: 15))
      }
    }
    try swift(["test"], in: package)
    let tests = TestCount.parse(log: log).map { " (\($0) tests)" } ?? ""
    services.output.write(
      line: "  ok  swift test of the extracted package\(tests)", to: .standardOutput)

    let consumer = scratch.appendingPathComponent("consumer")
    try ConsumerPackage.generate(
      sdkPackage: package, sdkPackageName: record.packageName,
      flows: record.models.map { .init(flowName: $0.flowName, modelVersion: $0.modelVersion) },
      allowedBundleIdentifier: record.customer.bundleIdentifiers.first ?? "", into: consumer)
    try swift(["build"], in: consumer)
    let binary = try services.processRunner.run(
      invocation("swift", ["build", "--show-bin-path"], in: consumer, log: nil))
    guard binary.exitCode == 0 else {
      throw SystemError.processFailed(
        command: "swift build --show-bin-path", exitCode: binary.exitCode, logPath: nil)
    }
    let run = try services.processRunner.run(
      invocation(
        binary.standardOutput.trimmingCharacters(in: .whitespacesAndNewlines) + "/Consumer", [], in: consumer,
        log: nil))
    guard run.exitCode == 0 else {
      throw BuildFailure(
        message: "the consumer package failed (exit \(run.exitCode))",
        output: (run.standardError + run.standardOutput).trimmingCharacters(in: .whitespacesAndNewlines)
          .split(separator: "\n", omittingEmptySubsequences: false).map(String.init))
    }
    let calls = run.standardOutput.split(separator: "\n").filter { $0.hasPrefix("ok ") }.count
    services.output.write(
      line: "  ok  a consumer depending on it by path builds and calls the SDK (\(calls) checks passed)",
      to: .standardOutput)
  }

  /// The package under check or its consumer failed to build or run: `message` is one line,
  /// `output` what that code printed last (its log's tail, or its output), printed apart from
  /// the message because it is the code's text, not the tool's.
  struct BuildFailure: Error, CustomStringConvertible {
    let message: String
    let output: [String]
    var description: String { ([message] + output.map { "    \($0)" }).joined(separator: "\n") }
  }
}

/// The environment `release verify` builds and runs a package in: the package is the code under
/// check, so it sees only what SwiftPM needs to find the toolchain and a home and temp dir of
/// its own — no SSH agent, no cloud credentials, no tokens, nothing else of the user's.
enum UntrustedBuildEnvironment {
  /// Variables passed through when set: where programs are, the locale, and on macOS which
  /// Xcode and SDK to use.
  static let allowed: Set<String> = [
    "PATH", "LANG", "LC_ALL", "LC_CTYPE", "LC_MESSAGES", "TERM", "DEVELOPER_DIR", "SDKROOT", "TOOLCHAINS",
  ]

  static func make(from environment: [String: String], home: URL, temporary: URL) -> [String: String] {
    var allowed = environment.filter { Self.allowed.contains($0.key) }
    allowed["HOME"] = home.path
    allowed["TMPDIR"] = temporary.path
    return allowed
  }
}
