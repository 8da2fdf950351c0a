import Foundation
import ReleaseSystem

/// Keys and signatures as a customer or an operator checks them: external tools, and the lines
/// of a private key that must appear in no output.
package enum KeysTestSupport {
  /// `ssh-keygen`'s arguments to check a release zip's signature as a customer does (the zip
  /// on stdin, `allowed_signers` in the working directory).
  package static func sshVerifyArguments(identity: String, signature: String) -> [String] {
    ["-Y", "verify", "-f", "allowed_signers", "-I", identity, "-n", "contextsdk-release", "-s", signature]
  }

  /// `program` with `arguments` in `directory` (`input` on its stdin); a setup error when the
  /// program is not on PATH.
  package static func tool(_ program: String, _ arguments: [String], in directory: URL, input: URL? = nil)
    throws
    -> ProcessResult
  {
    guard SystemProcessRunner.find(program) != nil else {
      throw PublishSetupError(description: "\(program) not found on PATH")
    }
    if let input {
      // ssh-keygen -Y verify reads the signed file on stdin.
      let command =
        ([program] + arguments).map(shellQuoted).joined(separator: " ") + " < " + shellQuoted(input.path)
      return try SystemProcessRunner().run(ProcessInvocation("sh", ["-c", command], in: directory))
    }
    return try SystemProcessRunner().run(ProcessInvocation(program, arguments, in: directory))
  }

  private static func shellQuoted(_ text: String) -> String {
    "'" + text.replacingOccurrences(of: "'", with: "'\\''") + "'"
  }

  /// The base64 lines of a PEM text's body: what must never appear in any output.
  package static func secretLines(ofPEM pem: String) -> [String] {
    pem.split(separator: "\n").map(String.init).filter { !$0.hasPrefix("-----") && !$0.isEmpty }
  }
}
