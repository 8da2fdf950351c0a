import Foundation
import ReleaseCore
import ReleaseOTA
import ReleasePipeline
import ReleaseSettings
import ReleaseSigning
import ReleaseSystem

/// `release ota root init|rotate|show`: the channel's root documents (`ChannelRoot`), signed
/// with the offline root keys, committed in `signing.root` (default `ota-root`). A chain of
/// steps (`RootSteps.swift`): sign the next root, write it; or show the chain.
enum RootCommand {
  static let command = Command(
    name: "root", synopsis: "ota root <init|rotate|show>",
    summary: "the channel's root of trust: which keys sign roots and manifests",
    title: "the signed channel's root documents: root keys, manifest keys and their thresholds",
    usage: [
      "ota root init --root-key <pub>... --threshold <t> --manifest-key <pub>... [--manifest-threshold <m>] --signing-key <pem>...",
      "ota root rotate [--root-key <pub>...] [--threshold <t>] [--manifest-key <pub>...] [--manifest-threshold <m>] --signing-key <pem>...",
      "ota root show [options]",
    ],
    discussion: """
      init writes <root>/1.json (signing.root in release.config.json, default ota-root), a DSSE \
      envelope of type application/vnd.contextsdk.ota-root+json signed by at least --threshold \
      of the root keys. rotate writes <root>/<n+1>.json, which must be signed by the previous \
      root's threshold of its root keys and the new threshold of the new ones; an option left \
      out keeps its previous value. show prints the chain. With signing.root set, the newest \
      root's manifest keys are the trusted keys (instead of signing.trustedKeys), ota publish \
      publishes every root as ota/<channel>/root-<n>.json and packages embed the newest. \
      Refused (exit 2, nothing written): a threshold the signatures do not meet, an existing \
      file, a key file that is not an Ed25519 key.
      """,
    positionals: [Positional(label: "<init|rotate|show>", help: "what to do")],
    arity: .exactly(1, expected: "init, rotate or show"),
    groups: [
      OptionGroup(
        "OPTIONS",
        [
          Options.rootKey, Options.rootThreshold, Options.manifestKey, Options.manifestThreshold,
          Options.rootSigningKey, Options.config,
        ])
    ],
    parent: "ota",
    run: { try run(try RootOptions($0, $1), $1) })

  static func run(_ options: RootOptions, _ invocation: CommandInvocation) throws {
    try pipeline(options, invocation.quietPipeline())
  }

  static func pipeline(_ options: RootOptions, _ pipeline: Pipeline) throws {
    guard let change = options.change else {
      try pipeline.run(ShowRootChainStep(), options.settings)
      return
    }
    let signed = try pipeline.run(SignRootStep(), change)
    try pipeline.run(WriteRootStep(), signed)
  }
}

/// `release ota root`'s arguments, with the next root checked and its key files read
/// (`RootKeyFiles`) here, before any step.
struct RootOptions {
  /// Where the chain is committed, and the chain.
  var settings: RootSettings
  /// What `init` and `rotate` make; nil for `show`.
  var change: RootChange?

  init(_ parsed: Arguments, _ invocation: CommandInvocation) throws {
    settings = try SettingsResolution(parsed, invocation).root()
    let (display, chain) = (settings.display, settings.chain)
    switch parsed.positionals.first {
    case "init":
      if chain != nil {
        throw ReleaseError.invalidInput("ota root init: \(display)/1.json exists; use 'ota root rotate'")
      }
    case "rotate":
      guard chain != nil else {
        throw ReleaseError.invalidInput(
          "ota root rotate: \(display)/1.json: no such file; run 'ota root init' first")
      }
    case "show":
      guard chain != nil else {
        throw ReleaseError.invalidInput("ota root show: \(display)/1.json: no such file")
      }
      return
    default:
      // One word (the command's arity): not one of the three.
      throw ReleaseError.usage(
        "ota root: expected init, rotate or show, found \"\(parsed.positionals.joined(separator: " "))\"")
    }
    change = try RootChange(parsed, settings, invocation.services)
  }
}

/// The next root as `init` or `rotate` asks for it, checked whole, and the keys to sign it
/// with. A role's keys or threshold left out keep the previous root's. The refusals come in
/// the order a reader fixes them: the key files, a missing role or threshold, a root no device
/// would accept, then the signing keys.
struct RootChange {
  var settings: RootSettings
  var root: ChannelRoot
  /// The root private keys that sign the new root.
  var signers: [SigningKey]

  /// The root the chain ends with; nil for `init`.
  var previous: ChannelRoot? { settings.chain?.current }
}

extension RootChange {
  init(_ parsed: Arguments, _ settings: RootSettings, _ services: Services) throws {
    self.settings = settings
    let previous = settings.chain?.current
    let rootKeys = try RootKeyFiles.publicKeys(
      parsed[Options.rootKey], option: Options.rootKey.name, services)
    let manifestKeys = try RootKeyFiles.publicKeys(
      parsed[Options.manifestKey], option: Options.manifestKey.name, services)
    guard let keys = rootKeys ?? previous?.root.keys, let manifest = manifestKeys ?? previous?.manifest.keys
    else {
      throw ReleaseError.usage("ota root init: expected --root-key <pub>... and --manifest-key <pub>...")
    }
    guard let threshold = parsed[Options.rootThreshold] ?? previous?.root.threshold else {
      throw ReleaseError.usage("ota root init: expected --threshold <t>, how many root keys must sign")
    }
    let manifestThreshold = parsed[Options.manifestThreshold] ?? previous?.manifest.threshold ?? 1
    root = ChannelRoot(
      version: (previous?.version ?? 0) + 1, root: .init(keys: keys, threshold: threshold),
      manifest: .init(keys: manifest, threshold: manifestThreshold))
    do { _ = try ChannelRoot.decode(try root.payload(), location: "the new root") } catch {
      throw ReleaseError.invalidInput("\(error)")
    }
    signers = try RootKeyFiles.signingKeys(parsed[Options.rootSigningKey], services)
  }
}
