import Foundation
import ReleaseCore
import ReleaseGeneration
import ReleaseOTA
import ReleaseSettings
import ReleaseSigning

/// What a package embeds from its settings: the over-the-air manifest URLs, the pinned keys and
/// root, and how to check a release's signature.
extension PackageSettings {
  /// `<public URL>/ota/<id>/models.json`, the customer's legacy unsigned over-the-air manifest
  /// as its SDK fetches it; nil without a public URL (the package then has no manifest to
  /// follow), and nil on the signed channel once `publish.legacyManifests` is false.
  package func modelManifestURL(for customer: String) -> String? {
    guard let base = publicBase else { return nil }
    if hasSignedChannel && !legacyManifests { return nil }
    return "\(base)/\(OTAManifest.pointerKey(customer))"
  }

  /// `<public URL>/ota/<channel>/manifest.json`: the signed manifest a package follows; nil
  /// without the signed channel.
  package func manifestURL(channel: String) -> String? {
    guard hasSignedChannel, let base = publicBase else { return nil }
    return "\(base)/\(SignedOTAChannel.pointerKey(channel: channel))"
  }

  /// The keys every package of the signed channel pins, in the configuration's order; nil
  /// without the signed channel.
  package var pinnedKeys: [PinnedKey]? {
    guard hasSignedChannel else { return nil }
    return trustedKeys.map {
      PinnedKey(keyID: $0.keyID, publicKey: $0.rawRepresentation.base64EncodedString())
    }
  }

  /// The newest root document's envelope, as every package of the signed channel embeds it;
  /// nil without a root or without the signed channel.
  package var embeddedRoot: String? {
    guard hasSignedChannel, let chain = rootChain else { return nil }
    return String(decoding: chain.envelopes[chain.envelopes.count - 1], as: UTF8.self)
  }

  /// How a customer checks a release zip's signature, shown in every package's README: the
  /// trusted keys' fingerprints, the signer identity and where the `allowed_signers` line is
  /// published; nil without trusted keys (the README is then as it was before signing).
  package var signatureCheck: SignatureCheck? {
    guard !trustedKeys.isEmpty else { return nil }
    return SignatureCheck(
      fingerprints: trustedKeys.map(\.sshFingerprint), identity: ReleaseSignature.defaultIdentity,
      namespace: ReleaseSignature.namespace, allowedSignersURL: allowedSignersURL)
  }

  private var publicBase: String? {
    guard var base = publicURL else { return nil }
    while base.hasSuffix("/") { base.removeLast() }
    return base
  }
}
