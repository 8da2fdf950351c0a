import Foundation
import ReleaseCore
import ReleasePipeline
import ReleaseSettings
import ReleaseSigning
import ReleaseSystem

/// `release keys generate`, `release keys allowed-signers` and `release keys check`.
enum KeysCommand {
  /// The signer identity of the `allowed_signers` line when `--identity` is not given, the one
  /// every signed package's README names.
  static let defaultIdentity = ReleaseSignature.defaultIdentity

  static let subcommands = [
    Command(
      name: "generate", synopsis: "keys generate <dir>", summary: "make a new signing key pair",
      title: "make a new Ed25519 signing key pair", usage: ["keys generate <dir> [--name <name>]"],
      discussion: """
        Writes <dir>/<name>.pem, the private half (PKCS#8 PEM, mode 0600), and <dir>/<name>.pub, \
        the public half (SubjectPublicKeyInfo PEM), and prints the key id. Add the .pub file to \
        release.config.json's signing.trustedKeys and commit it; store the .pem file's contents \
        as the CI secret RELEASE_SIGNING_KEY, then remove the file or keep it offline: never \
        commit it. Refused (exit 2): an existing file, which is never overwritten, and a .pem \
        inside a git work tree that git does not ignore. The directory is created mode 0700.
        """,
      positionals: [Positional(label: "<dir>", help: "where the pair is written (created if missing)")],
      arity: .exactly(1, expected: "one directory"),
      groups: [OptionGroup("OPTIONS", [Options.keyName])], parent: "keys",
      run: { try generate($0, $1) }),
    Command(
      name: "allowed-signers", synopsis: "keys allowed-signers",
      summary: "print the allowed_signers lines customers verify releases with",
      title: "print the allowed_signers line of each trusted key",
      usage: ["keys allowed-signers [--identity <name>] [options]"],
      discussion: """
        One line per key of release.config.json's signing.trustedKeys, each after a comment with \
        its SHA256 fingerprint (as 'ssh-keygen -l' prints it). Saved as a file, it is what \
        'ssh-keygen -Y verify -f <file> -I <identity> -n contextsdk-release -s <zip>.sig < <zip>' \
        checks a release's signature against.
        """,
      groups: [OptionGroup("OPTIONS", [Options.identity, Options.config])], parent: "keys",
      run: { try allowedSigners($0, $1) }),
    Command(
      name: "check", synopsis: "keys check", summary: "check that the signing keys given are trusted",
      title: "check the private signing keys against the trusted keys",
      usage: ["keys check [--signing-key <file>]... [options]"],
      discussion: """
        Reads the private keys (--signing-key, else RELEASE_SIGNING_KEY) and refuses (exit 2) \
        none, one that is not an Ed25519 private key, or one whose public half is not in \
        release.config.json's signing.trustedKeys. Prints each key's id and the trusted file it \
        matches, never the key itself. Run it in CI to check the secret before publishing.
        """,
      groups: [.signing, OptionGroup("OPTIONS", [Options.config])], parent: "keys",
      run: { try check($0, $1) }),
  ]

  static func generate(_ parsed: Arguments, _ invocation: CommandInvocation) throws {
    let directory = parsed.positionals[0]
    let name = parsed[Options.keyName] ?? "signing"
    let services = invocation.services
    let key: SigningKey
    do { key = try SigningKey.generate() } catch {
      throw ReleaseError.stepFailed(step: "keys generate", reason: error.description)
    }
    if KeyPairFiles.isValidName(name) {
      let display = directory.hasSuffix("/") ? "\(directory)\(name).pem" : "\(directory)/\(name).pem"
      try PrivateKeyPlacement.checkIgnored(
        services.resolve(directory).appendingPathComponent("\(name).pem"), display: display,
        services: services)
    }
    let files: (privateFile: String, publicFile: String)
    do {
      files = try KeyPairFiles.write(
        key, to: services.resolve(directory), displayDirectory: directory, name: name)
    } catch {
      throw ReleaseError.invalidInput(error.description)
    }
    services.output.write(
      lines: [
        "key id \(key.keyID) (\(key.publicKey.sshFingerprint))",
        "\(files.publicFile): the public half. Add it to release.config.json's signing.trustedKeys and commit it.",
        "\(files.privateFile): the private half (mode 0600). Store its contents as the CI secret \(SigningKeys.environmentVariable), then remove it or keep it offline; never commit it.",
      ], to: .standardOutput)
  }

  static func allowedSigners(_ parsed: Arguments, _ invocation: CommandInvocation) throws {
    let identity = parsed[Options.identity] ?? defaultIdentity
    let trusted = try SettingsResolution(parsed, invocation).requiredTrustedKeys(
      command: "keys allowed-signers",
      expected: "(no signing.trustedKeys); \(SigningKeys.makeKeyHint) and list its .pub file there")
    var lines: [String] = []
    for entry in trusted.entries {
      let line: String
      do {
        line = try entry.key.allowedSignersLine(
          identity: identity, namespace: ReleaseSignature.namespace)
      } catch {
        throw ReleaseError.usage(
          "--identity \(identity.prefix(60)): not a signer identity; expected no spaces, quotes or '#' (e.g. \(defaultIdentity))"
        )
      }
      lines += ["# \(entry.key.sshFingerprint) (key id \(entry.key.keyID), \(entry.file))", line]
    }
    invocation.services.output.write(lines: lines, to: .standardOutput)
  }

  static func check(_ parsed: Arguments, _ invocation: CommandInvocation) throws {
    let services = invocation.services
    let resolution = try SettingsResolution(parsed, invocation)
    let trusted = try resolution.trustedKeys()
    let signing = try resolution.signingKeys(trusted: trusted, required: true)
    services.output.write(
      lines: signing.entries.map { entry in
        let file = trusted.entry(for: entry.key.publicKey)?.file ?? "?"
        return
          "\(entry.source): key \(entry.key.keyID) (\(entry.key.publicKey.sshFingerprint)) is trusted (\(file))"
      }, to: .standardOutput)
  }
}
