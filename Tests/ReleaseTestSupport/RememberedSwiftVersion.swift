import Foundation
import ReleaseSystem

/// `swift --version` of the test process's toolchain, run once per test process, for the
/// `release` processes the tests start and the stand-ins they put on PATH: every run plans with
/// the toolchain's version, each call starts the toolchain's driver, and the suite starts
/// hundreds of runs. (In-process runs remember it through `ToolchainVersionMemo`.) The
/// toolchain cannot change while the tests run; every other `swift` call runs the real one.
package enum RememberedSwiftVersion {
  private struct Remembered {
    let directory: URL
    let output: URL
    let errors: URL
  }

  /// Nil when no `swift` is on PATH or its `--version` failed: then nothing is remembered and
  /// every call runs the real one.
  private static let remembered: Remembered? = {
    guard let real = SystemProcessRunner.find("swift"),
      let version = try? SystemProcessRunner().run(ProcessInvocation(real.path, ["--version"])),
      version.exitCode == 0
    else { return nil }
    let directory = directoryPath()
    let remembered = Remembered(
      directory: directory, output: directory.appendingPathComponent("version.txt"),
      errors: directory.appendingPathComponent("version-stderr.txt"))
    let script = directory.appendingPathComponent("swift")
    do {
      try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
      try version.standardOutput.write(to: remembered.output, atomically: true, encoding: .utf8)
      try version.standardError.write(to: remembered.errors, atomically: true, encoding: .utf8)
      try "#!/bin/sh\n\(answer(remembered))exec \"\(real.path)\" \"$@\"\n".write(
        to: script, atomically: true, encoding: .utf8)
      try FileManager.default.setAttributes([.posixPermissions: 0o755], ofItemAtPath: script.path)
    } catch {
      return nil
    }
    // Static, so never deinitialised: remove the directory when the test process exits.
    atexit { try? FileManager.default.removeItem(at: RememberedSwiftVersion.directoryPath()) }
    return remembered
  }()

  private static func directoryPath() -> URL {
    FileManager.default.temporaryDirectory.appendingPathComponent("release-remembered-swift-\(getpid())")
  }

  private static func answer(_ remembered: Remembered) -> String {
    """
    if [ "$#" = 1 ] && [ "$1" = --version ]; then
      cat "\(remembered.output.path)"; cat "\(remembered.errors.path)" >&2; exit 0
    fi

    """
  }

  /// Lines for a `/bin/sh` stand-in for `swift`: answer `swift --version` from memory and exit;
  /// empty when nothing is remembered.
  package static var shellAnswer: String { remembered.map(answer) ?? "" }

  /// `path` with a `swift` first that answers `--version` from memory and runs the real one for
  /// anything else; `path` itself when nothing is remembered.
  package static func path(before path: String) -> String {
    remembered.map { $0.directory.path + ":" + path } ?? path
  }
}
