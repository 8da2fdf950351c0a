import Foundation
import ReleaseCore
import ReleaseSystem

/// `swift build` and `swift test` of the generated package, in a warm build slot, with all
/// output streamed to the customer's log.
struct SwiftBuildStep: CustomerStep {
  let name = "build and test"
  let slots: BuildSlots

  func run(_ source: GeneratedSource, for job: CustomerJob, _ context: ReleaseContext) throws -> TestedPackage
  {
    let package = source.directory
    let log = job.scratchLog(in: context.cacheDirectory)
    let environment = ChildEnvironment.withoutSecrets(context.services.environment)
    try slots.withSlot(directoryName: "ContextSDK", affinity: job.slotAffinity) { slot in
      try BuildSlots.mirror(package, into: slot)
      // `swift test` builds everything (tests included) and runs the tests: the work of
      // `swift build` + `swift test` in one manifest load and one build plan, which is a
      // large part of a warm customer's time. Compiler errors and test failures both land
      // in the log, whose tail is shown on failure.
      let action = context.options.skipTests ? "build" : "test"
      context.reporter.report(.customerProgress(id: job.id, step: "swift \(action)"))
      // The index store is how `swift test` finds the tests on Linux, but indexing the system
      // modules (Foundation, XCTest) in every slot's first build finds no tests and costs a
      // good part of a cold build.
      let invocation = ProcessInvocation(
        "swift",
        [
          action, "-Xswiftc", "-module-cache-path", "-Xswiftc", slots.moduleCache.path, "-Xswiftc",
          "-index-ignore-system-modules",
        ], in: slot,
        environment: environment, logFile: log, timeLimit: context.options.timeout,
        timeLimitOption: "--timeout",
        shownAs: "swift \(action)")
      let result = try context.services.processRunner.run(invocation)
      guard result.exitCode == 0 else {
        throw SystemError.processFailed(
          command: invocation.commandLine, exitCode: result.exitCode, logPath: nil)
      }
    }
    return TestedPackage(source: source, testCount: TestCount.parse(log: log))
  }
}

/// A generated package that built, and passed its tests unless `--skip-tests`.
struct TestedPackage: Sendable {
  var source: GeneratedSource
  /// How many tests `swift test` ran, when it printed it.
  var testCount: Int?
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
