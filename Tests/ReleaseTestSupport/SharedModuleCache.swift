import Foundation
import ReleaseSystem

/// One Clang and Swift module cache for the packages the tests build themselves with `swift
/// build` or `swift test` (generated packages and their consumers), in every test process and
/// every run of the suite, so that only the first such build compiles the system modules
/// (Glibc, the C shims of Foundation and Dispatch, XCTest's). The compilers name each module by
/// its module map and a hash of the compiler and the flags, and write it under a lock and a
/// rename, so builds in different processes share it safely.
///
/// Scripts/test names it to every process in `CLANG_MODULE_CACHE_PATH`, the variable the
/// compilers and the tool's build slots read (`BuildSlots.moduleCache(environment:resolve:)`),
/// so the tool's runs in the tests, each with a `--cache` of its own or its process's, share it
/// too; run otherwise, the tests use the same path and the tool's caches keep their own.
///
/// It is always reached by one path: a module built through one path and read through another
/// (a link) fails the build ("module '_Builtin_stddef' is defined in both …"). So the variable,
/// when set, is that path.
package enum SharedModuleCache {
  package static let url =
    ProcessInfo.processInfo.environment["CLANG_MODULE_CACHE_PATH"].flatMap { $0.isEmpty ? nil : $0 }
    .map { URL(fileURLWithPath: $0) }
    ?? RepositoryRoot.url.appendingPathComponent(".build/test-module-cache")

  /// `arguments` of a `swift` invocation, with the flags that make it use this cache (as the
  /// tool passes its own) when it compiles.
  package static func swiftArguments(_ arguments: [String]) -> [String] {
    guard let subcommand = arguments.first, ["build", "test"].contains(subcommand) else { return arguments }
    return arguments + [
      "-Xswiftc", "-module-cache-path", "-Xswiftc", url.path, "-Xswiftc", "-index-ignore-system-modules",
    ]
  }

  /// `swift <arguments>` in `directory` with this cache's flags, and a TMPDIR of its own that
  /// goes when it ends, as the tool runs `swift` (SwiftPM's leftover folders go with it).
  package static func swift(_ arguments: [String], in directory: URL, logFile: URL? = nil) throws
    -> ProcessResult
  {
    try SystemProcessRunner().runWithOwnTemporaryDirectory(
      ProcessInvocation("swift", swiftArguments(arguments), in: directory, logFile: logFile))
  }
}
