import Foundation
import ReleaseCore
import ReleaseGeneration
import ReleasePipeline
import ReleaseReporting
import ReleaseSystem

/// Builds and tests the generated package. The first customer of a compile key (see
/// `CompileKey`) gets `swift test` in a warm build slot, and proves the key: the resource bundle
/// SwiftPM made is compared byte for byte with the one the tool predicts. Every further
/// customer of a proven key runs the key's test binary against its own bundle, without
/// SwiftPM; of a key whose proof found a difference, `swift test` like the first. All output
/// goes to the customer's log.
struct SwiftBuildStep: CustomerStep {
  let name = "build and test"
  let slots: BuildSlots
  let compiled: CompiledTests
  /// `swift --version`, part of every compile key.
  let toolchain: String

  /// Set (to anything) in the environment, every proof finds a difference: how the tests show
  /// that a difference makes a key fall back to `swift test`.
  static let simulateDifference = "RELEASE_SIMULATE_BUNDLE_DIFFERENCE"

  func run(_ source: GeneratedSource, for job: CustomerJob, _ context: ReleaseContext) throws -> TestedPackage
  {
    let log = job.scratchLog(in: context.cacheDirectory)
    if context.settings.build.fullBuild {
      try inSlot(source, job, context, refreshBundles: true) { try swift($0, job, context) }
      return TestedPackage(
        source: source, testCount: TestCount.parse(log: log),
        testedBy: context.settings.build.skipTests ? nil : .swiftTest)
    }
    let key = try CompileKey.of(package: source.directory, toolchain: toolchain, flags: flags)
    if context.settings.build.skipTests {
      try buildOnce(key, source, job, context)
      return TestedPackage(source: source, testCount: nil, testedBy: nil)
    }
    switch compiled.claim(key) {
    case .run(let binary):
      try runTestBinary(binary, source, job, context)
      return TestedPackage(
        source: source, testCount: binary.testCount, testedBy: .testBinary(compileKey: key.short))
    case .fallBack, .compiled:
      try inSlot(source, job, context, refreshBundles: true) { try swift($0, job, context) }
    case .prove:
      var learnt: CompiledTests.Claim?
      defer { compiled.resolve(key, learnt) }
      learnt = try prove(key, source, job, context)
    }
    return TestedPackage(source: source, testCount: TestCount.parse(log: log), testedBy: .swiftTest)
  }

  /// Under `--skip-tests`: `swift build` for the key's first customer in this run; a further
  /// customer of the key waits for it and builds nothing, since it differs only in resources
  /// (the key covers every compiled input). A failed build leaves the key to the next
  /// customer, whose own build says whether the failure is the key's or was the first's.
  private func buildOnce(
    _ key: CompileKey, _ source: GeneratedSource, _ job: CustomerJob, _ context: ReleaseContext
  ) throws {
    switch compiled.claim(key) {
    case .compiled(let customer):
      context.reporter.report(.customerProgress(id: job.id, step: "compiled as key \(key.short)"))
      let log = job.scratchLog(in: context.cacheDirectory)
      try AtomicFile.createDirectory(log.deletingLastPathComponent())
      try AtomicFile.write(
        Data(
          "No swift build: compile key \(key.short) (every compiled input of this package) was built for \(customer) in this run; this package differs only in resources, which --skip-tests reads nowhere.\n"
            .utf8), to: log)
    case .prove, .run, .fallBack:
      var built = false
      defer { compiled.resolve(key, built ? .compiled(by: job.id) : nil) }
      try inSlot(source, job, context, refreshBundles: true) { try swift($0, job, context) }
      built = true
    }
  }

