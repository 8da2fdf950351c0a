import Foundation
import ReleaseCore
import ReleaseOTA
import ReleaseSettings
import ReleaseSigning
import ReleaseSystem

/// `release ota root init|rotate|show`: the channel's root documents (`ChannelRoot`), signed
/// with the offline root keys, committed in `signing.root` (default `ota-root`).
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
    run: { try run($0, $1) })

  static func run(_ parsed: Arguments, _ invocation: CommandInvocation) throws {
    let settings = try SettingsResolution(parsed, invocation).root()
    let (url, display, chain) = (settings.directory, settings.display, settings.chain)
    switch parsed.positionals.first {
    case "init":
      if chain != nil {
        throw ReleaseError.invalidInput("ota root init: \(display)/1.json exists; use 'ota root rotate'")
      }
      try write(
        try next(after: nil, parsed, invocation.services), after: nil, parsed, url, display, invocation)
    case "rotate":
      guard let chain else {
        throw ReleaseError.invalidInput(
          "ota root rotate: \(display)/1.json: no such file; run 'ota root init' first")
      }
      let root = try next(after: chain.current, parsed, invocation.services)
      try write(root, after: chain.current, parsed, url, display, invocation)
    case "show":
      guard let chain else {
        throw ReleaseError.invalidInput("ota root show: \(display)/1.json: no such file")
      }
      for (index, root) in chain.roots.enumerated() {
        invocation.services.output.write(line: describe(root, chain.envelopes[index]), to: .standardOutput)
      }
    default:
      // One word (the command's arity): not one of the three.
      throw ReleaseError.usage(
        "ota root: expected init, rotate or show, found \"\(parsed.positionals.joined(separator: " "))\"")
    }
  }

  /// The root after `previous` (nil: the first) as the options describe it.
  private static func next(after previous: ChannelRoot?, _ parsed: Arguments, _ services: Services) throws
    -> ChannelRoot
  {
    let rootKeys = try RootKeyFiles.publicKeys(
      parsed[Options.rootKey], option: Options.rootKey.name, services)
    let manifestKeys = try RootKeyFiles.publicKeys(
      parsed[Options.manifestKey], option: Options.manifestKey.name, services)
    guard let root = rootKeys ?? previous?.root.keys, let manifest = manifestKeys ?? previous?.manifest.keys
    else {
      throw ReleaseError.usage("ota root init: expected --root-key <pub>... and --manifest-key <pub>...")
    }
    guard let threshold = parsed[Options.rootThreshold] ?? previous?.root.threshold else {
      throw ReleaseError.usage("ota root init: expected --threshold <t>, how many root keys must sign")
    }
    let manifestThreshold = parsed[Options.manifestThreshold] ?? previous?.manifest.threshold ?? 1
    let candidate = ChannelRoot(
      version: (previous?.version ?? 0) + 1, root: .init(keys: root, threshold: threshold),
      manifest: .init(keys: manifest, threshold: manifestThreshold))
    do { _ = try ChannelRoot.decode(try candidate.payload(), location: "the new root") } catch {
      throw ReleaseError.invalidInput("\(error)")
    }
    return candidate
  }

  /// Signs `root`, opens it as a device would after `previous`, and writes it create-only.
  private static func write(
    _ root: ChannelRoot, after previous: ChannelRoot?, _ parsed: Arguments, _ url: URL, _ display: String,
    _ invocation: CommandInvocation
  ) throws {
    let signers = try RootKeyFiles.signingKeys(parsed[Options.rootSigningKey], invocation.services)
    let eligible = root.root.keys + (previous?.root.keys ?? [])
    for signer in signers where !eligible.contains(signer.publicKey) {
      throw ReleaseError.invalidInput(
        "--signing-key: key \(signer.keyID) is not a root key of the previous or the new root; expected a root private key"
      )
    }
    let file = RootDirectory.file(display, version: root.version)
    let envelope = try root.signed(by: signers)
    do { _ = try ChannelRoot.open(envelope, after: previous, location: file) } catch {
      throw ReleaseError.invalidInput(error.description)
    }
    let target = url.appendingPathComponent("\(root.version).json")
    guard !FileManager.default.fileExists(atPath: target.path) else {
      throw ReleaseError.invalidInput("\(file): exists; root documents are never overwritten")
    }
    try FileManager.default.createDirectory(at: url, withIntermediateDirectories: true)
    try AtomicFile.write(envelope, to: target)
    invocation.services.output.write(line: "wrote \(file); commit it", to: .standardOutput)
    invocation.services.output.write(line: describe(root, envelope), to: .standardOutput)
  }

  private static func describe(_ root: ChannelRoot, _ envelope: Data) -> String {
    func keys(_ role: ChannelRoot.Role) -> String {
      role.keys.map { String($0.keyID.prefix(16)) }.joined(separator: ", ") + " (threshold \(role.threshold))"
    }
    let signers = (try? DSSEEnvelope(json: envelope)).map { root.root.signers(of: $0).count } ?? 0
    return
      "root \(root.version): root keys \(keys(root.root)); manifest keys \(keys(root.manifest)); signed by \(signers) of its root keys"
  }
}
