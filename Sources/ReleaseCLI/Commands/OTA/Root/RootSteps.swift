import Foundation
import ReleaseCore
import ReleaseOTA
import ReleasePipeline
import ReleaseSettings
import ReleaseSigning
import ReleaseSystem

/// A new root document, signed and opened as a device would open it.
struct SignedRoot {
  var root: ChannelRoot
  var envelope: Data
  var settings: RootSettings
  /// As messages name it: `ota-root/2.json`.
  var file: String
}

/// Signs the next root with the keys given, each a root key of the previous or the new root,
/// and opens it as a device would after the previous one: a threshold the signatures do not
/// meet is refused (exit 2) before anything is written.
struct SignRootStep: RequiredStep {
  let name = "sign root"

  func run(_ change: RootChange, _ context: ReleaseContext) throws -> SignedRoot {
    let (root, previous) = (change.root, change.previous)
    let eligible = root.root.keys + (previous?.root.keys ?? [])
    for signer in change.signers where !eligible.contains(signer.publicKey) {
      throw ReleaseError.invalidInput(
        "--signing-key: key \(signer.keyID) is not a root key of the previous or the new root; expected a root private key"
      )
    }
    let file = RootDirectory.file(change.settings.display, version: root.version)
    let envelope = try root.signed(by: change.signers)
    do { _ = try ChannelRoot.open(envelope, after: previous, location: file) } catch {
      throw ReleaseError.invalidInput(error.description)
    }
    return SignedRoot(root: root, envelope: envelope, settings: change.settings, file: file)
  }
}

/// Writes the signed root as `<root>/<n>.json`, create-only (root documents are never
/// overwritten), and says what it holds.
struct WriteRootStep: RequiredStep {
  let name = "write root"

  func run(_ signed: SignedRoot, _ context: ReleaseContext) throws {
    let directory = signed.settings.directory
    let target = directory.appendingPathComponent("\(signed.root.version).json")
    guard !FileManager.default.fileExists(atPath: target.path) else {
      throw ReleaseError.invalidInput("\(signed.file): exists; root documents are never overwritten")
    }
    try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
    try AtomicFile.write(signed.envelope, to: target)
    let output = context.services.output
    output.write(line: "wrote \(signed.file); commit it", to: .standardOutput)
    output.write(line: RootText.describe(signed.root, signed.envelope), to: .standardOutput)
  }
}

/// `ota root show`: a line per root of the chain.
struct ShowRootChainStep: RequiredStep {
  let name = "show roots"

  func run(_ settings: RootSettings, _ context: ReleaseContext) throws {
    guard let chain = settings.chain else { return }
    for (index, root) in chain.roots.enumerated() {
      context.services.output.write(
        line: RootText.describe(root, chain.envelopes[index]), to: .standardOutput)
    }
  }
}

/// How a root is printed: its roles' key ids and thresholds, and how many of its root keys
/// signed it.
enum RootText {
  static func describe(_ root: ChannelRoot, _ envelope: Data) -> String {
    func keys(_ role: ChannelRoot.Role) -> String {
      role.keys.map { String($0.keyID.prefix(16)) }.joined(separator: ", ") + " (threshold \(role.threshold))"
    }
    let signers = (try? DSSEEnvelope(json: envelope)).map { root.root.signers(of: $0).count } ?? 0
    return
      "root \(root.version): root keys \(keys(root.root)); manifest keys \(keys(root.manifest)); signed by \(signers) of its root keys"
  }
}
