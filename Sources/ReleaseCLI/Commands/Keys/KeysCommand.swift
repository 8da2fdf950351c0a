import Foundation
import ReleaseCore
import ReleasePipeline
import ReleaseSettings

/// `release keys generate`, `release keys allowed-signers` and `release keys check`, each its
/// options built once, then a chain of steps (`KeysSteps.swift`).
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
      run: { try run(try KeysGenerateOptions($0), $1, pipeline) }),
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
      run: { try run(try AllowedSignersOptions($0, $1), $1, pipeline) }),
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
      run: { try run(try KeysCheckOptions($0, $1), $1, pipeline) }),
  ]

  /// Runs a keys command's steps (`KeysSteps.swift`) on its options. Nothing is previewed or
  /// reported as it goes: each command prints its own lines.
  static func run<CommandOptions>(
    _ options: CommandOptions, _ invocation: CommandInvocation,
    _ steps: (CommandOptions, Pipeline) throws -> Void
  ) throws {
    try steps(options, invocation.quietPipeline())
  }

  /// `keys generate`: refused where git would commit the private half, then the pair written
  /// and its files named.
  static func pipeline(_ options: KeysGenerateOptions, _ pipeline: Pipeline) throws {
    try pipeline.run(CheckKeyPlacementStep(), options)
    let pair = try pipeline.run(WriteKeyPairStep(), options)
    try pipeline.run(ReportKeyPairStep(), pair)
  }

  /// `keys allowed-signers`: a line per trusted key, printed.
  static func pipeline(_ options: AllowedSignersOptions, _ pipeline: Pipeline) throws {
    let lines = try pipeline.run(MakeAllowedSignersStep(), options)
    try pipeline.run(PrintAllowedSignersStep(), lines)
  }

  /// `keys check`: each signing key with the trusted file its public half is in, reported.
  static func pipeline(_ options: KeysCheckOptions, _ pipeline: Pipeline) throws {
    let matches = try pipeline.run(MatchSigningKeysStep(), options)
    try pipeline.run(ReportSigningKeysStep(), matches)
  }
}

// Each options type's parsing init is in an extension, keeping its memberwise init for the
// steps' tests.

/// `release keys generate`'s arguments.
struct KeysGenerateOptions {
  /// Where the pair is written, as typed: messages name the files under it.
  var directory: String
  /// The pair's file name, without `.pem` / `.pub`: letters, digits, '-', '_' or '.'.
  var name: String
}

extension KeysGenerateOptions {
  /// Refuses a `--name` that is not a plain file name before git is asked about it or
  /// anything is written.
  init(_ parsed: Arguments) throws {
    directory = parsed.positionals[0]
    name = parsed[Options.keyName] ?? "signing"
    guard KeyPairFiles.isValidName(name) else {
      throw ReleaseError.invalidInput(KeyPairFiles.WriteError.invalidName(name).description)
    }
  }
}

/// `release keys allowed-signers`' arguments.
struct AllowedSignersOptions {
  /// The signer identity of every line (`--identity`); checked as the lines are made.
  var identity: String
  /// release.config.json's (or `--config`'s) trusted keys: at least one.
  var trusted: TrustedKeys
}

extension AllowedSignersOptions {
  init(_ parsed: Arguments, _ invocation: CommandInvocation) throws {
    identity = parsed[Options.identity] ?? KeysCommand.defaultIdentity
    trusted = try SettingsResolution(parsed, invocation).requiredTrustedKeys(
      command: "keys allowed-signers",
      expected: "(no signing.trustedKeys); \(SigningKeys.makeKeyHint) and list its .pub file there")
  }
}

/// `release keys check`'s arguments.
struct KeysCheckOptions {
  var trusted: TrustedKeys
  /// The private keys of `--signing-key` or `RELEASE_SIGNING_KEY`: at least one, each the
  /// private half of a trusted key (the resolution refuses any other).
  var signing: SigningKeys
}

extension KeysCheckOptions {
  init(_ parsed: Arguments, _ invocation: CommandInvocation) throws {
    let resolution = try SettingsResolution(parsed, invocation)
    trusted = try resolution.trustedKeys()
    signing = try resolution.signingKeys(trusted: trusted, required: true)
  }
}