  /// `swift test` of a key's first customer in a slot whose resource bundles the tool removed,
  /// then the comparison of SwiftPM's bundle with the prediction. Returns what the key's other
  /// customers do; throws when this customer fails.
  private func prove(
    _ key: CompileKey, _ source: GeneratedSource, _ job: CustomerJob, _ context: ReleaseContext
  ) throws -> CompiledTests.Claim {
    try inSlot(source, job, context, refreshBundles: false) { slot in
      var failure: Error?
      do { try swift(slot, job, context) } catch { failure = error }
      let testBinary = BuildProducts.testBinary(of: slot)
      guard FileManager.default.isExecutableFile(atPath: testBinary.path) else {
        // Nothing built to prove: a failure is the build's (this customer's own), and a build
        // that passed without a test binary (not SwiftPM on Linux) leaves `swift test` to all.
        if let failure { throw failure }
        let difference = "no test binary at \(testBinary.path)"
        report(key, job, difference, context)
        return .fallBack(difference)
      }
      let predicted = try ResourceBundle.predicted(forPackage: source.directory)
      let bundles = BuildProducts.resourceBundles(of: slot)
      if let difference = try Self.bundleDifference(predicted, bundles, context) {
        // Decided whatever this customer's tests say: its tests read SwiftPM's bundle, not
        // the prediction, so it is tested again as every other customer of the key will be,
        // with its bundle made to hold its resources (made, when SwiftPM made none).
        compiled.resolve(key, .fallBack(difference))
        report(key, job, difference, context)
        if bundles.isEmpty {
          try ResourceBundle.assemble(
            predicted,
            at: BuildProducts.debugDirectory(of: slot).appendingPathComponent(BuildProducts.bundleName))
        } else {
          try BuildSlots.refreshResourceBundles(
            resources: source.directory.appendingPathComponent(PackageGenerator.resourcesDirectory),
            below: slot.appendingPathComponent(".build"))
        }
        try swift(slot, job, context)
        return .fallBack(difference)
      }
      // The bundle is as predicted: a failure is this customer's own (its models, its
      // configuration), and the next customer of the key proves it.
      if let failure { throw failure }
      return try keep(key, testBinary: testBinary, bundleName: bundles[0].lastPathComponent, job, context)
    }
  }

  /// How SwiftPM's resource bundles differ from the prediction; nil when they do not.
  private static func bundleDifference(
    _ predicted: [String: URL], _ bundles: [URL], _ context: ReleaseContext
  ) throws -> String? {
    if context.services.environment[simulateDifference] != nil {
      return "a difference simulated by \(simulateDifference)"
    }
    if bundles.count != 1 { return "SwiftPM made \(bundles.count) resource bundles, the prediction one" }
    return try ResourceBundle.difference(predicted: predicted, bundle: bundles[0])
  }

  /// Keeps the key's proven test binary with the tests of the customer's data it lists and the
  /// test count `swift test` printed; without them every customer of the key falls back.
  private func keep(
    _ key: CompileKey, testBinary: URL, bundleName: String, _ job: CustomerJob, _ context: ReleaseContext
  ) throws -> CompiledTests.Claim {
    var binary = try compiled.keep(key, testBinary: testBinary, bundleName: bundleName)
    let listed = try context.services.processRunner.run(
      ProcessInvocation(
        binary.executable.path, ["--list-tests"],
        environment: ChildEnvironment.withoutSecrets(context.services.environment)))
    (binary.dataTests, binary.dataTestCount) = CompiledTests.dataTests(listed: listed.standardOutput)
    binary.testCount = TestCount.parse(log: job.scratchLog(in: context.cacheDirectory))
    guard listed.exitCode == 0, !binary.dataTests.isEmpty, binary.testCount != nil else {
      let difference = "no customer-data tests listed by the test binary, or no test count from swift test"
      report(key, job, difference, context)
      return .fallBack(difference)
    }
    return .run(binary)
  }

  /// Says in the run's output that the customers of `key` are tested with `swift test`.
  private func report(_ key: CompileKey, _ job: CustomerJob, _ difference: String, _ context: ReleaseContext)
  {
    context.reporter.report(
      .info(
        "compile key \(key.short) (\(job.id) first): \(difference); every customer of this key is tested with swift test"
      ))
  }

  /// Runs the key's test binary for this customer: a hard link of it in a directory of the
  /// customer's own, beside the customer's bundle, where the generated `Bundle.module` looks
  /// first (`Bundle.main`, the binary's directory; it falls back to the slot's bundle only when
  /// that one is missing).
  private func runTestBinary(
    _ binary: CompiledTests.Binary, _ source: GeneratedSource, _ job: CustomerJob, _ context: ReleaseContext
  ) throws {
    let directory = context.cacheDirectory.appendingPathComponent("tests").appendingPathComponent(job.id)
    let fileManager = FileManager.default
    try? fileManager.removeItem(at: directory)
    defer { try? fileManager.removeItem(at: directory) }
    try AtomicFile.createDirectory(directory)
    let executable = directory.appendingPathComponent(binary.executable.lastPathComponent)
    do {
      if (try? fileManager.linkItem(at: binary.executable, to: executable)) == nil {
        try fileManager.copyItem(at: binary.executable, to: executable)
      }
    } catch {
      throw SystemError.cannotWrite(path: executable.path, reason: SystemError.reason(error))
    }
    context.reporter.report(.customerProgress(id: job.id, step: "assemble bundle"))
    try ResourceBundle.assemble(
      try ResourceBundle.predicted(forPackage: source.directory),
      at: directory.appendingPathComponent(binary.bundleName))
    let shown = TestMethod.testBinary(compileKey: binary.key.short).description
    context.reporter.report(.customerProgress(id: job.id, step: shown))
    // Only the tests that read the customer's data: the others ran in the key's first
    // customer's `swift test`, on the same binary.
    let invocation = ProcessInvocation(
      executable.path, [binary.dataTests.joined(separator: ",")], in: directory,
      environment: ChildEnvironment.withoutSecrets(context.services.environment),
      logFile: job.scratchLog(in: context.cacheDirectory), timeLimit: context.settings.build.timeout,
      timeLimitOption: "--timeout", shownAs: shown)
    let result = try context.services.processRunner.runWithOwnTemporaryDirectory(invocation)
    guard result.exitCode == 0 else {
      throw SystemError.processFailed(
        command: invocation.commandLine, exitCode: result.exitCode, logPath: nil)
    }
    // A filter that matches nothing runs nothing and passes: the count must be the listed one.
    let ran = TestCount.parse(log: job.scratchLog(in: context.cacheDirectory))
    guard ran == binary.dataTestCount else {
      throw SwiftBuildFailure.testsMissing(
        command: invocation.commandLine, ran: ran ?? 0, listed: binary.dataTestCount)
    }
  }

