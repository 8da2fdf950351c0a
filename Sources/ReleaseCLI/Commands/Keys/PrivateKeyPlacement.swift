import Foundation
import ReleaseCore
import ReleaseSystem

/// Refuses to write a private key where git would commit it: inside a git work tree, a path
/// `git check-ignore` does not report as ignored is staged by the next `git add -A`.
enum PrivateKeyPlacement {
  /// Throws (bad input) when `file` is in a git work tree and not ignored there. No git on
  /// PATH, or no work tree around the file: nothing would stage it.
  static func checkIgnored(_ file: URL, display: String, services: Services) throws {
    let directory = nearestExistingDirectory(above: file)
    let environment = ChildEnvironment.withoutSecrets(services.environment)
    func git(_ arguments: [String]) throws -> ProcessResult? {
      do {
        return try services.processRunner.run(
          ProcessInvocation("git", arguments, in: directory, environment: environment))
      } catch SystemError.programNotFound { return nil }
    }
    guard let inside = try git(["rev-parse", "--is-inside-work-tree"]), inside.exitCode == 0,
      inside.standardOutput.trimmingCharacters(in: .whitespacesAndNewlines) == "true"
    else { return }
    guard let ignored = try git(["check-ignore", "-q", "--", file.path]) else { return }
    switch ignored.exitCode {
    case 0: return
    case 1:
      throw ReleaseError.invalidInput(
        "\(display): inside a git work tree and not ignored by git ('git check-ignore' says so), so 'git add -A' would commit the private key; add '*.pem' to .gitignore or give a directory outside the work tree"
      )
    default:
      let reason = ignored.standardError.split(separator: "\n").first.map(String.init) ?? "no message"
      throw ReleaseError.invalidInput(
        "\(display): cannot tell whether git ignores it (git check-ignore exit \(ignored.exitCode): \(reason)); the private key is written only where git ignores it"
      )
    }
  }

  private static func nearestExistingDirectory(above file: URL) -> URL {
    var directory = file.deletingLastPathComponent()
    var isDirectory: ObjCBool = false
    while directory.path != "/",
      !(FileManager.default.fileExists(atPath: directory.path, isDirectory: &isDirectory)
        && isDirectory.boolValue)
    {
      directory = directory.deletingLastPathComponent()
    }
    return directory
  }
}
