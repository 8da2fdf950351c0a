import Foundation
import ReleaseCore
import ReleasePipeline
import ReleaseSettings
import ReleaseSigning
import ReleaseSystem

// `release keys generate`, `allowed-signers` and `check` as chains of steps
// (`KeysCommand.pipeline`).

/// Refuses a private key where git would commit it: `<dir>/<name>.pem` inside a git work tree
/// and not ignored there (`PrivateKeyPlacement`). Asked before the pair is made, so a refused
/// run writes nothing.
struct CheckKeyPlacementStep: RequiredStep {
  let name = "check key placement"

  func run(_ options: KeysGenerateOptions, _ context: ReleaseContext) throws {
    let services = context.services
    let file = "\(options.name).pem"
    try PrivateKeyPlacement.checkIgnored(
      services.resolve(options.directory).appendingPathComponent(file),
      display: KeyPairFiles.displayPath(of: file, in: options.directory), services: services)
  }
}

/// A key pair `keys generate` wrote: the key, and its files as messages name them.
struct WrittenKeyPair {
  var key: SigningKey
  var privateFile: String
  var publicFile: String
}

/// A new Ed25519 key pair, written as `<dir>/<name>.pem` and `<dir>/<name>.pub`
/// (`KeyPairFiles`: never over an existing file). A refusal of the files (one exists, the
/// directory cannot be made) is bad input, exit 2: the user picks another name or directory.
struct WriteKeyPairStep: RequiredStep {
  let name = "write key pair"

  func run(_ options: KeysGenerateOptions, _ context: ReleaseContext) throws -> WrittenKeyPair {
    let key: SigningKey
    do { key = try SigningKey.generate() } catch {
      throw ReleaseError.stepFailed(step: "keys generate", reason: error.description)
    }
    do {
      let files = try KeyPairFiles.write(
        key, to: context.services.resolve(options.directory), displayDirectory: options.directory,
        name: options.name)
      return WrittenKeyPair(key: key, privateFile: files.privateFile, publicFile: files.publicFile)
    } catch {
      throw ReleaseError.invalidInput(error.description)
    }
  }
}

/// The new key's id and fingerprint, and what to do with each file: the public half is
/// committed and trusted, the private half becomes the CI secret and never a commit. The key
/// itself is never printed.
struct ReportKeyPairStep: RequiredStep {
  let name = "report"

  func run(_ pair: WrittenKeyPair, _ context: ReleaseContext) throws {
    context.services.output.write(
      lines: [
        "key id \(pair.key.keyID) (\(pair.key.publicKey.sshFingerprint))",
        "\(pair.publicFile): the public half. Add it to release.config.json's signing.trustedKeys and commit it.",
        "\(pair.privateFile): the private half (mode 0600). Store its contents as the CI secret \(SigningKeys.environmentVariable), then remove it or keep it offline; never commit it.",
      ], to: .standardOutput)
  }
}

/// The allowed_signers file's lines: per trusted key, in the configuration's order, a comment
/// naming its fingerprint, key id and file, then its line for `--identity` and the namespace
/// releases are signed in. An identity `ssh-keygen` cannot read is refused (exit 2).
struct MakeAllowedSignersStep: RequiredStep {
  let name = "make allowed_signers lines"

  func run(_ options: AllowedSignersOptions, _ context: ReleaseContext) throws -> [String] {
    var lines: [String] = []
    for entry in options.trusted.entries {
      let line: String
      do {
        line = try entry.key.allowedSignersLine(
          identity: options.identity, namespace: ReleaseSignature.namespace)
      } catch {
        throw ReleaseError.usage(
          "--identity \(options.identity.prefix(60)): not a signer identity; expected no spaces, quotes or '#' (e.g. \(KeysCommand.defaultIdentity))"
        )
      }
      lines += ["# \(entry.key.sshFingerprint) (key id \(entry.key.keyID), \(entry.file))", line]
    }
    return lines
  }
}

/// The allowed_signers lines on standard output, as a file to save.
struct PrintAllowedSignersStep: RequiredStep {
  let name = "print allowed_signers lines"

  func run(_ lines: [String], _ context: ReleaseContext) throws {
    context.services.output.write(lines: lines, to: .standardOutput)
  }
}

/// A private signing key, where it came from, and the trusted file of its public half.
struct TrustedSigningKey {
  var key: SigningKey
  /// The file, or the variable and the key's place in it, as messages name it.
  var source: String
  /// The entry of `signing.trustedKeys` (or the root) that trusts it.
  var trustedFile: String
}

/// Each signing key, in the order given, with the trusted file its public half is in.
struct MatchSigningKeysStep: RequiredStep {
  let name = "match signing keys"

  func run(_ options: KeysCheckOptions, _ context: ReleaseContext) throws -> [TrustedSigningKey] {
    options.signing.entries.map { entry in
      TrustedSigningKey(
        key: entry.key, source: entry.source,
        // The resolution lets only trusted keys through; a key without a trusted file (options
        // made otherwise) shows "?" rather than stopping the report.
        trustedFile: options.trusted.entry(for: entry.key.publicKey)?.file ?? "?")
    }
  }
}

/// A line per signing key: where it came from, its id and fingerprint, and the trusted file;
/// never the key itself.
struct ReportSigningKeysStep: RequiredStep {
  let name = "report"

  func run(_ keys: [TrustedSigningKey], _ context: ReleaseContext) throws {
    context.services.output.write(
      lines: keys.map {
        "\($0.source): key \($0.key.keyID) (\($0.key.publicKey.sshFingerprint)) is trusted (\($0.trustedFile))"
      }, to: .standardOutput)
  }
}