  /// The flags every build passes (part of the compile key). The index store is how `swift
  /// test` finds the tests on Linux, but indexing the system modules (Foundation, XCTest) in
  /// every slot's first build finds no tests and costs a good part of a cold build.
  private var flags: [String] {
    [
      "-Xswiftc", "-module-cache-path", "-Xswiftc", slots.moduleCache.path, "-Xswiftc",
      "-index-ignore-system-modules",
    ]
  }

  private func inSlot<T>(
    _ source: GeneratedSource, _ job: CustomerJob, _ context: ReleaseContext, refreshBundles: Bool,
    _ body: (URL) throws -> T
  ) throws -> T {
    try slots.withSlot(directoryName: "ContextSDK", affinity: job.slotAffinity) { slot in
      try BuildSlots.mirror(source.directory, into: slot, refreshBundles: refreshBundles)
      return try body(slot)
    }
  }

  /// `swift test` (or `swift build` under `--skip-tests`) in `slot`: the work of `swift build`
  /// + `swift test` in one manifest load and one build plan, which is a large part of a warm
  /// customer's time. Compiler errors and test failures both land in the log, whose tail is
  /// shown on failure.
  private func swift(_ slot: URL, _ job: CustomerJob, _ context: ReleaseContext) throws {
    let action = context.settings.build.skipTests ? "build" : "test"
    context.reporter.report(.customerProgress(id: job.id, step: "swift \(action)"))
    let invocation = ProcessInvocation(
      "swift", [action] + flags, in: slot,
      environment: ChildEnvironment.withoutSecrets(context.services.environment),
      logFile: job.scratchLog(in: context.cacheDirectory), timeLimit: context.settings.build.timeout,
      timeLimitOption: "--timeout", shownAs: "swift \(action)")
    let result = try context.services.processRunner.runWithOwnTemporaryDirectory(invocation)
    guard result.exitCode == 0 else {
      let failure = SystemError.processFailed(
        command: invocation.commandLine, exitCode: result.exitCode, logPath: nil)
      // Tests that ran to their total ran after everything was built.
      let built = action == "test" && TestCount.parse(log: job.scratchLog(in: context.cacheDirectory)) != nil
      throw built ? BuildSlots.FailedAfterBuilding(failure: failure) : failure
    }
  }
}

/// Reads the number of tests `swift test` ran from its output.
package enum TestCount {
  /// XCTest: "Executed 12 tests, with 0 failures"; Swift Testing: "Test run with 3 tests passed".
  /// XCTest prints one line per suite and a total; the largest figure is the total.
  package static func parse(log: URL) -> Int? {
    guard let text = try? String(contentsOf: log, encoding: .utf8) else { return nil }
    var counts: [Int] = []
    for line in text.split(separator: "\n") {
      for marker in ["Executed ", "Test run with "] {
        guard let range = line.range(of: marker) else { continue }
        let digits = line[range.upperBound...].prefix { $0.isNumber }
        if let count = Int(digits) { counts.append(count) }
      }
    }
    return counts.max()
  }
}

/// A test binary that ran other tests than it listed.
enum SwiftBuildFailure: Error, CustomStringConvertible {
  case testsMissing(command: String, ran: Int, listed: Int)

  var description: String {
    switch self {
    case .testsMissing(let command, let ran, let listed):
      "\(command) ran \(ran) tests of the customer's data, not the \(listed) it lists"
    }
  }
}
