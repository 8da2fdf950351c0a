import Foundation
import ReleaseSystem

/// The real process runner, except that `swift --version` of the test process's own toolchain
/// runs once per test process: every `release` run plans with the toolchain's version, each
/// call starts the toolchain's driver, and the suite makes hundreds of in-process runs.
/// The toolchain cannot change while the tests run. A `swift` found elsewhere (a stand-in a
/// test puts first on PATH) is always run.
package struct ToolchainVersionMemo: ProcessRunning {
  private static let real = SystemProcessRunner.find("swift")
  private static let remembered = Locked<ProcessResult?>(nil)

  package init() {}

  package func run(_ invocation: ProcessInvocation) throws -> ProcessResult {
    guard invocation.program == "swift", invocation.arguments == ["--version"], invocation.logFile == nil,
      let real = Self.real, SystemProcessRunner.find("swift", environment: invocation.environment) == real
    else {
      return try SystemProcessRunner().run(invocation)
    }
    if let result = Self.remembered.withLock({ $0 }) { return result }
    let result = try SystemProcessRunner().run(invocation)
    if result.exitCode == 0 { Self.remembered.withLock { $0 = result } }
    return result
  }
}
